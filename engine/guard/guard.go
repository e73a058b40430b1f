// This file is the model itself: the strategies, the handlers and their
// steps, the in-memory database that runs each statement atomically and
// enforces unique indexes, the card network's hops, and the scheduler
// that interleaves the handlers, in lockstep or at random from the seed.
// Run and RunInto start a run, and Run's comment counts the steps behind
// the lockstep figures. The rules and the published figures are the
// package's documentation (doc.go); the trace's kinds are in events.go,
// the parameters in params.go, and the summary each run comes to is
// Summary, below, with the answer of every request of the burst and of
// the two requests that follow it.

package guard

import (
	"time"

	"github.com/retrylab/retrylab/engine/sim"
)

// Strategy is how a handler guards the charge.
type Strategy string

const (
	// CheckThenInsert SELECTs the key; if absent, charges, then INSERTs the
	// payment row (no unique index). Everyone who looks before the first
	// INSERT charges.
	CheckThenInsert Strategy = "check-then-insert"
	// ConstraintAfterCharge charges, then INSERTs the payment row under a
	// unique index on the key. One row, but every request charged first.
	ConstraintAfterCharge Strategy = "constraint-after-charge"
	// ClaimBeforeWork INSERTs the key ... ON CONFLICT DO NOTHING RETURNING
	// first; only the winner charges, then saves its answer on the key row.
	// The others answer 409 with Retry-After while it works, or replay the
	// saved answer.
	ClaimBeforeWork Strategy = "claim-before-work"
)

// Strategies lists the strategies in the order the article shows them.
var Strategies = []Strategy{CheckThenInsert, ConstraintAfterCharge, ClaimBeforeWork}

// Isolation is the level of the transaction a check-then-insert handler
// runs in: its SELECT, its charge and its INSERT, committed with the
// INSERT. The other strategies commit each statement on its own, so the
// level changes nothing for them.
type Isolation string

const (
	// ReadCommitted and RepeatableRead: the SELECT is the transaction's
	// first statement, so both read the table as it is at that step, and
	// nothing refuses the INSERT (there is no unique index).
	ReadCommitted  Isolation = "read-committed"
	RepeatableRead Isolation = "repeatable-read"
	// Serializable: a transaction whose SELECT found no row, when another
	// transaction has inserted one since, fails at its INSERT with SQLSTATE
	// 40001 and rolls back, after its charge; the handler runs the whole
	// transaction again, and its new SELECT finds the row.
	Serializable Isolation = "serializable"
)

// Isolations lists the levels, weakest first.
var Isolations = []Isolation{ReadCommitted, RepeatableRead, Serializable}

// Params are the knobs of the guard model.
type Params struct {
	N         int       // identical requests, one key, one amount
	Strategy  Strategy  //
	Isolation Isolation // check-then-insert's transaction
	Spread    int       // 0: together, in lockstep; else arrivals spread over 0..Spread rounds, random order (4 gives check-then-insert 10 to 20 rows, as a real PostgreSQL does when duplicates arrive a few milliseconds apart around a short card call)
	Seed      uint64    // the arrivals and interleavings when Spread is above 0
	// Schedule is the order of the events due at one instant: 0 the
	// order they were scheduled in, the published figures' order; any
	// other seed a permutation of it (sim.Sim.Reorder): here, the order of the handlers' steps within each round, in lockstep too. It is not a
	// parameter of the widget: retrylab sim --schedule sets it.
	Schedule uint64
}

// Fixed parts of the model.
const (
	CardSteps   = 3                // steps the card network takes per charge: send, authorise, approve
	Step        = time.Millisecond // virtual time of a step, for the trace's clock
	Amount      = 2500             // what every request of the burst pays, in cents
	OtherAmount = 9900             // the amount of the follow-up that reuses the key
	Key         = "k_1"            // the one idempotency key
)

// Answer is what a handler answered.
type Answer struct {
	Status     int    `json:"status"`
	Payment    string `json:"payment,omitempty"`     // the payment in the body: pay_1, ...
	Replayed   bool   `json:"replayed,omitempty"`    // a saved answer sent again
	RetryAfter int    `json:"retry_after,omitempty"` // seconds, on a 409 while the first request works
	Charged    bool   `json:"charged"`               // this request charged the card
	Aborted    bool   `json:"aborted,omitempty"`     // its transaction failed with 40001 and ran again
}

