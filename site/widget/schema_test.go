package widget

import (
	"errors"
	"strings"
	"testing"
)

var testSchema = Schema{
	{Name: "keys", Label: "Keys", Kind: Enum, Default: "off", Allowed: []string{"off", "per-intent", "per-attempt"}},
	{Name: "faults", Label: "Faults", Kind: EnumList, Default: "lose-response, ok", Allowed: []string{"ok", "lose-request", "lose-response"}, MaxItems: 3},
	{Name: "padded", Label: "Padded", Kind: EnumList, Default: "", Allowed: []string{"ok", "lose"}, MaxItems: 4, Pad: "ok"},
	{Name: "attempts", Label: "Attempts", Kind: Int, Default: "3", Min: 1, Max: 10},
	{Name: "ratio", Label: "Ratio", Kind: Float, Default: "0.1", Min: 0, Max: 1},
	{Name: "budget", Label: "Budget", Kind: Bool, Default: "on"},
}

func TestParseDefaults(t *testing.T) {
	v := testSchema.Defaults()
	if v.String("keys") != "off" || v.Int("attempts") != 3 || v.Float("ratio") != 0.1 || !v.Bool("budget") {
		t.Fatalf("defaults = %v", v.Raw())
	}
	if got := strings.Join(v.List("faults"), "|"); got != "lose-response|ok" {
		t.Fatalf("faults = %q", got)
	}
}

func TestParseErrorsNameParameterAndAllowed(t *testing.T) {
	cases := []struct {
		raw  map[string]string
		want string
	}{
		{map[string]string{"kyes": "off"}, `unknown parameter "kyes" (did you mean keys? known: attempts, budget, faults, keys, padded, ratio)`},
		{map[string]string{"keys": "maybe"}, `keys: "maybe" is not allowed (allowed: off, per-intent, per-attempt)`},
		{map[string]string{"attempts": "11"}, `attempts: "11" is out of bounds (allowed: 1 to 10)`},
		{map[string]string{"attempts": "2.5"}, `attempts: "2.5" is not a whole number (allowed: 1 to 10)`},
		{map[string]string{"attempts": "NaN"}, `attempts: "NaN" is not a whole number (allowed: 1 to 10)`},
		{map[string]string{"ratio": "x"}, `ratio: "x" is not a number (allowed: 0 to 1)`},
		{map[string]string{"budget": "maybe"}, `budget: "maybe" is not allowed (allowed: on, off)`},
		{map[string]string{"faults": "ok, lose-respons"}, `faults: "lose-respons" is not allowed (did you mean lose-response? allowed: ok, lose-request, lose-response)`},
		{map[string]string{"faults": "ok,ok,ok,ok"}, `faults: "ok,ok,ok,ok" has 4 items (allowed: at most 3)`},
	}
	for _, c := range cases {
		_, err := testSchema.Parse(c.raw)
		var pe *Error
		if !errors.As(err, &pe) {
			t.Errorf("Parse(%v): error %v is not a *widget.Error", c.raw, err)
			continue
		}
		if err.Error() != c.want {
			t.Errorf("Parse(%v):\n got %s\nwant %s", c.raw, err, c.want)
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	v, err := testSchema.Parse(map[string]string{"keys": "per-intent", "faults": "lose-request,ok", "ratio": "0.25", "budget": "off"})
	if err != nil {
		t.Fatal(err)
	}
	j := v.JSON()
	want := `{"keys":"per-intent","faults":["lose-request","ok"],"padded":[],"attempts":3,"ratio":0.25,"budget":false}`
	if j != want {
		t.Fatalf("JSON = %s\nwant  %s", j, want)
	}
	back, err := testSchema.ParseJSON(j)
	if err != nil {
		t.Fatal(err)
	}
	if back.JSON() != j {
		t.Fatalf("round trip changed %s into %s", j, back.JSON())
	}
}

func TestParseJSONRejectsMalformed(t *testing.T) {
	for _, s := range []string{``, `{`, `{"keys":}`, `{"keys":"off",}`, `{"keys":"off"} x`, `{"keys":"off","keys":"off"}`, `{"faults":[1]}`, `[]`} {
		if _, err := testSchema.ParseJSON(s); err == nil {
			t.Errorf("ParseJSON(%q) accepted", s)
		}
	}
	if _, err := testSchema.ParseJSON(` { "keys" : "per-attempt" , "faults" : [ ] } `); err != nil {
		t.Errorf("spaced JSON: %v", err)
	}
}

func TestQueryRoundTripKeepsOnlyChanges(t *testing.T) {
	v, err := testSchema.Parse(map[string]string{"keys": "per-intent", "faults": "lose-request, ok"})
	if err != nil {
		t.Fatal(err)
	}
	q := v.Query()
	if q != "faults=lose-request%2Cok&keys=per-intent" {
		t.Fatalf("Query = %q", q)
	}
	back, err := testSchema.ParseQuery("?" + q)
	if err != nil {
		t.Fatal(err)
	}
	if back.JSON() != v.JSON() {
		t.Fatalf("round trip: %s != %s", back.JSON(), v.JSON())
	}
	if _, err := testSchema.ParseQuery("keys=off&keys=per-intent"); err == nil || !strings.Contains(err.Error(), "more than once") {
		t.Fatalf("repeated parameter: %v", err)
	}
	if _, err := testSchema.ParseQuery("keys=%zz"); err == nil {
		t.Fatal("bad escape accepted")
	}
}

func TestEveryRegisteredWidgetHasValidDefaultsAndRuns(t *testing.T) {
	for _, w := range All() {
		v := w.Schema.Defaults() // panics on a bad default
		run, err := w.Run(v)
		if err != nil {
			t.Fatalf("%s: default run: %v", w.Name, err)
		}
		var h HTML
		run.Output(&h, run.Steps())
		if strings.Count(h.String(), `class="w-outcome"`) != 1 {
			t.Fatalf("%s: output has no single w-outcome element:\n%s", w.Name, h.String())
		}
		for _, p := range w.Schema {
			if p.Label == "" || p.Help == "" {
				t.Errorf("%s: parameter %s lacks a label or help", w.Name, p.Name)
			}
		}
	}
}

func TestFindListsKnownWidgets(t *testing.T) {
	_, err := Find("paymnt")
	if err == nil || err.Error() != `widget "paymnt": unknown widget (did you mean payment? known: `+strings.Join(Names(), ", ")+`)` {
		t.Fatalf("Find(paymnt) = %v", err)
	}
}

func TestPadDropsTrailingPadItems(t *testing.T) {
	for text, want := range map[string]string{
		"lose, ok":         "lose",
		"ok, lose, ok, ok": "ok|lose",
		"ok, ok":           "",
		"":                 "",
	} {
		v, err := testSchema.Parse(map[string]string{"padded": text})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(v.List("padded"), "|"); got != want {
			t.Errorf("padded %q = %q, want %q", text, got, want)
		}
	}
}
