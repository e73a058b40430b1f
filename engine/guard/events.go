package guard

import (
	"strconv"

	"github.com/retrylab/retrylab/engine/sim"
)

// events are the model's kinds of event; say writes their sentences.
var events sim.Family

// Kinds of the trace's events, and the fields each fills (Lane is the
// request: "req-N", "retry" or "other"; Ref what the event is about).
var (
	// Select is a SELECT of the key (Ref). OK: a row was found; then N is
	// its saved status (0: claimed, no answer saved yet) and Detail its
	// payment.
	Select = events.Kind("select")
	// Card is a hop at the card network before the charge: M the hop,
	// Amount the amount.
	Card = events.Kind("card")
	// Charge is the card charged: Ref the payment, Amount the amount.
	Charge = events.Kind("charge")
	// Insert is an INSERT that took a row. OK: the key itself was claimed
	// (claim-before-work); else a payment row (Detail) was inserted.
	Insert = events.Kind("insert")
	// Conflict is an INSERT the unique index refused; OK and Detail as for
	// Insert.
	Conflict = events.Kind("conflict")
	// Abort is an INSERT of payment Detail for key Ref refused with
	// SQLSTATE 40001, a serialization failure: the transaction rolls back
	// and runs again from its SELECT.
	Abort = events.Kind("abort")
	// Update is the answer saved on the key's row: N the status, Ref the
	// payment.
	Update = events.Kind("update")
	// Answered is the request's answer: N the status, Ref the payment, OK a
	// replay, M the Retry-After in seconds.
	Answered = events.Kind("answer")
)

// The kinds' sentences are written from the fields, when shown.
func init() { events.Say(say) }

func say(e sim.Event) string {
	switch e.Kind {
	case Select:
		if !e.OK {
			return "SELECT " + e.Ref + ": absent."
		}
		if e.N == 0 {
			return "SELECT " + e.Ref + ": found, claimed, no answer saved yet."
		}
		return "SELECT " + e.Ref + ": found, answer " + strconv.Itoa(e.N) + " " + e.Detail + " saved."
	case Card:
		return "At the card network: charge " + strconv.FormatInt(e.Amount, 10) + ", hop " + strconv.Itoa(e.M) + " of " + strconv.Itoa(CardSteps) + "."
	case Charge:
		return "The card network charges " + strconv.FormatInt(e.Amount, 10) + ": " + e.Ref + "."
	case Insert:
		if e.OK {
			return "INSERT " + e.Ref + " ON CONFLICT DO NOTHING RETURNING: claimed."
		}
		return "INSERT payment " + e.Detail + " for " + e.Ref + ": 1 row."
	case Conflict:
		if e.OK {
			return "INSERT " + e.Ref + " ON CONFLICT DO NOTHING RETURNING: nothing, the key is taken."
		}
		return "INSERT payment " + e.Detail + " for " + e.Ref + ": unique violation; the card was already charged."
	case Abort:
		return "INSERT payment " + e.Detail + " for " + e.Ref + ": serialization failure (SQLSTATE 40001), rolled back; the card was already charged. The transaction runs again."
	case Update:
		return "UPDATE " + Key + " SET answer = " + strconv.Itoa(e.N) + " " + e.Ref + "."
	case Answered:
		text := "Answers " + strconv.Itoa(e.N)
		switch {
		case e.OK:
			text += ", replayed, " + e.Ref
		case e.Ref != "":
			text += ", " + e.Ref
		case e.M > 0:
			text += " with Retry-After: " + strconv.Itoa(e.M)
		}
		return text + "."
	}
	return e.Kind.String()
}
