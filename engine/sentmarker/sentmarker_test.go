package sentmarker

import (
	"testing"
)

// The job crashes after sending; the redelivered job sees the marker and
// skips: 1 message sent (the package documentation).
func TestFigures(t *testing.T) {
	for _, c := range []struct {
		p                   Params
		sent, runs, skipped int
	}{
		{Params{Marker: true, Crash: BeforeAck}, 1, 2, 1},
		{Params{Marker: false, Crash: BeforeAck}, 2, 2, 0},
		// The window a marker cannot close: the crash comes between the
		// send and the marker.
		{Params{Marker: true, Crash: BeforeMarker}, 2, 2, 0},
		{Params{Marker: true, Crash: NoCrash}, 1, 1, 0},
		{Params{Marker: false, Crash: NoCrash}, 1, 1, 0},
	} {
		res, err := Run(c.p)
		if err != nil {
			t.Fatal(err)
		}
		if res.Sent != c.sent || res.Runs != c.runs || res.Skipped != c.skipped {
			t.Errorf("%+v: %+v; want %d sent in %d runs, %d skipped", c.p, res.Summary, c.sent, c.runs, c.skipped)
		}
		if res.Trace.Count(Send) != res.Sent || res.Trace.Count(Ack) != 1 {
			t.Errorf("%+v: trace disagrees with %+v", c.p, res.Summary)
		}
	}
}

// The second delivery comes after the queue's redelivery delay.
func TestRedeliveryWaits(t *testing.T) {
	res, _ := Run(Binding.Defaults())
	var crash, again = -1, -1
	for i, e := range res.Trace {
		if e.Kind == Crashed {
			crash = i
		}
		if e.Kind == Deliver && crash >= 0 {
			again = i
			break
		}
	}
	if crash < 0 || again < 0 || res.Trace[again].At-res.Trace[crash].At < Redelivery {
		t.Fatalf("trace %+v", res.Trace)
	}
}

func TestValidate(t *testing.T) {
	if _, err := Run(Params{Crash: "later"}); err == nil || err.Error() != `crash: "later" is not allowed (allowed: none, before-marker, before-ack)` {
		t.Fatalf("error %v", err)
	}
}

func BenchmarkSentMarker(b *testing.B) {
	p := Binding.Defaults()
	for b.Loop() {
		if _, err := Run(p); err != nil {
			b.Fatal(err)
		}
	}
}
