// Package simtest is what the models' tests share. It is pure, like the
// models, and only tests import it.
package simtest

import (
	"fmt"
	"reflect"

	"github.com/retrylab/retrylab/engine/sim"
)

// RunInto runs each of params, in order, into one result with into (a
// model's RunInto), and checks that each result is the one run (the
// model's Run) makes on its own, with nothing of the last run left in it,
// and that the run after a longer one has its trace in the longer one's
// room. params go from a long run to a shorter one and back.
func RunInto[P, R any](params []P, into func(P, *R) error, run func(P) (R, error), trace func(*R) sim.Trace) error {
	var res R
	var last sim.Trace
	reused := false
	for i, p := range params {
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
		t := trace(&res)
		if 0 < len(t) && len(t) < len(last) {
			if &t[0] != &last[0] {
				return fmt.Errorf("run %d: its %d events are not in the room of the last run's %d", i, len(t), len(last))
			}
			reused = true
		}
		last = t
	}
	if !reused {
		return fmt.Errorf("no run of %d is shorter than the one before it: nothing checks the reuse", len(params))
	}
	return nil
}
