// This file is a run's client: its attempts, its keys and its timeouts,
// against the Server of server.go across the network's faults, and what
// it ends up holding. Run and RunInto start a run; the rules and the
// published figures are the package's documentation (doc.go), and the
// trace's kinds are in events.go.

package payment

import (
	"strconv"
	"time"

	"github.com/retrylab/retrylab/engine/sim"
)

// Timing of the model. An answer reaches the client Latency + Work +
// Latency = 40 + 60 + 40 = 140 ms after its request left, well inside the
// 1 s Timeout: only a lost message makes the client time out, never a slow
// one. The client retries at once after a timeout, so attempt n leaves at
// (n-1) s and a client that gives up does so at Attempts s.
const (
	Latency = 40 * time.Millisecond // one way, client to server or back: a request within one region
	Work    = 60 * time.Millisecond // the server's work: the card network's authorization
	Timeout = time.Second           // how long the client waits for an answer
)

// Account is the account the client pays from; its keys are scoped to it.
const Account = "acct_1"

// Result is what one run produced.
type Result struct {
	Params   Params
	Charges  []Charge // the server's ledger (card charges), in order: ch_1, ch_2, ...
	Receipt  string   // the charge id the client ends up holding; "" if it gave up or got an error
	Status   int      // HTTP status of the answer the client finally got (201, 422...), 0 if none
	Replayed bool     // that answer was a replay of a saved response
	Attempts int      // attempts the client made
	Trace    sim.Trace
}

// Run plays one payment: the client sends POST /payments with the amount,
// and on each timeout retries, until it gets an answer or has made
// p.Attempts attempts. The trace has events of kinds "attempt",
// "request-lost", "charge", "replay", "reject", "response",
// "response-lost", "timeout", "receipt" and "give-up", in lanes "client",
// "network" and "server".
func Run(p Params) (Result, error) {
	var res Result
	if err := RunInto(p, &res); err != nil {
		return Result{Params: p}, err
	}
	return res, nil
}

// RunInto is Run writing into res: the run's trace and ledger go into the
// room of res's last ones, which they overwrite, so a caller that runs the
// model again and again, and no longer reads its last run, allocates them
// once. On an error res is left as it was.
func RunInto(p Params, res *Result) error {
	if err := p.Validate(); err != nil {
		return err
	}
	// The client, its simulation, its server and its attempts' flights
	// are allocated together, once.
	c := &client{p: p, res: Result{Params: p}, flights: make([]flight, p.Attempts)}
	c.body = append(strconv.AppendInt(append(c.bodyBuf[:0], `{"amount":`...), p.Amount, 10), `,"currency":"usd"}`...)
	// Room for the most events the run makes (mostEvents), so the trace
	// is allocated once rather than copied as it grows. The queue holds
	// at most an attempt's timeout and its message in flight. Each
	// attempt reaches the server once at most, so charges at most once.
	c.s.Reorder(p.Schedule)
	c.s.Trace = res.Trace[:0]
	c.s.Reserve(mostEvents(p), 2)
	ledger := res.Charges[:0]
	if cap(ledger) < p.Attempts {
		ledger = make([]Charge, 0, p.Attempts)
	}
	c.srv = Server{sim: &c.s, ledger: ledger}
	c.attempt(1)
	c.s.Run()
	c.res.Charges = c.srv.ledger // the run's own server: no copy needed
	c.res.Trace = c.s.Trace
	*res = c.res
	return nil
}

type client struct {
	p       Params
	s       sim.Sim // the zero Sim: no randomness in this model
	srv     Server
	flights []flight // attempt n's is flights[n-1]
	res     Result
	body    []byte // the payment every attempt sends, in bodyBuf
	bodyBuf [len(`{"amount":99999999,"currency":"usd"}`)]byte
}

// attemptKeys are the keys of a client with a key per attempt, k_1 to
// k_10, made once rather than on every run.
var attemptKeys = sim.Names("k_", MaxAttempts)

// key is the Idempotency-Key of attempt n.
func (c *client) key(n int) string {
	switch c.p.Keys {
	case KeysPerIntent:
		return "k_1" // made once, before the first attempt
	case KeysPerAttempt:
		return attemptKeys[n-1] // n <= Attempts <= MaxAttempts
	}
	return ""
}

