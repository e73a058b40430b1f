package lease

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/retrylab/retrylab/engine/idem"
	"github.com/retrylab/retrylab/engine/idem/ledger"
	"github.com/retrylab/retrylab/engine/sim"
)

// Crash is where the first request's process dies, once, or pauses.
type Crash string

const (
	NoCrash      Crash = "none"
	BeforeCharge Crash = "before-charge" // the payment is chosen, the processor never charged
	AfterCharge  Crash = "after-charge"  // charged and (with recovery points) recorded, the answer not saved
	AfterSaving  Crash = "after-saving"  // the answer saved, never sent
	// Pauses is the owner that is not dead, only paused: before the
	// charge, for two leases (a long collection, a migrated VM), after
	// which it carries on as if nothing happened.
	Pauses Crash = "pauses"
)

// Crashes lists the crash points in the order the work meets them, the
// pause last.
var Crashes = []Crash{NoCrash, BeforeCharge, AfterCharge, AfterSaving, Pauses}

// PauseLeases is how long a pause lasts, in leases: two, so that a retry
// that waits out the first lease takes the key over well before the
// paused owner wakes.
const PauseLeases = 2

// Params are the knobs of the model.
type Params struct {
	Crash    Crash         // where the first request dies
	Lease    time.Duration // the keeper's lease: how long a claim holds before a retry may take it over
	Retry    time.Duration // when the client retries after getting no answer, from its first send
	Recovery bool          // the work records recovery points, and a takeover resumes from them
	// Schedule is the order of the events due at one instant: 0 the
	// order they were scheduled in, the published figures' order; any
	// other seed a permutation of it (sim.Sim.Reorder), and each retry after a 409 up to a second later than its Retry-After (sim.Sim.Jitter). It is not a
	// parameter of the widget: retrylab sim --schedule sets it.
	Schedule uint64
}

// Call is how long the processor's charge call takes. A first request
// that crashes dies at its end (before or after the charge) or just after
// saving, so its work is over at Call, and a retry (at least MinRetry)
// never meets it running; one that pauses is still running, and retries
// come while it sleeps.
const Call = time.Second

// Amount is the payment's amount, in cents.
const Amount = 2500

// The one payment intent: its account, key and body.
const (
	Account = "acct_1"
	Key     = "k_1"
	Body    = `{"amount":2500,"currency":"usd"}`
)

// Summary is what a run comes to.
type Summary struct {
	Charges int `json:"charges"` // charges the processor took
	// Payments is the payment rows created: a takeover that starts over
	// creates a second one, and the first stays pending for ever.
	Payments int `json:"payments"`
	// Retry is the answer to the client's first retry: "409", "201" (a
	// takeover ran the work), "replay" (the saved answer), or "none" when
	// the first request answered and the client never retried.
	Retry string `json:"retry"`
	// Receipt is the charge the client's final 201 names.
	Receipt string `json:"receipt"`
	Sends   int    `json:"sends"` // requests the client sent, the first included
	// ResumedFrom is the recovery point the takeover resumed from; "" if
	// none (no takeover, or one that started over).
	ResumedFrom string  `json:"resumed_from"`
	DoneAtS     float64 `json:"done_at_s"` // when the client had its 201, in seconds
}

// Result is a run's summary and its trace, in lanes "client", "server",
// "store" and "card".
type Result struct {
	Summary
	Trace sim.Trace `json:"-"`
}

// epoch is the wall-clock time virtual time 0 stands for in the key store.
var epoch = time.Unix(0, 0).UTC()

// Run plays the payment: the first send at 0, the crash, the retries.
func Run(p Params) (Result, error) {
	res, _, err := play(p)
	return res, err
}

// play is Run, with the key store as the run left it.
func play(p Params) (Result, *idem.MemoryStore, error) {
	if err := p.Validate(); err != nil {
		return Result{}, nil, err
	}
	s := sim.New(0)
	s.Reorder(p.Schedule)
	srv := &server{p: p, sim: s, store: idem.NewMemoryStore(), byKey: map[string]string{}}
	srv.keeper = idem.Keeper{
		Store: srv.store,
		Clock: idem.ClockFunc(func() time.Time { return epoch.Add(s.Now()) }),
		Lease: p.Lease,
	}
	c := &client{p: p, sim: s, srv: srv}
	s.At(0, func() { c.send(1) })
	s.At(p.Retry, c.timeout)
	s.Run()
	res := c.res
	if res.Retry == "" {
		res.Retry = "none"
	}
	res.Charges, res.Payments, res.ResumedFrom = len(srv.charges), srv.payments, srv.resumed
	res.Trace = s.Trace
	return res, srv.store, nil
}

