package payment

import (
	"strconv"

	"github.com/retrylab/retrylab/engine/sim"
)

// events are the model's kinds of event; say writes their sentences.
var events sim.Family

// Kinds of the trace's events, in lanes "client", "network" and "server",
// and the fields each fills. Their sentences are written from the fields
// when shown (say).
var (
	EvAttempt      = events.Kind("attempt")       // the client sends a request: N the attempt, Ref its key, if any
	EvRequestLost  = events.Kind("request-lost")  // the network loses the request
	EvResponseLost = events.Kind("response-lost") // the network loses the response: OK the card was charged
	EvTimeout      = events.Kind("timeout")       // the client hears nothing in Timeout
	EvGiveUp       = events.Kind("give-up")       // the client stops retrying: N the attempts made
	EvReceipt      = events.Kind("receipt")       // the client holds a charge: Ref its id
	EvCharge       = events.Kind("charge")        // the server charges the card: Ref the charge, Amount in cents
	EvReplay       = events.Kind("replay")        // the server replays a saved answer: Ref its charge, Detail the key
	// EvReject is the server refusing the request: N the status (400, 409,
	// 422, 500), Ref the key, M a 409's Retry-After in seconds, Detail a
	// 400's reason.
	EvReject   = events.Kind("reject")
	EvResponse = events.Kind("response") // the server answers: N the status, Ref its charge, OK a replay
)

// Lost reports whether k is the network losing a message.
func Lost(k sim.Kind) bool { return k == EvRequestLost || k == EvResponseLost }

// The kinds' sentences are written from the fields, when shown.
func init() { events.Say(say) }

func say(e sim.Event) string {
	switch e.Kind {
	case EvAttempt:
		text := "POST /payments, attempt " + strconv.Itoa(e.N)
		if e.Ref != "" {
			text += ", Idempotency-Key " + e.Ref
		}
		return text
	case EvRequestLost:
		return "the request is lost; the server never sees it"
	case EvResponseLost:
		if e.OK {
			return "the response is lost; the card was charged"
		}
		return "the response is lost"
	case EvTimeout:
		return "no answer after " + strconv.FormatFloat(Timeout.Seconds(), 'f', -1, 64) + " s: the client cannot know what happened"
	case EvGiveUp:
		return "no answer after " + plural(e.N, "attempt") + ": the client gives up, not knowing whether it paid"
	case EvReceipt:
		return "receipt: " + e.Ref
	case EvCharge:
		return "card charged: " + e.Ref + " (" + sim.Money(e.Amount) + ")"
	case EvReplay:
		return "key " + e.Detail + " seen before: the saved answer is replayed, nothing charged"
	case EvReject:
		switch e.N {
		case statusMismatch:
			return "key " + e.Ref + " was used with a different body: 422, nothing charged"
		case statusConflict:
			return "key " + e.Ref + " is still being worked on: 409, retry after " + strconv.Itoa(e.M) + " s"
		case statusBadRequest:
			return "bad request (" + e.Detail + "): 400, nothing charged"
		}
		return "the key store failed: " + strconv.Itoa(e.N)
	case EvResponse:
		text := statusLine(e.N)
		if e.Ref != "" {
			text += " " + e.Ref
		}
		if e.OK {
			text += " (Idempotent-Replayed: true)"
		}
		return text
	}
	return e.Kind.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
