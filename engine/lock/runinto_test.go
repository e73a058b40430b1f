package lock

import (
	"testing"

	"github.com/retrylab/retrylab/engine/sim/simtest"
)

// TestRunIntoReusesItsRoom: see simtest.RunInto.
func TestRunIntoReusesItsRoom(t *testing.T) {
	long, short := Binding.Defaults(), Binding.Defaults()
	long.Dupes = 20
	short.Crash = AfterCharge
	err := simtest.RunInto(long, short, RunInto, Run)
	if err != nil {
		t.Fatal(err)
	}
}