// Summary is what a run comes to. Rows, Charges, Statuses and Replayed
// count the burst of N requests; Retry and Other are two follow-ups sent
// alone once the burst has answered, a second after its end (honouring
// Retry-After: 1): a retry with the same body, then the same key with
// OtherAmount. They are reported apart, and a charge they make (only
// ConstraintAfterCharge makes one) is in their Answer, not in Charges.
type Summary struct {
	Rows     int         `json:"rows"`     // rows for the key once the burst has answered
	Charges  int         `json:"charges"`  // charges the card network made for the burst
	Statuses map[int]int `json:"statuses"` // the burst's answers, counted per status code
	Replayed int         `json:"replayed"` // answers of the burst that were replays
	Aborts   int         `json:"aborts"`   // the burst's transactions that failed with 40001, each after its charge
	Answers  []Answer    `json:"answers"`  // the burst's answers, request 1 first
	Retry    Answer      `json:"retry"`    // the same request again, after the burst
	Other    Answer      `json:"other"`    // the same key with another amount, after that
}

// Result is a run's summary and its trace: one event per step, lane "req-N"
// (the follow-ups are "retry" and "other"), cut at sim.MaxEvents.
type Result struct {
	Summary
	Trace sim.Trace `json:"-"`
}

// Run simulates p, drawing arrivals and interleavings from p.Seed when
// Spread is above 0.
//
// In lockstep the figures follow from the step counts. Check-then-insert:
// every SELECT runs in round 1, before any INSERT (round 1 + CardSteps + 1),
// so all N see the key absent and charge: N rows, N charges.
// Constraint-after-charge: all N charge in rounds 1 to CardSteps, then one
// INSERT wins: 1 row, N charges, {201: 1, 409: N-1}. Claim-before-work: one
// INSERT of the key wins in round 1; the others read the row in round 2,
// long before the winner saves its answer (round CardSteps + 2), and answer
// 409: {201: 1, 409: N-1}, 1 charge. Check-then-insert at serializable:
// the first handler's INSERT (round CardSteps + 2) takes the row; each
// other one's, in the same round, fails with 40001 after its charge, its
// SELECT runs again in round CardSteps + 3 and finds the row, and it
// replays the 201 in round CardSteps + 4: 1 row, N charges, {201: N}, N-1
// replayed.
func Run(p Params) (Result, error) {
	var res Result
	err := RunInto(p, &res)
	return res, err
}

// RunInto is Run writing into res: the run's trace and answers go into
// the room of res's last ones, which they overwrite, so a caller
// that runs the model again and again, and no longer reads its last run,
// allocates them once. On an error res is left as it was.
func RunInto(p Params, res *Result) error {
	if err := p.Validate(); err != nil {
		return err
	}
	// One block for the model, its database and its Sim, one for the
	// handlers (the burst's, then the two follow-ups'), one for the names.
	m := &model{p: p, db: db{unique: p.Strategy != CheckThenInsert, rows: make([]row, 0, p.N+2)}, r: -1}
	m.s.Seed(p.Seed)
	m.s.Reorder(p.Schedule)
	m.s.Trace = res.Trace[:0]
	// Room for every step of the burst and the two follow-ups, so the
	// trace is allocated once, at its size, rather than copied as it grows.
	m.s.Reserve(p.events(), 1)
	// The lanes req-1 to req-N, and a payment id for each handler and
	// follow-up, which is paid once at most.
	m.names.Grow(sim.NamesLen("req-", p.N) + sim.NamesLen("pay_", p.N+2))
	m.handlers = make([]handler, p.N+2)
	m.active = make([]*handler, 0, p.N)
	for i := range p.N {
		h := &m.handlers[i]
		*h = handler{lane: m.names.Number(i+1, "req-"), burst: true, amount: Amount, state: m.first()}
		if p.Spread > 0 {
			h.arrive = m.s.Rand.Intn(p.Spread + 1)
		}
	}
	m.s.Schedule(0, m)
	m.s.Run()

	answers := res.Answers[:0]
	if cap(answers) < p.N {
		answers = make([]Answer, 0, p.N)
	}
	// A new map: clearing the last one would cost the page's module 1.6 KB
	// of the runtime's code.
	*res = Result{Summary: Summary{Statuses: make(map[int]int, 2), Answers: answers}}
	for _, h := range m.handlers[:p.N] {
		res.Answers = append(res.Answers, h.answer)
		res.Statuses[h.answer.Status]++
		if h.answer.Replayed {
			res.Replayed++
		}
		if h.answer.Aborted {
			res.Aborts++
		}
	}
	res.Charges = m.charges
	res.Rows = m.db.count(Key)

	// The follow-ups, each alone: it runs its steps back to back.
	follow := func(h *handler, lane string, amount int64) Answer {
		*h = handler{lane: lane, amount: amount, state: m.first()}
		for !h.done {
			m.step(h)
			m.s.RunUntil(m.s.Now() + Step)
		}
		return h.answer
	}
	m.s.RunUntil(m.s.Now() + time.Second)
	res.Retry = follow(&m.handlers[p.N], "retry", Amount)
	res.Other = follow(&m.handlers[p.N+1], "other", OtherAmount)
	res.Trace = m.s.Trace
	return nil
}

