package main

import (
	"reflect"
	"testing"

	"github.com/retrylab/retrylab/site/widget"
)

func TestPickChange(t *testing.T) {
	for _, c := range []struct {
		name              string
		schema            widget.Schema
		param, def, other string
		ok                bool
	}{
		{"an enum first, whatever the order", widget.Schema{
			{Name: "n", Kind: widget.Int, Default: "20", Min: 1, Max: 50},
			{Name: "keys", Kind: widget.Enum, Default: "off", Allowed: []string{"off", "per-intent"}},
		}, "keys", "off", "per-intent", true},
		{"the default is not the first allowed value", widget.Schema{
			{Name: "strategy", Kind: widget.Enum, Default: "dedupe", Allowed: []string{"none", "dedupe", "version-guard"}},
		}, "strategy", "dedupe", "none", true},
		{"an enum of one value is no change; a switch then", widget.Schema{
			{Name: "only", Kind: widget.Enum, Default: "a", Allowed: []string{"a"}},
			{Name: "budget", Kind: widget.Bool, Default: "off"},
		}, "budget", "off", "on", true},
		{"a number at its maximum steps down", widget.Schema{
			{Name: "orders", Kind: widget.Int, Default: "5", Min: 1, Max: 5},
		}, "orders", "5", "4", true},
		{"a float steps by its step", widget.Schema{
			{Name: "ratio", Kind: widget.Float, Default: "0.1", Min: 0, Max: 1, Step: 0.05},
		}, "ratio", "0.1", "0.15", true},
		{"a list is never turned", widget.Schema{
			{Name: "faults", Kind: widget.EnumList, Default: "ok", Allowed: []string{"ok", "lose-request"}, MaxItems: 3},
		}, "", "", "", false},
	} {
		param, def, other, ok := pickChange(c.schema)
		if param != c.param || def != c.def || other != c.other || ok != c.ok {
			t.Errorf("%s: pickChange = %q %q %q %v, want %q %q %q %v", c.name, param, def, other, ok, c.param, c.def, c.other, c.ok)
		}
	}
}

func TestPlanChanges(t *testing.T) {
	// A widget with a seed gets a new seed for every change, all timed.
	seeded := widget.Schema{
		{Name: "policy", Kind: widget.Enum, Default: "none", Allowed: []string{"none", "full"}},
		{Name: "seed", Kind: widget.Int, Default: "1", Min: 0, Max: 1e9},
	}
	c, ok := planChanges(seeded, 4)
	if !ok || c.Param != "seed" || !reflect.DeepEqual(c.Values, []string{"2", "3", "4", "5"}) || c.Timed != "" {
		t.Fatalf("seeded plan %+v, %v", c, ok)
	}
	// Without one, a control goes to another value and back n times, and
	// the changes back to the default are the figure.
	plain := widget.Schema{{Name: "keys", Kind: widget.Enum, Default: "off", Allowed: []string{"off", "on-key"}}}
	c, ok = planChanges(plain, 3)
	if !ok || c.Param != "keys" || c.Timed != "off" ||
		!reflect.DeepEqual(c.Values, []string{"on-key", "off", "on-key", "off", "on-key", "off"}) {
		t.Fatalf("plain plan %+v, %v", c, ok)
	}
	ts := []timedChange{
		{Value: "on-key", Layout: 9, Go: 7}, {Value: "off", Layout: 3, Go: 1},
		{Value: "on-key", Layout: 8, Go: 6}, {Value: "off", Layout: 4, Go: 2},
	}
	layout, goMs := c.timed(ts)
	if !reflect.DeepEqual(layout, []float64{3, 4}) || !reflect.DeepEqual(goMs, []float64{1, 2}) {
		t.Errorf("timed: %v %v, want the changes back to off only", layout, goMs)
	}
	// A seed too close to its maximum for n new values: no seed plan.
	tight := widget.Schema{{Name: "seed", Kind: widget.Int, Default: "9", Min: 0, Max: 10}}
	if _, ok := seedChanges(tight, 3); ok {
		t.Error("seedChanges went past the seed's maximum")
	}
	if _, ok := planChanges(widget.Schema{}, 3); ok {
		t.Error("a widget without parameters has a plan")
	}
}

// Every registered widget has a plan: the bench measures each of them.
func TestEveryWidgetHasAPlan(t *testing.T) {
	for _, w := range widget.All() {
		c, ok := planChanges(w.Schema, 20)
		if !ok {
			t.Errorf("%s: no control to turn", w.Name)
			continue
		}
		for _, v := range c.Values {
			if _, err := w.Schema.Defaults().With(c.Param, v); err != nil {
				t.Errorf("%s: %s = %s is refused: %v", w.Name, c.Param, v, err)
			}
		}
	}
}
