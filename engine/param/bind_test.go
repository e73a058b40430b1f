package param

import (
	"reflect"
	"testing"
	"time"
)

type mode string

// testParams bind every kind of parameter the Binder has.
type testParams struct {
	Wait    time.Duration
	Step    time.Duration
	N       int
	Amount  int64
	Ratio   float64
	On      bool
	Mode    mode
	Arrival []mode
	Seed    uint64
}

var modes = []mode{"a", "b"}

func (p *testParams) Bind(b *Binder) {
	b.Seconds(&p.Wait, Param{Name: "wait", Default: "60", Min: 0, Max: 600})
	b.FloatSeconds(&p.Step, Param{Name: "step", Default: "0.1", Min: 0.001, Max: 10, Step: 0.001, Rules: []Rule{{Below, "wait"}}})
	b.Int(&p.N, Param{Name: "n", Default: "3", Min: 1, Max: 10})
	b.Int64(&p.Amount, Param{Name: "amount", Default: "2500", Min: 1, Max: 99_999_999})
	b.Float(&p.Ratio, Param{Name: "ratio", Default: "0.5", Min: 0, Max: 1})
	b.Bool(&p.On, Param{Name: "on", Default: "on"})
	OneOf(b, &p.Mode, modes, Param{Name: "mode", Default: "b"})
	ListOf(b, &p.Arrival, modes, Param{Name: "arrival", Default: "a, b, a", MinItems: 1, MaxItems: 3})
	b.Seed(&p.Seed, "draws")
}

var testBinding = NewBinding((*testParams).Bind)

// One Bind gives the schema, in its order, with each parameter's kind and
// an enum's allowed values from its type's list; the defaults it reads;
// and the text it writes, which reads back.
func TestBinding(t *testing.T) {
	var kinds []Kind
	for _, p := range testBinding.Schema {
		kinds = append(kinds, p.Kind)
	}
	if want := []Kind{Int, Float, Int, Int, Float, Bool, Enum, EnumList, Int}; !reflect.DeepEqual(kinds, want) {
		t.Errorf("kinds %v, want %v", kinds, want)
	}
	if mode, _ := testBinding.Schema.Param("mode"); !reflect.DeepEqual(mode.Allowed, []string{"a", "b"}) {
		t.Errorf("mode allows %v", mode.Allowed)
	}
	want := testParams{Wait: time.Minute, Step: 100 * time.Millisecond, N: 3, Amount: 2500, Ratio: 0.5, On: true,
		Mode: "b", Arrival: []mode{"a", "b", "a"}, Seed: 1}
	def := testBinding.Defaults()
	if !reflect.DeepEqual(def, want) {
		t.Fatalf("defaults %+v, want %+v", def, want)
	}
	def.Arrival[0] = "b"
	if again := testBinding.Defaults(); again.Arrival[0] != "a" {
		t.Error("Defaults share their lists with whoever changed one")
	}
	p := testParams{Wait: 90 * time.Second, Step: 1500 * time.Microsecond, N: 7, Amount: 99_999_999, Ratio: 0.25,
		Mode: "a", Arrival: []mode{"b"}, Seed: 42}
	raw := testBinding.Raw(p)
	wantRaw := map[string]string{"wait": "90", "step": "0.0015", "n": "7", "amount": "99999999", "ratio": "0.25",
		"on": "off", "mode": "a", "arrival": "b", "seed": "42"}
	if !reflect.DeepEqual(raw, wantRaw) {
		t.Errorf("Raw %v, want %v", raw, wantRaw)
	}
	v, err := testBinding.Schema.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if back := testBinding.Read(v); !reflect.DeepEqual(back, p) {
		t.Errorf("read back %+v, want %+v", back, p)
	}
	// A view of the schema without a parameter reads it at its default.
	v, _ = testBinding.Schema.Without("on", "n").Parse(nil)
	if back := testBinding.Read(v); !back.On || back.N != 3 {
		t.Errorf("without on and n: %+v, want both at their defaults", back)
	}
}

