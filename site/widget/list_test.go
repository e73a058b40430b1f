package widget

import (
	"regexp"
	"strings"
	"testing"
)

// A list parameter shows the items in use, each with its Remove button,
// and an Add button: no blank select for an item not in use. Add stops at
// the count (one fault per attempt) and Remove at the shortest list.
func TestListControlShowsTheItemsInUse(t *testing.T) {
	selectRE := regexp.MustCompile(`<select name="([^"]+)" aria-label="([^"]+)">`)
	for _, c := range []struct {
		w        *Widget
		raw      map[string]string
		param    string
		labels   []string // the selects' names, in order
		hidden   int      // items past the count
		rest     string   // what the items past the list stand for
		add, rem bool     // whether Add and Remove are enabled
	}{
		{&Payment, nil, "faults", []string{"Network, attempt by attempt 1"}, 0, "After these: ok", true, true},
		{&Payment, map[string]string{"faults": "lose-request, lose-response", "attempts": "2"}, "faults",
			[]string{"Network, attempt by attempt 1", "Network, attempt by attempt 2"}, 0, "", false, true},
		{&Payment, map[string]string{"faults": "ok", "attempts": "2"}, "faults", nil, 0, "All: ok", true, false},
		{&Ordering, nil, "arrival", []string{"Arrival order 1", "Arrival order 2", "Arrival order 3"}, 0, "", true, true},
		{&Ordering, map[string]string{"arrival": "evt_1"}, "arrival", []string{"Arrival order 1"}, 0, "", true, false},
		{&Ordering, map[string]string{"arrival": "evt_1,evt_1,evt_1,evt_1,evt_1,evt_1,evt_1,evt_1"}, "arrival",
			[]string{"Arrival order 1", "Arrival order 2", "Arrival order 3", "Arrival order 4",
				"Arrival order 5", "Arrival order 6", "Arrival order 7", "Arrival order 8"}, 0, "", false, true},
	} {
		v, err := c.w.Schema.Parse(c.raw)
		if err != nil {
			t.Fatal(err)
		}
		html := render(t, c.w, c.raw)
		start := strings.Index(html, `<fieldset class="w-field w-list"`)
		end := strings.Index(html, "</fieldset>")
		if start < 0 || end < start {
			t.Fatalf("%s %v: no list control in %s", c.w.Name, c.raw, html)
		}
		set := html[start:end]
		var labels []string
		for _, m := range selectRE.FindAllStringSubmatch(set, -1) {
			if m[1] != c.param {
				t.Errorf("%s: a select named %s in the list of %s", c.w.Name, m[1], c.param)
			}
			labels = append(labels, m[2])
		}
		if strings.Join(labels, "|") != strings.Join(c.labels, "|") {
			t.Errorf("%s %v: items %q, want %q", c.w.Name, c.raw, labels, c.labels)
		}
		if strings.Contains(set, `value=""`) {
			t.Errorf("%s %v: an item offers a blank", c.w.Name, c.raw)
		}
		if n := strings.Count(set, `data-action="remove-item"`); n != len(c.labels) {
			t.Errorf("%s %v: %d Remove buttons for %d items", c.w.Name, c.raw, n, len(c.labels))
		}
		for i, l := range c.labels {
			if !strings.Contains(set, `aria-label="Remove `+l+`"`) {
				t.Errorf("%s: item %d's Remove button is not named for it (%s)", c.w.Name, i+1, l)
			}
		}
		if got := strings.Count(set, `<li class="w-item" hidden>`); got != c.hidden {
			t.Errorf("%s %v: %d items hidden, want %d", c.w.Name, c.raw, got, c.hidden)
		}
		if c.rest != "" && !strings.Contains(set, `<p class="w-item-rest">`+c.rest+`</p>`) {
			t.Errorf("%s %v: the rest does not say %q: %s", c.w.Name, c.raw, c.rest, set)
		}
		addOn := regexp.MustCompile(`<button [^>]*data-action="add-item" aria-label="Add to [^"]+">`).MatchString(set)
		if addOn != c.add {
			t.Errorf("%s %v: Add enabled %v, want %v", c.w.Name, c.raw, addOn, c.add)
		}
		remOn := len(c.labels) > 0 && !strings.Contains(set, `data-action="remove-item" aria-label="Remove `+c.labels[0]+`" disabled`)
		if remOn != c.rem {
			t.Errorf("%s %v: Remove enabled %v, want %v", c.w.Name, c.raw, remOn, c.rem)
		}
		// What the form reads back is what it was drawn with.
		back, err := c.w.Schema.Parse(c.w.Schema.ReadForm(controlsOf(t, html)))
		if err != nil || back.JSON() != v.JSON() {
			t.Errorf("%s %v: the form reads back as %s (%v), want %s", c.w.Name, c.raw, back.JSON(), err, v.JSON())
		}
	}
}

