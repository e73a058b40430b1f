// Package simtest is what the models' tests share. It is pure, like the
// models, and only tests import it.
package simtest

import (
	"fmt"
	"reflect"

	"github.com/retrylab/retrylab/engine/sim"
)

// RunInto runs long, then short, then long again, into one result with
// into (a model's RunInto), and checks that each result is the one run
// (the model's Run) makes on its own, with nothing of the last run left in
// it, and that the short run's trace (the result's Trace field) is in the
// long one's room.
func RunInto[P, R any](long, short P, into func(P, *R) error, run func(P) (R, error)) error {
	var res R
	var last sim.Trace
	for i, p := range []P{long, short, long} {
		if err := into(p, &res); err != nil {
			return fmt.Errorf("run %d: %v", i, err)
		}
		alone, err := run(p)
		if err != nil {
			return fmt.Errorf("run %d alone: %v", i, err)
		}
		if !reflect.DeepEqual(res, alone) {
			return fmt.Errorf("run %d into the last one's room:\n%+v\nalone:\n%+v", i, res, alone)
		}
		t, ok := reflect.ValueOf(res).FieldByName("Trace").Interface().(sim.Trace)
		if !ok {
			return fmt.Errorf("%T has no Trace field of type sim.Trace", res)
		}
		if i == 1 {
			if len(t) == 0 || len(t) >= len(last) {
				return fmt.Errorf("the short run has %d events, the long one %d: nothing checks the reuse", len(t), len(last))
			}
			if &t[0] != &last[0] {
				return fmt.Errorf("the short run's %d events are not in the room of the long run's %d", len(t), len(last))
			}
		}
		last = t
	}
	return nil
}
