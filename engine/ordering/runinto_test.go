package ordering

import (
	"reflect"
	"testing"
)

// TestRunIntoReusesItsRoom runs a long run, a shorter one and the long one
// again into one Result: each is the run Run makes on its own, nothing of
// the last run left in it, and the shorter run's trace is in the long
// one's room.
func TestRunIntoReusesItsRoom(t *testing.T) {
	long, short := Defaults(), Defaults()
	long.Strategy, long.Arrival = Watermark, []string{"evt_1", "evt_2", "evt_1", "evt_2", "evt_2"}
	var res Result
	for i, p := range []Params{long, short, long} {
		before := res.Trace
		if err := RunInto(p, &res); err != nil {
			t.Fatal(err)
		}
		fresh, err := Run(p)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(res, fresh) {
			t.Fatalf("run %d into the last one's room:\n%+v\nalone:\n%+v", i, res, fresh)
		}
		if i == 1 && (len(res.Trace) >= len(before) || &res.Trace[:1][0] != &before[:1][0]) {
			t.Fatalf("the shorter run's %d events are not in the room of the longer run's %d", len(res.Trace), len(before))
		}
	}
}
