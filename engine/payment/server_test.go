package payment

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/retrylab/retrylab/engine/idem"
	"github.com/retrylab/retrylab/engine/idem/ledger"
	"github.com/retrylab/retrylab/engine/sim"
)

func pay(srv *Server, key, body string) Reply {
	return srv.Pay(Request{Account: Account, Key: key, Body: []byte(body)})
}

// Row 5 of the table: the same key, the body's fields reordered and spaced:
// one charge, ch_1 both times, the second a replay.
func TestServerSameKeyReorderedBody(t *testing.T) {
	s := sim.New(1)
	srv := NewServer(s)
	first := pay(srv, "k_1", `{"amount":2500,"currency":"usd"}`)
	s.RunUntil(2 * time.Second)
	second := pay(srv, "k_1", "{\n  \"currency\" : \"usd\",\n  \"amount\" : 2500\n}")
	if first.Status != 201 || first.ChargeID != "ch_1" || first.Replayed {
		t.Fatalf("first = %d %q replayed %v, want 201 ch_1", first.Status, first.ChargeID, first.Replayed)
	}
	if second.Status != 201 || second.ChargeID != "ch_1" || !second.Replayed || string(second.Body) != string(first.Body) {
		t.Fatalf("second = %d %q %s replayed %v, want the first answer replayed", second.Status, second.ChargeID, second.Body, second.Replayed)
	}
	if c := srv.Charges(); len(c) != 1 || c[0].Amount != 2500 {
		t.Fatalf("ledger %+v, want one charge of 2500", c)
	}
	if s.Trace.Count(EvCharge) != 1 || s.Trace.Count(EvReplay) != 1 || s.Trace.Count(EvResponse) != 2 {
		t.Fatalf("trace %+v", s.Trace)
	}
	if last := s.Trace[len(s.Trace)-1]; last.Sentence() != "201 Created ch_1 (Idempotent-Replayed: true)" || last.To != "client" {
		t.Fatalf("replayed response event %+v", last)
	}
}

// Row 6: the same key with amount 9900 after 2500: 422, still one charge.
func TestServerSameKeyOtherAmount(t *testing.T) {
	s := sim.New(1)
	srv := NewServer(s)
	first := pay(srv, "k_1", `{"amount":2500,"currency":"usd"}`)
	second := pay(srv, "k_1", `{"amount":9900,"currency":"usd"}`)
	if first.Status != 201 || first.ChargeID != "ch_1" {
		t.Fatalf("first = %d %q", first.Status, first.ChargeID)
	}
	if second.Status != 422 || second.ChargeID != "" || second.Replayed {
		t.Fatalf("second = %d %q replayed %v, want 422", second.Status, second.ChargeID, second.Replayed)
	}
	if c := srv.Charges(); len(c) != 1 || c[0].ID != "ch_1" || c[0].Amount != 2500 {
		t.Fatalf("ledger %+v, want ch_1 of 2500 only", c)
	}
	var reject, response sim.Event
	for _, e := range s.Trace {
		switch e.Kind {
		case EvReject:
			reject = e
		case EvResponse:
			response = e
		}
	}
	if reject.Lane != "server" || !strings.Contains(reject.Sentence(), "different body") || response.Sentence() != "422 Unprocessable Content" {
		t.Fatalf("reject %+v, last response %+v", reject, response)
	}
}

func TestServerWithoutKeyChargesEveryRequest(t *testing.T) {
	srv := NewServer(sim.New(1))
	for i := 0; i < 3; i++ {
		pay(srv, "", `{"amount":2500,"currency":"usd"}`)
	}
	if got := ids(srv.Charges()); got != "ch_1,ch_2,ch_3" {
		t.Fatalf("ledger %s", got)
	}
}

func TestServerKeysAreScopedToTheAccount(t *testing.T) {
	srv := NewServer(sim.New(1))
	a := srv.Pay(Request{Account: "acct_a", Key: "k_1", Body: []byte(`{"amount":2500,"currency":"usd"}`)})
	b := srv.Pay(Request{Account: "acct_b", Key: "k_1", Body: []byte(`{"amount":9900,"currency":"usd"}`)})
	if a.ChargeID != "ch_1" || b.ChargeID != "ch_2" || b.Status != 201 {
		t.Fatalf("a %+v, b %+v: two accounts, two charges", a, b)
	}
}

