package widget

import (
	"regexp"
	"strings"
	"testing"
)

var (
	controlRE  = regexp.MustCompile(`(?s)<select [^>]*name="([^"]+)"[^>]*>(.*?)</select>|<input ([^>]*)>|<fieldset [^>]*data-param="([^"]+)"`)
	selectedRE = regexp.MustCompile(`<option value="([^"]*)" selected>`)
	attrValRE  = regexp.MustCompile(`\s([a-z-]+)(?:="([^"]*)")?`)
)

// controlsOf reads the controls of a rendered widget as the page does:
// each select's selected option, each input's value or checked state,
// each list's fieldset, in document order.
func controlsOf(t *testing.T, html string) []Control {
	t.Helper()
	var out []Control
	for _, m := range controlRE.FindAllStringSubmatch(html, -1) {
		if m[4] != "" {
			out = append(out, Control{Name: m[4], List: true})
			continue
		}
		if m[1] != "" {
			c := Control{Name: m[1]}
			if s := selectedRE.FindStringSubmatch(m[2]); s != nil {
				c.Value = s[1]
			}
			out = append(out, c)
			continue
		}
		attrs := map[string]string{}
		for _, a := range attrValRE.FindAllStringSubmatch(m[3], -1) {
			attrs[a[1]] = a[2]
		}
		if _, named := attrs["name"]; !named {
			continue
		}
		_, checked := attrs["checked"]
		out = append(out, Control{Name: attrs["name"], Value: attrs["value"], Checkbox: attrs["type"] == "checkbox", Checked: checked})
	}
	return out
}

// What the controls write, ReadForm reads back: for every widget, at its
// defaults and with each parameter changed, the form gives the values it
// was drawn with.
func TestReadFormReadsWhatTheControlsWrite(t *testing.T) {
	for _, w := range All() {
		for _, p := range append(Schema{{}}, w.Schema...) {
			v := w.Schema.Defaults()
			if p.Name != "" {
				v = changeOne(t, v, p)
			}
			var h HTML
			if err := Render(&h, w, v, Place{ID: "w-" + w.Name + "-1", Origin: "https://retrylab.example"}); err != nil {
				t.Fatal(err)
			}
			back, err := w.Schema.Parse(w.Schema.ReadForm(controlsOf(t, h.String())))
			if err != nil {
				t.Fatalf("%s, %s changed: the form reads back as an error: %v", w.Name, p.Name, err)
			}
			if back.JSON() != v.JSON() {
				t.Errorf("%s, %s changed: the form reads back as %s, drawn with %s", w.Name, p.Name, back.JSON(), v.JSON())
			}
		}
	}
}

// Payment's faults offer one item per attempt: the items past the count
// are in the markup, and not read.
func TestReadFormCountsItems(t *testing.T) {
	cs := []Control{{Name: "keys", Value: "off"}, {Name: "attempts", Value: "2"}}
	for _, f := range []string{"lose-response", "lose-request", "lose-request"} {
		cs = append(cs, Control{Name: "faults", Value: f})
	}
	cs = append(cs, Control{Name: "scrub", Value: "3"}) // no parameter's
	if got := Payment.Schema.ItemsShown(cs)["faults"]; got != 2 {
		t.Fatalf("ItemsShown: %d faults offered, want 2", got)
	}
	raw := Payment.Schema.ReadForm(cs)
	if raw["faults"] != "lose-response,lose-request" || raw["attempts"] != "2" || len(raw) != 3 {
		t.Fatalf("ReadForm = %v", raw)
	}
	cs[1].Value = "x" // not a count: every item is read, and Parse says what is wrong
	if raw := Payment.Schema.ReadForm(cs); !strings.HasPrefix(raw["faults"], "lose-response,lose-request,lose-request") {
		t.Fatalf("ReadForm with a bad count = %v", raw)
	}
	if _, err := Payment.Schema.Parse(Payment.Schema.ReadForm(cs)); err == nil || !strings.Contains(err.Error(), "attempts") {
		t.Fatalf("a bad count: %v", err)
	}
	cb := Storm.Schema.ReadForm([]Control{{Name: "budget", Checkbox: true, Checked: true}, {Name: "skip-expired", Checkbox: true}})
	if cb["budget"] != "on" || cb["skip-expired"] != "off" {
		t.Fatalf("checkboxes read as %v", cb)
	}
}

// FillForm sets a form to any values: for every widget, the form drawn at
// its defaults, filled with each parameter changed, reads back as those
// values; and a form drawn changed, filled with the defaults, reads back
// as the defaults.
func TestFillFormIsReadFormsInverse(t *testing.T) {
	for _, w := range All() {
		def := w.Schema.Defaults()
		var h HTML
		if err := Render(&h, w, def, Place{ID: "w-" + w.Name + "-1"}); err != nil {
			t.Fatal(err)
		}
		atDefaults := controlsOf(t, h.String())
		for _, p := range w.Schema {
			v := changeOne(t, def, p)
			back, err := w.Schema.Parse(w.Schema.ReadForm(w.Schema.FillForm(atDefaults, v)))
			if err != nil || back.JSON() != v.JSON() {
				t.Errorf("%s: the form filled with %s changed reads back as %s (%v), want %s", w.Name, p.Name, back.JSON(), err, v.JSON())
			}
			var c HTML
			if err := Render(&c, w, v, Place{ID: "w-" + w.Name + "-1"}); err != nil {
				t.Fatal(err)
			}
			back, err = w.Schema.Parse(w.Schema.ReadForm(w.Schema.FillForm(controlsOf(t, c.String()), def)))
			if err != nil || back.JSON() != def.JSON() {
				t.Errorf("%s: the form drawn with %s changed, filled with the defaults, reads back as %s (%v)", w.Name, p.Name, back.JSON(), err)
			}
		}
	}
}

// A link sets some parameters and keeps the others as the article set
// them; what it may not set, it names.
func TestWithQuery(t *testing.T) {
	article, err := Payment.Schema.Parse(map[string]string{"keys": "off", "faults": "lose-response, ok", "attempts": "3"})
	if err != nil {
		t.Fatal(err)
	}
	v, err := article.WithQuery("keys=per-intent")
	if err != nil {
		t.Fatal(err)
	}
	if v.String("keys") != "per-intent" || v.Int("attempts") != 3 || strings.Join(v.List("faults"), ",") != "lose-response" {
		t.Errorf("WithQuery(keys=per-intent) = %s", v.JSON())
	}
	if v, err := article.WithQuery("faults=lose-request%2Close-response&attempts=2"); err != nil || strings.Join(v.List("faults"), ",") != "lose-request,lose-response" || v.Int("attempts") != 2 {
		t.Errorf("an escaped list: %s, %v", v.JSON(), err)
	}
	for q, want := range map[string]string{
		"keys=maybe":        `keys: "maybe" is not allowed (allowed: off, per-intent, per-attempt)`,
		"kyes=on":           `unknown parameter "kyes" (did you mean keys? known: amount, attempts, faults, keys)`,
		"keys=off&keys=off": `keys: "off,off" is given more than once`,
		"attempts=%zz":      `query: "attempts=%zz" is not valid URL encoding`,
		"attempts=11":       `attempts: "11" is out of bounds (allowed: 1 to 10)`,
	} {
		if _, err := article.WithQuery(q); err == nil || err.Error() != want {
			t.Errorf("WithQuery(%q): %v, want %s", q, err, want)
		}
	}
}