// Check accepts what the declaration does and refuses the rest with the
// error Check of the values written out gives, rules between parameters
// included.
func TestBindingCheck(t *testing.T) {
	for _, c := range []struct {
		change func(*testParams)
		want   string
	}{
		{func(*testParams) {}, "nil"},
		{func(p *testParams) { p.Wait = 1500 * time.Millisecond }, `wait: "1.5" is not a whole number (allowed: 0 to 600)`},
		{func(p *testParams) { p.Wait = 601 * time.Second }, `wait: "601" is out of bounds (allowed: 0 to 600)`},
		{func(p *testParams) { p.Step = 2 * time.Minute }, `step: "120" is out of bounds (allowed: 0.001 to 10)`},
		{func(p *testParams) { p.Step, p.Wait = 5*time.Second, 5*time.Second }, `step: "5" is not below wait (5)`},
		{func(p *testParams) { p.N = 0 }, `n: "0" is out of bounds (allowed: 1 to 10)`},
		{func(p *testParams) { p.Amount = 100_000_000 }, `amount: "100000000" is out of bounds (allowed: 1 to 99999999)`},
		{func(p *testParams) { p.Ratio = 1.5 }, `ratio: "1.5" is out of bounds (allowed: 0 to 1)`},
		{func(p *testParams) { p.Mode = "c" }, `mode: "c" is not allowed (allowed: a, b)`},
		{func(p *testParams) { p.Arrival = nil }, `arrival: "" has 0 items (allowed: at least 1)`},
		{func(p *testParams) { p.Arrival = []mode{"a", "a", "a", "a"} }, `arrival: "a,a,a,a" has 4 items (allowed: at most 3)`},
		{func(p *testParams) { p.Arrival = []mode{"a", "z"} }, `arrival: "z" is not allowed (allowed: a, b)`},
		{func(p *testParams) { p.Seed = MaxSeed + 1 }, `seed: "1000000001" is out of bounds (allowed: 0 to 1000000000)`},
	} {
		p := testBinding.Defaults()
		c.change(&p)
		got := "nil"
		if err := testBinding.Check(p); err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("Check: %s, want %s", got, c.want)
		}
	}
}

// Checking a Params allocates nothing: every run of a model checks its
// parameters first.
func TestBindingCheckAllocatesNothing(t *testing.T) {
	p := testBinding.Defaults()
	if n := testing.AllocsPerRun(100, func() { _ = testBinding.Check(p) }); n != 0 {
		t.Errorf("%v allocations a check, want 0", n)
	}
}

// A declaration that contradicts itself panics as its package starts: two
// parameters of one name, a default outside its bounds, a rule on a
// parameter the schema lacks, a field that is not the Params'.
func TestBindingPanics(t *testing.T) {
	var elsewhere int
	for name, bind := range map[string]func(*testParams, *Binder){
		"two of one name": func(p *testParams, b *Binder) {
			b.Int(&p.N, Param{Name: "n", Default: "1", Max: 2})
			b.Int(&p.N, Param{Name: "n", Default: "1", Max: 2})
		},
		"a default out of bounds": func(p *testParams, b *Binder) { b.Int(&p.N, Param{Name: "n", Default: "3", Max: 2}) },
		"a rule on nothing": func(p *testParams, b *Binder) {
			b.Int(&p.N, Param{Name: "n", Default: "1", Max: 2, Rules: []Rule{{Below, "m"}}})
		},
		"a rule on a word": func(p *testParams, b *Binder) {
			b.Int(&p.N, Param{Name: "n", Default: "1", Max: 2, Rules: []Rule{{Below, "mode"}}})
			OneOf(b, &p.Mode, modes, Param{Name: "mode", Default: "b"})
		},
		"a field elsewhere": func(p *testParams, b *Binder) { b.Int(&elsewhere, Param{Name: "n", Default: "1", Max: 2}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			NewBinding(bind)
		}()
	}
}