type model struct {
	p        Params
	s        sim.Sim
	db       db
	handlers []handler  // the burst's N, then the two follow-ups
	active   []*handler // the handlers taking a step this round
	r        int        // the round running
	charges  int        // made by the burst
	pays     int        // payment ids handed out by the card network, burst and follow-ups
	names    sim.Arena  // the lanes and the payment ids: pay_1, pay_2, ...
}

// Handle runs the next round: the model is the one handler it schedules.
func (m *model) Handle() { m.round(m.r + 1) }

// round runs one step of every handler that has arrived and not answered,
// then schedules the next round while any has not answered.
func (m *model) round(r int) {
	m.r = r
	active := m.active[:0]
	left := false
	for i := range m.handlers[:m.p.N] {
		h := &m.handlers[i]
		if h.done {
			continue
		}
		left = true
		if h.arrive <= r {
			active = append(active, h)
		}
	}
	if !left {
		return
	}
	if m.p.Spread > 0 {
		m.s.Rand.Shuffle(len(active), func(i, j int) { active[i], active[j] = active[j], active[i] })
	}
	m.s.Ties(len(active), func(i, j int) { active[i], active[j] = active[j], active[i] })
	for _, h := range active {
		m.step(h)
	}
	m.active = active
	m.s.Schedule(m.s.Now()+Step, m)
}

// events is the most events a run of p records: as many as it records in
// lockstep. A charge is CardSteps events (the hops before it, and the
// charge). Check-then-insert: a SELECT, the charge, the INSERT and the
// answer for each of the burst (fewer for one that arrives after a row
// was inserted), then a SELECT that finds the row and the answer for
// each follow-up. Constraint-after-charge: the charge, the INSERT and
// the answer for every request, the follow-ups' too. Claim-before-work:
// the claim, the charge, the saved answer and the answer for the winner;
// the claim refused, the row read and the answer for the others and the
// follow-ups.
// At serializable, a check-then-insert transaction that fails with 40001
// adds its refused INSERT and records a SELECT that finds the row where
// it would have recorded its INSERT: one more event for each request but
// the one whose INSERT succeeds.
func (p Params) events() int {
	switch p.Strategy {
	case CheckThenInsert:
		if p.Isolation == Serializable {
			return (CardSteps+4)*p.N - 1 + 2*2
		}
		return (CardSteps+3)*p.N + 2*2
	case ConstraintAfterCharge:
		return (CardSteps + 2) * (p.N + 2)
	}
	return CardSteps + 3 + 3*(p.N-1+2)
}

// state is where a handler is in its steps.
type state int

const (
	selectKey   state = iota // check-then-insert: SELECT the payment row
	charge                   // at the card network, CardSteps steps
	insertRow                // INSERT the payment row (unique index or not)
	claimKey                 // INSERT the key ... ON CONFLICT DO NOTHING RETURNING
	readKey                  // SELECT the key row after losing the claim
	saveAnswer               // UPDATE the key row with the answer
	answerFound              // answer from the row read: replay, 409 or 422
	answerNew                // answer 201 with the new payment
	answerTaken              // answer 409: the unique index refused the row
)

type handler struct {
	lane    string
	burst   bool // one of the N at once; the follow-ups are not counted
	amount  int64
	arrive  int   // the round it arrives in
	state   state //
	hops    int   // card steps taken for the current charge
	payment string
	found   row  // the row a SELECT read
	aborted bool // its transaction failed with 40001 and runs again
	done    bool
	answer  Answer
}

func (m *model) first() state {
	switch m.p.Strategy {
	case CheckThenInsert:
		return selectKey
	case ConstraintAfterCharge:
		return charge
	}
	return claimKey
}

