package guard

import (
	"testing"

	"github.com/retrylab/retrylab/engine/sim"
	"github.com/retrylab/retrylab/engine/sim/simtest"
)

// TestRunIntoReusesItsRoom runs a long run, a shorter one and the long one
// again into one Result: each is the run Run makes on its own, nothing of
// the last run left in it, and the shorter run's trace is in the long
// one's room.
func TestRunIntoReusesItsRoom(t *testing.T) {
	long, short := Defaults(), Defaults()
	long.N, long.Strategy = 20, CheckThenInsert
	short.N, short.Strategy = 3, ClaimBeforeWork
	into := func(p Params, res *Result) error { return RunInto(p, 1, res) }
	run := func(p Params) (Result, error) { return Run(p, 1) }
	err := simtest.RunInto([]Params{long, short, long}, into, run, func(r *Result) sim.Trace { return r.Trace })
	if err != nil {
		t.Fatal(err)
	}
}