// client pays once: it sends at 0, waits for an answer until p.Retry,
// then retries with the same key, and after a 409 comes back when its
// Retry-After says.
type client struct {
	p       Params
	sim     *sim.Sim
	srv     *server
	res     Result
	waiting int  // the send it waits for an answer to
	done    bool // it has its 201
}

func (c *client) send(n int) {
	s := c.sim
	c.res.Sends++
	c.waiting = n
	s.Record(sim.Event{Kind: Send, Lane: "client", To: "server", Ref: Key, N: n})
	a, answered := c.srv.handle(n)
	if !answered {
		return // the client's timeout retries
	}
	// An answer always finds the client waiting for it: a paused owner
	// answers only if no retry came before it finished (any retry would
	// have taken its key over, and the fence refused its answer).
	if n == 2 {
		c.res.Retry = a.word()
	}
	s.Record(sim.Event{Kind: Answer, Lane: "server", To: "client", Ref: a.charge, N: a.status,
		M: a.retryAfter, OK: a.replayed})
	if a.status == statusConflict {
		s.After(time.Duration(a.retryAfter)*time.Second+s.Jitter(time.Second), func() { c.send(n + 1) })
		return
	}
	c.done = true
	c.res.Receipt = a.charge
	c.res.DoneAtS = s.Now().Seconds()
}

// timeout is the client giving up on its first send, at p.Retry, and
// retrying, unless it has its answer.
func (c *client) timeout() {
	if c.done || c.waiting != 1 {
		return
	}
	c.sim.Record(sim.Event{Kind: Silence, Lane: "client", N: 1})
	c.send(2)
}

// HTTP statuses of the answers (net/http is not imported into engine code).
const (
	statusCreated  = 201
	statusConflict = 409
)

// answer is what the client hears.
type answer struct {
	status     int
	charge     string // the charge a 201 names
	replayed   bool
	retryAfter int // seconds, with a 409
}

// word is the answer as Summary.Retry writes it.
func (a answer) word() string {
	if a.replayed {
		return "replay"
	}
	return strconv.Itoa(a.status)
}

// server is the payment server: the keeper in front of the work.
type server struct {
	p        Params
	sim      *sim.Sim
	store    *idem.MemoryStore
	keeper   idem.Keeper
	charges  []string          // the processor's charges, in order
	byKey    map[string]string // the processor's charge for each key it has seen
	payments int               // payment rows created
	resumed  string            // the recovery point a takeover resumed from
}

// died is the panic that stands for the process dying in the middle of
// the work: nothing after it runs, Keeper.Do neither saves nor releases
// the claim, and the record stays in flight as a real crash leaves it.
type died struct{}

// handle serves send number n. It reports false when the process died,
// or when the fence refused a woken owner's answer: the client hears
// nothing.
func (srv *server) handle(n int) (a answer, answered bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(died); !ok {
				panic(r)
			}
			answered = false
		}
	}()
	resp, err := srv.keeper.Do(context.Background(), Account, Key, []byte(Body),
		func(ctx context.Context, c *idem.Claim) (int, []byte, error) { return srv.work(ctx, c, n) })
	switch {
	case errors.Is(err, idem.ErrNotHeld):
		// The paused owner woke to find its key taken over: the fence
		// refuses its answer, and it stops.
		srv.sim.Record(sim.Event{Kind: Fenced, Lane: "store", To: "server", Ref: Key})
		return answer{}, false
	case err != nil:
		// The model's store is in memory and its body valid: the protocol
		// refuses nothing else here. An error is a bug in the model.
		panic("lease: " + err.Error())
	}
	switch resp.Outcome {
	case idem.InProgress:
		srv.sim.Record(sim.Event{Kind: InFlight, Lane: "store", To: "server", Ref: Key,
			N: srv.leaseEnd(), M: resp.RetryAfter})
		return answer{status: resp.Status, retryAfter: resp.RetryAfter}, true
	case idem.Replayed:
		srv.sim.Record(sim.Event{Kind: Found, Lane: "store", To: "server", Ref: Key, N: resp.Status})
		return answer{status: resp.Status, charge: chargeOf(resp.Body), replayed: true}, true
	}
	// Executed: the work ran and Do saved its answer.
	srv.sim.Record(sim.Event{Kind: Save, Lane: "server", To: "store", Ref: chargeOf(resp.Body), N: resp.Status})
	if n == 1 && srv.p.Crash == AfterSaving {
		srv.sim.Record(sim.Event{Kind: Crashed, Lane: "server", Detail: string(AfterSaving)})
		return answer{}, false
	}
	return answer{status: resp.Status, charge: chargeOf(resp.Body)}, true
}

