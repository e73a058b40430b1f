package backoff

import (
	"strconv"
	"time"

	"github.com/retrylab/retrylab/engine/param"
	"github.com/retrylab/retrylab/engine/sim"
)

// events are the model's kinds of event; say writes their sentences.
var events sim.Family

// Kinds of the traces' events and the fields each fills. Their sentences
// are written from the fields when shown (say).
var (
	// Slot is a busy slot of the herd (Run), lane "server": N the slot,
	// M the calls that landed in it, Amount those served; Ref "slot-N".
	Slot = events.Kind("slot")
	// Call is one call of Retry, lane "client": N its number from 1, M
	// the status (0: no answer), Amount the Retry-After in milliseconds,
	// Detail the connection error, if any; Ref "call-N".
	Call = events.Kind("call")
	// Wait is Retry's wait before its next call: N milliseconds.
	Wait = events.Kind("wait")
	// GiveUp is Retry stopping before a wait of N milliseconds would pass
	// its deadline of M milliseconds.
	GiveUp = events.Kind("give-up")
)

// The kinds' sentences are written from the fields, when shown.
func init() { events.Say(say) }

func say(e sim.Event) string {
	switch e.Kind {
	case Slot:
		return "Slot " + strconv.Itoa(e.N) + " (" + param.Number(seconds1(e.At)) + " s): " +
			strconv.Itoa(e.M) + " calls, " + strconv.FormatInt(e.Amount, 10) + " served, " +
			strconv.FormatInt(int64(e.M)-e.Amount, 10) + " failed."
	case Call:
		what := strconv.Itoa(e.M)
		switch {
		case e.Detail != "":
			what = e.Detail
		case e.M == 0:
			what = "no answer"
		case e.Amount > 0:
			what += " with Retry-After " + millis(e.Amount) + " s"
		}
		return "Call " + strconv.Itoa(e.N) + ": " + what + "."
	case Wait:
		return "Wait " + millis(int64(e.N)) + " s."
	case GiveUp:
		return "Waiting " + millis(int64(e.N)) + " s would pass the deadline of " + millis(int64(e.M)) + " s: give up."
	}
	return e.Kind.String()
}

// ms is d in whole milliseconds, rounded, as the events carry times.
func ms(d time.Duration) int64 { return int64(d.Round(time.Millisecond) / time.Millisecond) }

// millis writes milliseconds as seconds, shortest: 137 is "0.137".
func millis(n int64) string { return strconv.FormatFloat(float64(n)/1000, 'f', -1, 64) }