// step runs one step of h.
func (m *model) step(h *handler) {
	switch h.state {
	case selectKey:
		r, ok := m.db.find(Key)
		if ok {
			h.found = r
			h.state = answerFound
			m.record(h, sim.Event{Kind: Select, To: "db", Ref: Key, OK: true, N: r.status, Detail: r.payment})
			return
		}
		h.state = charge
		m.record(h, sim.Event{Kind: Select, To: "db", Ref: Key})
	case charge:
		h.hops++
		if h.hops < CardSteps {
			m.record(h, sim.Event{Kind: Card, To: "card", Amount: h.amount, M: h.hops})
			return
		}
		m.pays++
		h.payment = m.names.Number(m.pays, "pay_")
		h.answer.Charged = true
		if h.burst {
			m.charges++
		}
		m.record(h, sim.Event{Kind: Charge, To: "card", Amount: h.amount, Ref: h.payment})
		switch m.p.Strategy {
		case ClaimBeforeWork:
			h.state = saveAnswer
		default:
			h.state = insertRow
		}
	case insertRow:
		// At serializable, the SELECT before found no row: one there now
		// was inserted by a transaction that committed since, and this
		// one fails. Run again, from its SELECT; the charge stands.
		if m.p.Strategy == CheckThenInsert && m.p.Isolation == Serializable {
			if _, ok := m.db.find(Key); ok {
				h.aborted = true
				h.state = selectKey
				m.record(h, sim.Event{Kind: Abort, To: "db", Ref: Key, Detail: h.payment})
				return
			}
		}
		r := row{key: Key, amount: h.amount, status: 201, payment: h.payment}
		if m.db.insert(r) {
			h.state = answerNew
			m.record(h, sim.Event{Kind: Insert, To: "db", Ref: Key, Detail: h.payment})
			return
		}
		h.state = answerTaken
		m.record(h, sim.Event{Kind: Conflict, To: "db", Ref: Key, Detail: h.payment})
	case claimKey:
		if m.db.insert(row{key: Key, amount: h.amount}) {
			h.state = charge
			m.record(h, sim.Event{Kind: Insert, To: "db", Ref: Key, OK: true})
			return
		}
		h.state = readKey
		m.record(h, sim.Event{Kind: Conflict, To: "db", Ref: Key, OK: true})
	case readKey:
		h.found, _ = m.db.find(Key)
		h.state = answerFound
		m.record(h, sim.Event{Kind: Select, To: "db", Ref: Key, OK: true, N: h.found.status, Detail: h.found.payment})
	case saveAnswer:
		m.db.save(Key, 201, h.payment)
		h.state = answerNew
		m.record(h, sim.Event{Kind: Update, To: "db", Ref: h.payment, N: 201})
	case answerFound:
		switch r := h.found; {
		case r.amount != h.amount:
			m.answer(h, Answer{Status: 422})
		case r.status == 0:
			m.answer(h, Answer{Status: 409, RetryAfter: 1})
		default:
			m.answer(h, Answer{Status: r.status, Payment: r.payment, Replayed: true})
		}
	case answerNew:
		m.answer(h, Answer{Status: 201, Payment: h.payment, Charged: true})
	case answerTaken:
		m.answer(h, Answer{Status: 409, Charged: true})
	}
}

// answer sends a; a request that charged and then found the row, after a
// 40001, keeps its charge on its answer.
func (m *model) answer(h *handler, a Answer) {
	a.Charged = a.Charged || h.answer.Charged
	a.Aborted = h.aborted
	h.answer, h.done = a, true
	m.record(h, sim.Event{Kind: Answered, To: "client", N: a.Status, Ref: a.Payment, OK: a.Replayed, M: a.RetryAfter})
}

// record keeps e, at the current instant in h's lane.
func (m *model) record(h *handler, e sim.Event) {
	e.At, e.Lane = m.s.Now(), h.lane
	m.s.Trace.Keep(e, sim.MaxEvents)
}

// db is the tiny database: one table of rows by key, each statement atomic
// (a method call between two steps), with or without a unique index on the
// key.
type db struct {
	unique bool
	rows   []row
}

type row struct {
	key     string
	amount  int64
	status  int    // the saved answer's status; 0 while the first request works
	payment string // the saved answer's payment
}

// find is SELECT ... WHERE key = $1 LIMIT 1: the first row inserted.
func (d *db) find(key string) (row, bool) {
	for _, r := range d.rows {
		if r.key == key {
			return r, true
		}
	}
	return row{}, false
}

// insert adds r, unless the unique index already holds its key.
func (d *db) insert(r row) bool {
	if d.unique {
		if _, taken := d.find(r.key); taken {
			return false
		}
	}
	d.rows = append(d.rows, r)
	return true
}

// save records the answer on the key's row.
func (d *db) save(key string, status int, payment string) {
	for i := range d.rows {
		if d.rows[i].key == key {
			d.rows[i].status, d.rows[i].payment = status, payment
			return
		}
	}
}

func (d *db) count(key string) int {
	n := 0
	for _, r := range d.rows {
		if r.key == key {
			n++
		}
	}
	return n
}
