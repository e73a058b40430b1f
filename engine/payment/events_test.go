package payment

import (
	"testing"

	"github.com/retrylab/retrylab/engine/sim"
)

// Each kind's sentence, written from its fields when shown.
func TestSentences(t *testing.T) {
	for _, c := range []struct {
		e    sim.Event
		want string
	}{
		{sim.Event{Kind: EvAttempt, N: 2}, "POST /payments, attempt 2"},
		{sim.Event{Kind: EvAttempt, N: 1, Ref: "k_1"}, "POST /payments, attempt 1, Idempotency-Key k_1"},
		{sim.Event{Kind: EvRequestLost}, "the request is lost; the server never sees it"},
		{sim.Event{Kind: EvResponseLost}, "the response is lost"},
		{sim.Event{Kind: EvResponseLost, OK: true}, "the response is lost; the card was charged"},
		{sim.Event{Kind: EvTimeout}, "no answer after 1 s: the client cannot know what happened"},
		{sim.Event{Kind: EvGiveUp, N: 1}, "no answer after 1 attempt: the client gives up, not knowing whether it paid"},
		{sim.Event{Kind: EvGiveUp, N: 3}, "no answer after 3 attempts: the client gives up, not knowing whether it paid"},
		{sim.Event{Kind: EvReceipt, Ref: "ch_2"}, "receipt: ch_2"},
		{sim.Event{Kind: EvCharge, Ref: "ch_1", Amount: 2500}, "card charged: ch_1 (25.00)"},
		{sim.Event{Kind: EvReplay, Ref: "ch_1", Detail: "k_1"}, "key k_1 seen before: the saved answer is replayed, nothing charged"},
		{sim.Event{Kind: EvReject, N: 422, Ref: "k_1"}, "key k_1 was used with a different body: 422, nothing charged"},
		{sim.Event{Kind: EvReject, N: 409, Ref: "k_1", M: 2}, "key k_1 is still being worked on: 409, retry after 2 s"},
		{sim.Event{Kind: EvReject, N: 400, Detail: "no amount"}, "bad request (no amount): 400, nothing charged"},
		{sim.Event{Kind: EvReject, N: 500, Ref: "k_1"}, "the key store failed: 500"},
		{sim.Event{Kind: EvResponse, N: 201, Ref: "ch_1", OK: true}, "201 Created ch_1 (Idempotent-Replayed: true)"},
		{sim.Event{Kind: EvResponse, N: 422}, "422 Unprocessable Content"},
	} {
		if got := c.e.Sentence(); got != c.want {
			t.Errorf("%s %+v says %q, want %q", c.e.Kind, c.e, got, c.want)
		}
	}
}
