package payment

import (
	"testing"

	"github.com/retrylab/retrylab/engine/sim/simtest"
)

// TestRunIntoReusesItsRoom: see simtest.RunInto.
func TestRunIntoReusesItsRoom(t *testing.T) {
	long, short := Binding.Defaults(), Binding.Defaults()
	long.Keys, long.Faults = KeysPerIntent, []Fault{LoseResponse, OK}
	short.Keys, short.Faults = KeysOff, []Fault{OK}
	err := simtest.RunInto(long, short, RunInto, Run)
	if err != nil {
		t.Fatal(err)
	}
}
