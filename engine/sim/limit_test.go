package sim

import (
	"testing"
	"time"
)

func TestKeepCutsTheTraceOnce(t *testing.T) {
	var tr Trace
	for i := 0; i < 5; i++ {
		tr.Keep(Event{At: time.Duration(i), Kind: testX}, 3)
	}
	if len(tr) != 4 || tr.Count(testX) != 3 || !tr.Truncated() || tr[3].At != 3 {
		t.Fatalf("trace %+v: want 3 events and one truncated mark at the fourth's time", tr)
	}
	var short Trace
	short.Keep(Event{Kind: testX}, 3)
	if short.Truncated() || len(short) != 1 {
		t.Fatalf("trace %+v", short)
	}
}
