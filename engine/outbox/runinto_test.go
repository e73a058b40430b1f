package outbox

import (
	"testing"

	"github.com/retrylab/retrylab/engine/sim/simtest"
)

// TestRunIntoReusesItsRoom: see simtest.RunInto.
func TestRunIntoReusesItsRoom(t *testing.T) {
	long, short := Binding.Defaults(), Binding.Defaults()
	long.Orders, long.Inbox = 5, false
	short.Orders, short.Inbox = 1, true
	err := simtest.RunInto(long, short, RunInto, Run)
	if err != nil {
		t.Fatal(err)
	}
}
