package lease

import (
	"strconv"

	"github.com/retrylab/retrylab/engine/sim"
)

// events are the model's kinds of event; say writes their sentences.
var events sim.Family

// Kinds of the trace's events, and the fields each fills. Lanes: "client",
// "server", "store" (the key store) and "card" (the processor), as To.
var (
	// Send is the client's request: N the send, 1 the first.
	Send = events.Kind("send")
	// Silence is the client giving up waiting for send N, when it
	// retries.
	Silence = events.Kind("silence")
	// Claim is the first claim of the key (Ref): N the lease's end, in
	// seconds.
	Claim = events.Kind("claim")
	// Takeover is a claim of a key whose lease lapsed: N the new lease's
	// end, Detail the recovery point found, OK the work resumes from it
	// (recovery points on).
	Takeover = events.Kind("takeover")
	// Payment is a payment row created, pending: Ref its id.
	Payment = events.Kind("payment")
	// Checkpoint is a recovery point recorded on the key: Detail the point.
	Checkpoint = events.Kind("checkpoint")
	// Charge is the processor's charge: Ref its id, Detail the payment
	// (the processor's key), Amount the cents; OK the processor knew the
	// key and gave the same charge back.
	Charge = events.Kind("charge")
	// Pause is the owner pausing before the charge: N the second it wakes.
	Pause = events.Kind("pause")
	// Wake is the paused owner carrying on.
	Wake = events.Kind("wake")
	// Fenced is the store refusing a write of an owner whose claim was
	// taken over.
	Fenced = events.Kind("fenced")
	// Skip is a takeover passing over the charge its recovery point
	// records: Ref the charge, Detail the payment.
	Skip = events.Kind("skip")
	// Crashed is the server's process dying: Detail the Crash point.
	Crashed = events.Kind("crash")
	// Save is the answer saved on the key: N the status, Ref the charge.
	Save = events.Kind("save")
	// InFlight is the store finding the key claimed and its lease live: N
	// the lease's end, in seconds, M the 409's Retry-After.
	InFlight = events.Kind("in-flight")
	// Found is the store finding the key done: N the saved status.
	Found = events.Kind("found")
	// Answer is the server's answer: N the status, Ref the charge a 201
	// names, OK replayed, M a 409's Retry-After in seconds.
	Answer = events.Kind("answer")
)

// The kinds' sentences are written from the fields, when shown.
func init() { events.Say(say) }

func say(e sim.Event) string {
	itoa := strconv.Itoa
	switch e.Kind {
	case Send:
		if e.N == 1 {
			return "Sends the payment with Idempotency-Key " + e.Ref + "."
		}
		return "Retries with the same key (send " + itoa(e.N) + ")."
	case Silence:
		return "No answer to send " + itoa(e.N) + "."
	case Claim:
		return "Claims " + e.Ref + ": in flight, lease until " + itoa(e.N) + " s."
	case Takeover:
		text := "The lease has lapsed: takes " + e.Ref + " over (lease until " + itoa(e.N) + " s)"
		switch {
		case !e.OK:
			return text + "; without recovery points it starts over."
		case e.Detail == "":
			return text + "; no recovery point, so it starts over."
		}
		return text + ", resuming after \u201c" + e.Detail + "\u201d."
	case Payment:
		return "Creates payment " + e.Ref + ", pending."
	case Checkpoint:
		return "Recovery point: \u201c" + e.Detail + "\u201d."
	case Charge:
		if e.OK {
			return "The processor has seen key " + e.Detail + ": it answers the same charge, " + e.Ref + ", and takes nothing."
		}
		return "The processor charges " + sim.Money(e.Amount) + ": " + e.Ref + ", key " + e.Detail + "."
	case Pause:
		return "Pauses before the charge (a long collection, a migrated VM) until " + itoa(e.N) + " s."
	case Wake:
		return "Wakes and carries on, as if nothing happened."
	case Fenced:
		return "Refuses the old owner's write: " + e.Ref + " was taken over, at a higher fence. It stops."

	case Skip:
		return "Already charged (" + e.Ref + "): no second charge."
	case Crashed:
		switch Crash(e.Detail) {
		case BeforeCharge:
			return "Crashes in the processor call, before the charge."
		case AfterCharge:
			return "Crashes after the charge, before saving the answer."
		case AfterSaving:
			return "Crashes after saving the answer, before sending it."
		}
		return "Crashes."
	case Save:
		return "Saves the answer on " + Key + ": " + itoa(e.N) + ", " + e.Ref + "."
	case InFlight:
		return e.Ref + " is in flight, its lease runs to " + itoa(e.N) + " s: 409, Retry-After " + itoa(e.M) + "."
	case Found:
		return e.Ref + " is done: replays its saved " + itoa(e.N) + "."
	case Answer:
		switch {
		case e.N == statusConflict:
			return "409 Conflict, Retry-After: " + itoa(e.M) + "."
		case e.OK:
			return itoa(e.N) + " Created, " + e.Ref + " (Idempotent-Replayed: true)."
		}
		return itoa(e.N) + " Created, " + e.Ref + "."
	}
	return e.Kind.String()
}