func TestServerRefusesBadBodies(t *testing.T) {
	for _, key := range []string{"", "k_1"} {
		srv := NewServer(sim.New(1))
		for _, body := range []string{`{"amount":`, `{"currency":"usd"}`, `{"amount":25.5}`, `{"amount":-5}`, `{"amount":"2500"}`, `[2500]`} {
			r := pay(srv, key, body)
			if r.Status != 400 || r.ChargeID != "" {
				t.Errorf("key %q body %s: %d %s, want 400", key, body, r.Status, r.Body)
			}
		}
		// Nothing was charged, and a refused body did not burn the key.
		if len(srv.Charges()) != 0 {
			t.Fatalf("key %q: ledger %+v after bad bodies", key, srv.Charges())
		}
		if r := pay(srv, key, `{"amount":2500,"currency":"usd"}`); r.Status != 201 || r.ChargeID != "ch_1" || r.Replayed {
			t.Fatalf("key %q: a good body after bad ones: %d %q", key, r.Status, r.ChargeID)
		}
	}
}

// The simulation's server reads a payment with the sandbox API's own step
// (ledger.ParsePayment) and its one limit, which is also the most the
// simulated client may pay: the largest amount the widget offers is
// charged, one cent more is refused with the API's words.
func TestServerTakesWhatTheAPITakes(t *testing.T) {
	p := Binding.Defaults()
	p.Keys, p.Faults, p.Amount = KeysPerIntent, nil, MaxAmount
	res, err := Run(p)
	if err != nil || res.Status != 201 || len(res.Charges) != 1 || res.Charges[0].Amount != ledger.MaxAmount {
		t.Fatalf("Run at the largest amount: %v, status %d, charges %+v", err, res.Status, res.Charges)
	}
	p.Amount = MaxAmount + 1
	if err := p.Validate(); err == nil {
		t.Fatalf("the client may pay %d, which the server refuses", p.Amount)
	}

	srv := NewServer(sim.New(1))
	for _, body := range []string{`{"amount":100000000,"currency":"usd"}`, `{"amount":2500,"currency":"zzz"}`, `{"amount":2500,"currency":"usd","tip":1}`} {
		_, want := ledger.ParsePayment([]byte(body))
		r := pay(srv, "k_1", body)
		var got struct{ Detail string }
		json.Unmarshal(r.Body, &got)
		if r.Status != 400 || want == nil || got.Detail != want.Error() {
			t.Errorf("%s: %d %s; want 400 saying %v", body, r.Status, r.Body, want)
		}
	}
	if len(srv.Charges()) != 0 {
		t.Fatalf("charges %+v for refused payments", srv.Charges())
	}
}

// A reply's ChargeID is the "id" of its body, whichever way the server
// came to it: charged now, with a key or without, replayed, refused.
func TestServerChargeIDIsTheBodys(t *testing.T) {
	s := sim.New(1)
	srv := NewServer(s)
	for _, r := range []struct{ key, body string }{
		{"", `{"amount":2500,"currency":"usd"}`},      // charged, no key
		{"k_1", `{"amount":2500,"currency":"usd"}`},   // charged under a key
		{"k_1", `{"amount":2500,"currency":"usd"}`},   // replayed
		{"k_1", `{"amount":9900,"currency":"usd"}`},   // 422
		{"k_2", `{"amount":"lots","currency":"usd"}`}, // 400, with a key
		{"", `{"amount":0}`},                          // 400, without
		{"k_3", `{"amount":100,"currency":"usd"}`},    // charged again
	} {
		rep := pay(srv, r.key, r.body)
		if want := chargeID(rep.Body); rep.ChargeID != want {
			t.Errorf("key %q, body %s: %d with charge %q, the body's is %q: %s", r.key, r.body, rep.Status, rep.ChargeID, want, rep.Body)
		}
		s.RunUntil(s.Now() + time.Second)
	}
	// The card charged, then the store fails to save the answer: a 500
	// whose body names no charge.
	srv.keyed().Store = failingComplete{srv.keyed().Store}
	if rep := pay(srv, "k_4", `{"amount":100,"currency":"usd"}`); rep.Status != 500 || rep.ChargeID != "" {
		t.Errorf("a charge whose answer was not saved: %d with charge %q, want 500 with none: %s", rep.Status, rep.ChargeID, rep.Body)
	}
}

// failingComplete is a store that cannot save an answer.
type failingComplete struct{ idem.Store }

func (failingComplete) Complete(context.Context, idem.Record) error { return errors.New("disk full") }