// A list drawn with no item still reads as that list, empty, rather than
// as its default: the fieldset's Control says the list is there.
func TestReadFormEmptyList(t *testing.T) {
	cs := []Control{{Name: "keys", Value: "off"}, {Name: "faults", List: true}, {Name: "attempts", Value: "3"}}
	if got := Payment.Schema.ReadForm(cs)["faults"]; got != "" {
		t.Fatalf("an empty list reads as %q, want empty", got)
	}
	v, err := Payment.Schema.Parse(Payment.Schema.ReadForm(cs))
	if err != nil || len(v.List("faults")) != 0 {
		t.Fatalf("an empty list parses as %s (%v)", v.JSON(), err)
	}
	// And FillForm gives it the items of the values it fills in.
	want, _ := Payment.Schema.Parse(map[string]string{"faults": "lose-request, lose-response"})
	filled := Payment.Schema.FillForm(cs, want)
	if back, _ := Payment.Schema.Parse(Payment.Schema.ReadForm(filled)); back.JSON() != want.JSON() {
		t.Fatalf("filled: %v reads back as %s, want %s", filled, back.JSON(), want.JSON())
	}
}

// Add appends what changes nothing (payment's ok), or an event delivered
// again, or the first value.
func TestNewItem(t *testing.T) {
	faults, _ := Payment.Schema.Param("faults")
	arrival, _ := Ordering.Schema.Param("arrival")
	for _, c := range []struct {
		p     Param
		items []string
		want  string
	}{
		{faults, []string{"lose-response"}, "ok"},
		{faults, nil, "ok"},
		{arrival, []string{"evt_2", "evt_1"}, "evt_1"},
		{arrival, nil, "evt_1"},
	} {
		if got := NewItem(c.p, c.items); got != c.want {
			t.Errorf("NewItem(%s, %v) = %q, want %q", c.p.Name, c.items, got, c.want)
		}
	}
}

// The caption without JavaScript names every setting by its control's
// label, in the reader's words.
func TestSettings(t *testing.T) {
	for _, c := range []struct {
		w    *Widget
		raw  map[string]string
		want string
	}{
		{&Payment, nil, "Idempotency keys: off; Network, attempt by attempt: lose-response, then ok; Attempts: 3; Amount (cents): 2,500"},
		{&Payment, map[string]string{"faults": "lose-request, lose-response, ok", "attempts": "2"},
			"Idempotency keys: off; Network, attempt by attempt: lose-request, lose-response; Attempts: 2; Amount (cents): 2,500"},
		{&Payment, map[string]string{"faults": "ok"}, "Idempotency keys: off; Network, attempt by attempt: ok; Attempts: 3; Amount (cents): 2,500"},
		{&Ordering, nil, "Consumer: dedupe; Arrival order: evt_2, evt_1, evt_2"},
		{&Backoff, map[string]string{"clients": "10000", "base": "0.001", "compare": "off"},
			"Policy: none (no jitter); Compare with: nothing (one policy alone); Clients: 10,000; Capacity (calls per slot): 50; Slot (s): 0.1; Base (s): 0.001; Cap (s): 10; Seed: 1"},
		{&Storm, map[string]string{"budget": "on"}, ""},
	} {
		v, err := c.w.Schema.Parse(c.raw)
		if err != nil {
			t.Fatal(err)
		}
		got := Settings(v)
		if c.want == "" {
			// Every label is there, a checkbox's value as on or off.
			for _, p := range c.w.Schema {
				if !strings.Contains(got, p.Label+": ") {
					t.Errorf("%s: %q leaves out %s", c.w.Name, got, p.Label)
				}
			}
			if !strings.Contains(got, ": on") {
				t.Errorf("%s: %q does not say the budget is on", c.w.Name, got)
			}
			continue
		}
		if got != c.want {
			t.Errorf("%s %v:\n got %s\nwant %s", c.w.Name, c.raw, got, c.want)
		}
		if html := render(t, c.w, c.raw); !strings.Contains(html, `<p class="w-settings" data-pagefind-ignore="all" data-region="settings"><strong>Settings:</strong> `+Escape(c.want)+`.</p>`) {
			t.Errorf("%s %v: the widget has no caption of its settings", c.w.Name, c.raw)
		}
	}
}
