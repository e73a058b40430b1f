package guard

import (
	"testing"

	"github.com/retrylab/retrylab/engine/sim/simtest"
)

// TestRunIntoReusesItsRoom: see simtest.RunInto.
func TestRunIntoReusesItsRoom(t *testing.T) {
	long, short := Binding.Defaults(), Binding.Defaults()
	long.N, long.Strategy = 20, CheckThenInsert
	short.N, short.Strategy = 3, ClaimBeforeWork
	into := func(p Params, res *Result) error { return RunInto(seeded(p, 1), res) }
	run := func(p Params) (Result, error) { return Run(seeded(p, 1)) }
	err := simtest.RunInto(long, short, into, run)
	if err != nil {
		t.Fatal(err)
	}
}
