package widget

import (
	"strings"
	"testing"
)

// form is the controls of w rendered at its defaults, as the page reads
// them, with the values in set typed in.
func form(t *testing.T, w *Widget, set map[string]string) []Control {
	t.Helper()
	cs := controlsOf(t, render(t, w, nil))
	for i, c := range cs {
		if v, ok := set[c.Name]; ok {
			cs[i].Value = v
		}
	}
	return cs
}

// A value the widget cannot take is explained beside its control, by the
// control's label, with the bounds the control itself has; a conflict
// between two values blames the one the reader changed.
func TestFormSaysWhatIsWrongInTheReadersWords(t *testing.T) {
	for _, c := range []struct {
		w       *Widget
		set     map[string]string
		changed string
		param   string
		want    string
	}{
		{&Storm, map[string]string{"seconds": "10"}, "seconds", "seconds",
			"Length (s) must be from 20 to 600: at least Slowdown to (s), which is 20."},
		// Not knowing which changed, the value that differs from the
		// widget's is blamed, not the first in conflict (slow-from).
		{&Storm, map[string]string{"seconds": "10"}, "", "seconds",
			"Length (s) must be from 20 to 600: at least Slowdown to (s), which is 20."},
		{&Storm, map[string]string{"slow-from": "599"}, "slow-from", "slow-from",
			"Slowdown from (s) must be from 0 to 19: below Slowdown to (s), which is 20."},
		{&Storm, map[string]string{"slow-from": "600", "slow-to": "600", "seconds": "600"}, "slow-from", "slow-from",
			"Slowdown from (s) must be from 0 to 599."},
		// "abc" in a number field reads as "" in the browser.
		{&Storm, map[string]string{"seconds": ""}, "seconds", "seconds", "Length (s) needs a whole number from 20 to 600."},
		{&Storm, map[string]string{"seconds": "abc"}, "seconds", "seconds", "Length (s) needs a whole number from 20 to 600."},
		{&Storm, map[string]string{"seconds": "100.5"}, "seconds", "seconds", "Length (s) needs a whole number from 20 to 600."},
		{&Storm, map[string]string{"new": "10001"}, "new", "new", "New requests a second must be from 0 to 10,000."},
		{&Storm, map[string]string{"slow-factor": "x"}, "slow-factor", "slow-factor", "Capacity left when slow needs a number from 0 to 1."},
		{&Storm, map[string]string{"slow-from": "10", "seconds": "10", "slow-to": "15"}, "slow-to", "slow-to",
			"Slowdown to (s) has no value that fits: it must be above Slowdown from (s), which is 10, and at most Length (s), which is 10."},
		{&Payment, map[string]string{"attempts": ""}, "attempts", "attempts", "Attempts needs a whole number from 1 to 10."},
		{&Backoff, map[string]string{"cap": "0.05"}, "cap", "cap", "Cap (s) must be from 0.1 to 100: at least Base (s), which is 0.1."},
		{&Backoff, map[string]string{"base": "20"}, "base", "base", "Base (s) must be from 0.001 to 10."},
		// Values the model refuses as a whole: its reason, beside what
		// the reader changed.
		{&Backoff, map[string]string{"clients": "100000", "capacity": "1", "policy": "full"}, "capacity", "capacity",
			"Too many calls to simulate in the page: use fewer Clients, more Capacity (calls per slot) or a longer Cap (s); retrylab sim backoff runs any size."},
	} {
		_, run, err := runForm(c.w, form(t, c.w, c.set), c.changed, c.w.Schema.Defaults())
		if err == nil || run != nil {
			t.Errorf("%s %v: no error", c.w.Name, c.set)
			continue
		}
		if err.Param != c.param || err.Message != c.want {
			t.Errorf("%s %v, %s changed: %s says %q\nwant %s: %q", c.w.Name, c.set, c.changed, err.Param, err.Message, c.param, c.want)
		}
		if p, ok := c.w.Schema.Param(err.Param); !ok || !strings.HasPrefix(err.Message, p.Label) && !strings.HasPrefix(err.Message, "Too many") {
			t.Errorf("%s: %q does not begin with the control's label", c.w.Name, err.Message)
		}
	}
	// What the form holds at the defaults runs.
	for _, w := range All() {
		if v, run, err := runForm(w, form(t, w, nil), "", w.Schema.Defaults()); err != nil || run == nil || v.JSON() != w.Schema.Defaults().JSON() {
			t.Errorf("%s: the default form gives %v", w.Name, err)
		}
	}
}

// The controls' min and max are the limits the messages state: Length (s)
// starts where Slowdown to (s) is, Slowdown from (s) stops below it.
func TestControlBoundsFollowTheRules(t *testing.T) {
	html := render(t, &Storm, map[string]string{"slow-to": "30", "seconds": "200"})
	for _, want := range []string{
		`name="seconds" type="number" inputmode="decimal" min="30" max="600"`,
		`name="slow-from" type="number" inputmode="decimal" min="0" max="29"`,
		`name="slow-to" type="number" inputmode="decimal" min="11" max="200"`,
		`name="new" type="number" inputmode="decimal" min="0" max="10000"`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("storm's controls lack %s", want)
		}
	}
	if !strings.Contains(html, `data-region="controls" novalidate>`) {
		t.Error("the form leaves checking to the browser's bubbles")
	}
	v, err := Backoff.Schema.Parse(map[string]string{"base": "0.5", "cap": "2"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Bound{}
	for _, b := range v.Bounds() {
		got[b.Name] = b
	}
	if got["cap"].Min != "0.5" || got["base"].Max != "2" || got["clients"].Max != "100000" {
		t.Errorf("backoff's bounds: %v", got)
	}
}

// A list's message counts its items.
func TestFormLists(t *testing.T) {
	cs := form(t, &Ordering, nil)
	for i := range cs {
		if cs[i].Name == "arrival" {
			cs[i].Value = ""
		}
	}
	_, _, err := runForm(&Ordering, cs, "arrival", Ordering.Schema.Defaults())
	if err == nil || err.Param != "arrival" || err.Message != "Arrival order needs at least 1 item." {
		t.Errorf("an empty arrival order says %+v", err)
	}
	raw := map[string]string{"arrival": "evt_1, evt_9"}
	_, perr := Ordering.Schema.Parse(raw)
	if e := Ordering.Schema.explain(raw, perr, "", Values{}); e.Message != "Arrival order: “evt_9” is not one of evt_1 or evt_2." {
		t.Errorf("an unknown item says %q", e.Message)
	}
}

// runForm is what the page does with its controls: their values
// (FormValues), then their run, whose error is the reader's (RunFailed).
func runForm(w *Widget, cs []Control, changed string, shown Values) (Values, Run, *FieldError) {
	v, ferr := w.FormValues(cs, changed, shown)
	if ferr != nil {
		return Values{}, nil, ferr
	}
	run, err := w.Run(v)
	if err != nil {
		return Values{}, nil, w.RunFailed(err, changed)
	}
	return v, run, nil
}