// leaseEnd is the end of the key's current lease, in whole seconds of
// virtual time.
func (srv *server) leaseEnd() int {
	// A memory store's Get fails only for a cancelled context.
	rec, _, _ := srv.store.Get(context.Background(), Account, Key)
	return int(rec.LockedUntil.Sub(epoch) / time.Second)
}

// work is the payment under a claimed key, in two steps with a recovery
// point after each, as the API's: "payment PAY" once the payment is
// chosen, "charged PAY CH" once the card is charged. A takeover finds the
// last one in c.RecoveryPoint and goes on after it; without recovery
// points it starts over, with a new payment and a new charge.
func (srv *server) work(ctx context.Context, c *idem.Claim, n int) (int, []byte, error) {
	s := srv.sim
	done := ledger.Progress{}
	if srv.p.Recovery {
		done = ledger.ParseProgress(c.RecoveryPoint())
	}
	if n == 1 {
		s.Record(sim.Event{Kind: Claim, Lane: "server", To: "store", Ref: Key, N: srv.leaseEnd()})
	} else {
		// A claim after the first is a takeover: Do runs the work again
		// only for a lapsed lease (the key's TTL, a day, is far beyond
		// any retry here).
		s.Record(sim.Event{Kind: Takeover, Lane: "server", To: "store", Ref: Key, N: srv.leaseEnd(),
			Detail: c.RecoveryPoint(), OK: srv.p.Recovery})
		srv.resumed = done.String()
	}
	if done.Payment == "" {
		srv.payments++
		done.Payment = "pay_" + strconv.Itoa(srv.payments)
		s.Record(sim.Event{Kind: Payment, Lane: "server", Ref: done.Payment})
		if err := srv.checkpoint(ctx, c, done); err != nil {
			return 0, nil, err
		}
	}
	if done.Charge == "" {
		if n == 1 && srv.p.Crash == Pauses {
			// The rest of the world goes on meanwhile: the client's
			// retries run, and may take the key over.
			wake := s.Now() + PauseLeases*srv.p.Lease
			s.Record(sim.Event{Kind: Pause, Lane: "server", N: int(wake / time.Second)})
			s.RunUntil(wake)
			s.Record(sim.Event{Kind: Wake, Lane: "server"})
		}
		s.RunUntil(s.Now() + Call) // the processor's call
		if n == 1 && srv.p.Crash == BeforeCharge {
			srv.die(BeforeCharge)
		}
		done.Charge = srv.charge(done.Payment)
		if err := srv.checkpoint(ctx, c, done); err != nil {
			return 0, nil, err
		}
		if n == 1 && srv.p.Crash == AfterCharge {
			srv.die(AfterCharge)
		}
	} else {
		s.Record(sim.Event{Kind: Skip, Lane: "server", Ref: done.Charge, Detail: done.Payment})
	}
	body := `{"id":"` + done.Payment + `","charge":"` + done.Charge + `","status":"succeeded"}`
	return statusCreated, []byte(body), nil
}

// charge is the processor's call, with the payment's id as its
// idempotency key: a key it has seen gets the same charge back, so that a
// crash between the charge and its recovery point, or an owner that
// paused, costs no second charge. The call is outside the key store: no
// fence reaches it.
func (srv *server) charge(pay string) string {
	if id, ok := srv.byKey[pay]; ok {
		srv.sim.Record(sim.Event{Kind: Charge, Lane: "server", To: "card", Ref: id, Detail: pay, Amount: Amount, OK: true})
		return id
	}
	id := "ch_" + strconv.Itoa(len(srv.charges)+1)
	srv.charges = append(srv.charges, id)
	srv.byKey[pay] = id
	srv.sim.Record(sim.Event{Kind: Charge, Lane: "server", To: "card", Ref: id, Detail: pay, Amount: Amount})
	return id
}

// checkpoint records done as the claim's recovery point, when the work
// keeps them. A claim taken over meanwhile is refused (idem.ErrNotHeld),
// and the work must stop.
func (srv *server) checkpoint(ctx context.Context, c *idem.Claim, done ledger.Progress) error {
	if !srv.p.Recovery {
		return nil
	}
	if err := c.Checkpoint(ctx, done.String()); err != nil {
		return err
	}
	srv.sim.Record(sim.Event{Kind: Checkpoint, Lane: "server", To: "store", Ref: Key, Detail: done.String()})
	return nil
}

// die records the crash and ends the process: see died.
func (srv *server) die(at Crash) {
	srv.sim.Record(sim.Event{Kind: Crashed, Lane: "server", Detail: string(at)})
	panic(died{})
}

// chargeOf reads the "charge" of a saved 201's body.
func chargeOf(body []byte) string {
	_, rest, ok := strings.Cut(string(body), `"charge":"`)
	if !ok {
		return ""
	}
	id, _, _ := strings.Cut(rest, `"`)
	return id
}
