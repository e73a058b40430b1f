package param_test

import (
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/retrylab/retrylab/engine/models"
)

// Every model's binding writes out every parameter it declares under the
// declared name, with a label and help, and reads back what it wrote: the
// reading and the writing agree with the declaration, so the check checks
// what the declaration says.
func TestDeclarationsRoundTrip(t *testing.T) {
	for _, m := range models.All {
		def := m.Params.Defaults()
		raw := m.Params.Raw(def)
		var want []string
		for _, p := range m.Schema {
			if p.Label == "" || p.Help == "" {
				t.Errorf("%s: parameter %s has no label or no help", m.Name, p.Name)
			}
			want = append(want, p.Name)
		}
		got := slices.Sorted(maps.Keys(raw))
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: Raw writes %v, the declaration has %v", m.Name, got, want)
		}
		v, err := m.Schema.Parse(raw)
		if err != nil {
			t.Errorf("%s: the defaults written out do not parse: %v", m.Name, err)
			continue
		}
		if back := m.Params.Read(v); !reflect.DeepEqual(back, def) {
			t.Errorf("%s: read back %+v, want %+v", m.Name, back, def)
		}
	}
}

// Checking a model's parameters, as every run does first, allocates
// nothing.
func TestCheckAllocatesNothing(t *testing.T) {
	for _, m := range models.All {
		p := m.Params.Defaults()
		if n := testing.AllocsPerRun(20, func() { _ = m.Params.Check(p) }); n != 0 {
			t.Errorf("%s: %v allocations a check, want 0", m.Name, n)
		}
	}
}

// BenchmarkValidate checks each model's defaults, as every run of a model
// does first.
func BenchmarkValidate(b *testing.B) {
	for _, m := range models.All {
		p := m.Params.Defaults()
		b.Run(m.Name, func(b *testing.B) {
			for b.Loop() {
				if err := m.Params.Check(p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
