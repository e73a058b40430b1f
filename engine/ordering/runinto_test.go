package ordering

import (
	"testing"

	"github.com/retrylab/retrylab/engine/sim/simtest"
)

// TestRunIntoReusesItsRoom: see simtest.RunInto.
func TestRunIntoReusesItsRoom(t *testing.T) {
	long, short := Binding.Defaults(), Binding.Defaults()
	long.Strategy, long.Arrival = VersionGuard, []string{"evt_1", "evt_2", "evt_1", "evt_2", "evt_2"}
	err := simtest.RunInto(long, short, RunInto, Run)
	if err != nil {
		t.Fatal(err)
	}
}
