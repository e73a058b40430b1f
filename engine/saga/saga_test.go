package saga

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/engine/param"
)

// The runner crashes after the flight, resumes from its log and, when the
// hotel fails, compensates in reverse with keys saga:step and
// saga:step:undo: the card sees one charge and one undo (the package
// documentation).
func TestFigure(t *testing.T) {
	res, err := Run(Binding.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	if res.Charges != 1 || res.Undos != 1 || res.Outcome != "compensated" || res.Stray != 0 {
		t.Fatalf("%+v; want 1 charge, 1 undo, compensated, nothing stray", res.Summary)
	}
	if f := res.Effects.Of(Flight); f != (Effect{Done: 1, Undone: 1}) || res.Effects.Of(Hotel) != (Effect{}) {
		t.Fatalf("effects %v", res.Effects)
	}
	// The flight was called twice, the second time replayed, and the undo
	// runs flight before charge.
	var refs []string
	for _, e := range res.Trace {
		if e.Kind == Replay || e.Kind == Undo {
			refs = append(refs, e.Kind.String()+" "+e.Ref)
		}
	}
	if want := "[replay saga:flight undo saga:flight:undo undo saga:charge:undo]"; sprint(refs) != want {
		t.Fatalf("replays and undos %v, want %s", refs, want)
	}
}

// Without keys the repeated call is a second booking, and the compensation
// only knows of one: a flight is left booked.
func TestWithoutKeysTheResumeBooksTwice(t *testing.T) {
	p := Binding.Defaults()
	p.Keys = false
	res, _ := Run(p)
	if f := res.Effects.Of(Flight); f.Done != 2 || f.Undone != 1 || res.Stray != 1 || res.Charges != 1 || res.Undos != 1 {
		t.Fatalf("%+v; want 2 flights, 1 cancelled, 1 stray, card 1 and 1", res.Summary)
	}
	p.CrashAfter = Charge
	res, _ = Run(p)
	if res.Charges != 2 || res.Undos != 1 || res.Stray != 1 {
		t.Fatalf("crash after the charge, no keys: %+v; want 2 charges, 1 undo", res.Summary)
	}
}

// Every combination runs; a saga whose steps all succeed completes with
// nothing undone, and with keys nothing is ever left stray.
func TestEveryCombination(t *testing.T) {
	all := append([]Step{None}, Steps...)
	for _, fail := range all {
		for _, crash := range all {
			for _, keys := range []bool{false, true} {
				p := Params{Fail: fail, CrashAfter: crash, Keys: keys}
				res, err := Run(p)
				if err != nil {
					t.Fatal(err)
				}
				if fail == None && (res.Outcome != "completed" || res.Undos != 0) {
					t.Errorf("%+v: %+v", p, res.Summary)
				}
				if fail != None && res.Outcome != "compensated" {
					t.Errorf("%+v: %+v", p, res.Summary)
				}
				if keys && (res.Stray != 0 || res.Charges > 1) {
					t.Errorf("%+v with keys: %+v", p, res.Summary)
				}
				if fail == Charge && res.Charges != 0 {
					t.Errorf("%+v: a refused charge was counted: %+v", p, res.Summary)
				}
			}
		}
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		p    Params
		want string
	}{
		{Params{Fail: "car", CrashAfter: None}, `fail: "car" is not allowed (allowed: none, charge, flight, hotel)`},
		{Params{Fail: Hotel, CrashAfter: ""}, `crash-after: "" is not allowed (allowed: none, charge, flight, hotel)`},
	} {
		_, err := Run(c.p)
		var pe *param.Error
		if !errors.As(err, &pe) || err.Error() != c.want {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

func sprint(xs []string) string {
	out := "["
	for i, x := range xs {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out + "]"
}

func BenchmarkSaga(b *testing.B) {
	p := Binding.Defaults()
	for b.Loop() {
		if _, err := Run(p); err != nil {
			b.Fatal(err)
		}
	}
}

// The summary's effects are written as JSON as the map they replace was:
// an object keyed by step, which the CLI's --json prints.
func TestEffectsAsJSON(t *testing.T) {
	p := Binding.Defaults()
	p.Keys = false
	res, err := Run(p)
	if err != nil {
		t.Fatal(err)
	}
	asMap := map[Step]Effect{}
	for _, st := range Steps {
		asMap[st] = res.Effects.Of(st)
	}
	got, err := json.Marshal(res.Summary)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(asMap)
	if !strings.Contains(string(got), `"effects":`+string(want)+",") {
		t.Fatalf("summary %s, want effects %s", got, want)
	}
	if e := res.Effects.Of(Step("boat")); e != (Effect{}) {
		t.Fatalf("effects of a step the saga has not: %+v", e)
	}
}