// fault is what the network does to attempt n.
func (p *Params) fault(n int) Fault {
	if n <= len(p.Faults) {
		return p.Faults[n-1]
	}
	return OK
}

// mostEvents is the most events a run of p records, attempt by attempt
// as the faults go: an attempt whose request is lost records 3 (the
// attempt, the loss, the timeout); one whose answer is lost 5 (the
// attempt, the server's work and its response, the loss, the timeout);
// one that goes through at most 4 (the attempt, the server's two, the
// receipt), and the client, answered within its timeout (Latency + Work
// + Latency), stops there. A client that gives up records that too.
func mostEvents(p Params) int {
	n := 0
	for a := 1; a <= p.Attempts; a++ {
		switch p.fault(a) {
		case OK:
			return n + 4
		case LoseRequest:
			n += 3
		default:
			n += 5
		}
	}
	return n + 1
}

// attempt sends attempt n and schedules its fate: the request's trip, the
// server's work, the answer's trip, and the client's timeout.
func (c *client) attempt(n int) {
	key := c.key(n)
	c.s.Record(sim.Event{Kind: EvAttempt, Lane: "client", To: "server", N: n, Ref: key})
	c.res.Attempts = n
	f := &c.flights[n-1]
	*f = flight{c: c, n: n, req: Request{Account: Account, Key: key, Body: c.body, Attempt: n}, fault: c.p.fault(n)}
	f.timer.f = f
	c.s.Schedule(c.s.Now()+c.trip(), f)
	c.s.Schedule(c.s.Now()+Timeout, &f.timer)
}

// trip is how long a message takes on the network: Latency, and under a
// schedule seed up to a Timeout more.
func (c *client) trip() time.Duration { return Latency + c.s.Jitter(Timeout) }

// flight is one attempt under way: its request, then its answer, on the
// network, and the client waiting for it.
type flight struct {
	c                   *client
	n                   int
	req                 Request
	fault               Fault
	leg                 int // 0: the request travels; 1: the server works; 2: the answer travels
	rep                 Reply
	answered, abandoned bool
	timer               timer // the client's wait for the flight
}

// timer is the client's wait for a flight, scheduled as a handler of
// its own.
type timer struct{ f *flight }

func (t *timer) Handle() { t.f.wait() }

// Handle is the end of the flight's current leg.
func (f *flight) Handle() {
	c := f.c
	switch f.leg {
	case 0:
		if f.fault == LoseRequest {
			c.s.Record(sim.Event{Kind: EvRequestLost, Lane: "network"})
			return
		}
		f.leg = 1
		c.s.Schedule(c.s.Now()+Work, f)
	case 1:
		f.rep = c.srv.Pay(f.req)
		f.leg = 2
		c.s.Schedule(c.s.Now()+c.trip(), f)
	case 2:
		if f.fault == LoseResponse {
			c.s.Record(sim.Event{Kind: EvResponseLost, Lane: "network", OK: f.rep.ChargeID != ""})
			return
		}
		if f.abandoned {
			return // too late: the client stopped waiting (only a schedule seed's delays make this happen)
		}
		f.answered = true
		c.answer(f.rep)
	}
}

// wait is the client's timeout for the flight.
func (f *flight) wait() {
	c := f.c
	if f.answered {
		return
	}
	f.abandoned = true
	c.s.Record(sim.Event{Kind: EvTimeout, Lane: "client"})
	if f.n < c.p.Attempts {
		c.attempt(f.n + 1) // at once
		return
	}
	c.s.Record(sim.Event{Kind: EvGiveUp, Lane: "client", N: f.n})
}

// answer is the client reading the server's reply: a 201 is a receipt; any
// other answer ends the payment too (a retry would get the same).
func (c *client) answer(rep Reply) {
	c.res.Status = rep.Status
	c.res.Replayed = rep.Replayed
	if rep.Status == statusCreated && rep.ChargeID != "" {
		c.res.Receipt = rep.ChargeID
		c.s.Record(sim.Event{Kind: EvReceipt, Lane: "client", Ref: rep.ChargeID})
	}
}
