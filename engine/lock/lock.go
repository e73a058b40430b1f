package lock

import (
	"strconv"
	"strings"
	"time"

	"github.com/retrylab/retrylab/engine/param"
	"github.com/retrylab/retrylab/engine/sim"
)

// Summary is what a run comes to.
type Summary struct {
	Charges     int      `json:"charges"`     // charges recorded at the processor
	Sends       int      `json:"sends"`       // requests sent, all senders together
	Conflicts   int      `json:"conflicts"`   // 409 answers received
	Replays     int      `json:"replays"`     // saved results replayed and received
	Unavailable int      `json:"unavailable"` // 503 answers received
	Timeouts    int      `json:"timeouts"`    // sends that got no answer in time
	GaveUp      int      `json:"gave_up"`     // senders that ran out of attempts
	DoneAt      *float64 `json:"done_at_s"`   // seconds until the last sender got its 201 or replay; nil when any gave up
}

// Result is a run's summary and its trace, in lanes "sender-N", "server",
// "store" and "processor".
type Result struct {
	Summary
	Trace sim.Trace `json:"-"`
}

// Answers a sender can get.
const (
	answerCreated     = 201
	answerConflict    = 409
	answerUnavailable = 503
	answerReplay      = 200 // the saved 201, replayed; counted apart from a fresh 201
)

// The keys of the store.
const (
	lockKey   = iota // the lock, SET NX EX
	resultKey        // the saved result, SET EX
	storeKeys
)

type run struct {
	p   Params
	s   sim.Sim // no randomness in this model
	res Result

	keys    [storeKeys]key // the store, by key
	crashed bool           // the one crash has happened

	senders []sender
	charge  int       // charges so far, to name them ch_1, ch_2, ...
	names   sim.Arena // the senders' names, the sends' refs and the charges' ids
}

// key is one key of the store: it exists for times < expiry, if set.
type key struct {
	set    bool
	expiry time.Duration
}

type sender struct {
	id      int
	name    string
	send    act // sends the next request
	timeout act // the timeout of the oldest send not timed out yet
	fired   int // timeouts fired: the sends they were for, since they fire in order
	sends   int
	waiting int  // the number of the send whose answer the sender waits for; 0 when not waiting
	done    bool // got a 201 or a replay
	gaveUp  bool
	doneAt  time.Duration
	charge  charge // the server's work on the sender's send, while it runs
}

// act is one of a sender's scheduled acts: its next send or, with
// timeout, the end of a wait. The sender holds its two, so that
// scheduling one allocates nothing.
type act struct {
	r       *run
	sd      *sender
	timeout bool
}

func (a *act) Handle() {
	if a.timeout {
		a.r.timeout(a.sd)
		return
	}
	a.r.send(a.sd)
}

// A charge is the server's work on one send, from its start to its end,
// Work later. The sender holds one, so that starting it allocates nothing;
// a second charge of the same sender's while the first runs (work slower
// than the sender's timeout and retry) is allocated on its own.
type charge struct {
	r           *run
	sd          *sender
	n           int    // the send
	ref         string // the send's ref
	save, crash bool   // save the result at the end; crash there instead
	running     bool
}

func (c *charge) Handle() {
	c.running = false
	c.r.finish(c.sd, c.n, c.ref, c.save, c.crash)
}

// Run plays the senders until no event is left. With the defaults: the
// first sender takes the lock and is charged; the second finds the lock
// taken and no result, gets 409, and 60 s later gets the saved result: 1
// charge, 3 sends, 1 conflict, 1 replay, done at 60 s. The package
// documentation lists the figures of every fault; the tests assert them.
func Run(p Params) (Result, error) {
	var res Result
	err := RunInto(p, &res)
	return res, err
}

// RunInto is Run writing into res: the run's trace goes into the room of
// res's last one, which it overwrites, so a caller that runs the model
// again and again, and no longer reads its last run, allocates the trace
// once. On an error res is left as it was.
func RunInto(p Params, res *Result) error {
	if err := p.Validate(); err != nil {
		return err
	}
	r := &run{p: p, senders: make([]sender, p.Dupes)}
	r.s.Reorder(p.Schedule)
	r.s.Trace = res.Trace[:0]
	// Room for six events a sender, what a run without a fault makes: its
	// send, the guard's command, the work, the charge, the save and the
	// answer; and for the refs of two sends a sender. A fault (a crash,
	// the store down or evicted, work slower than the timeout) makes
	// senders send again, each send with its answer or timeout about four
	// events: the room is for Attempts sends more in all, which fits the
	// defaults' two senders (the crash after the charge makes 12 sends and
	// 42 events, where 2 * 2 + 8 is 12 and 6 * 2 + 4 * 8 is 44); with more
	// senders a fault makes the trace grow as it goes (20 senders and the
	// crash: 420 events in room for 152). Two scheduled acts a sender, its timeout and
	// its next send or a charge (more for one that sends again before its
	// last send timed out: Retry shorter than Timeout), and the eviction.
	events, sends := 6*p.Dupes, 2*p.Dupes
	if p.Crash != NoCrash || p.Store == Down || p.Evict || p.Work >= p.Timeout {
		events, sends = events+4*p.Attempts, sends+p.Attempts
	}
	r.s.Reserve(events, 2*p.Dupes+1)
	r.names.Grow(sim.NamesLen("sender-", p.Dupes) + sends*len("sender-100/1"))
	// The eviction is scheduled before any send, so that at the same
	// instant it comes first (at schedule seed 0).
	if p.Evict {
		r.s.At(p.EvictAt, r.evict)
	}
	for i := range r.senders {
		sd := &r.senders[i]
		*sd = sender{id: i + 1, name: r.names.Number(i+1, "sender-")}
		sd.send, sd.timeout = act{r: r, sd: sd}, act{r: r, sd: sd, timeout: true}
		r.s.Schedule(0, &sd.send)
	}
	r.s.Run()

	last := time.Duration(0)
	for _, sd := range r.senders {
		if sd.gaveUp {
			r.res.GaveUp++
		}
		last = max(last, sd.doneAt)
	}
	if r.res.GaveUp == 0 {
		secs := last.Seconds()
		r.res.DoneAt = &secs
	}
	r.res.Trace = r.s.Trace
	*res = r.res
	return nil
}

// events are the model's kinds of event; say writes their sentences.
var events sim.Family

// Kinds of the trace's events, in lanes "sender-N", "server", "store" and
// "processor". Ref is the send ("sender-2/3": sender 2's third send), a
// charge ("ch_1") or empty; the fields each kind fills are listed with it.
var (
	EvSend        = events.Kind("send")        // a sender sends: Lane the sender, N the send's number
	EvTimeout     = events.Kind("timeout")     // a sender stops waiting: N the timeout in seconds
	EvGiveUp      = events.Kind("give-up")     // a sender has used its attempts: N their number
	EvGet         = events.Kind("get")         // get-then-set's GET of the result: OK found
	EvLock        = events.Kind("lock")        // SET lock NX EX took the lock: N the TTL in seconds
	EvLockHeld    = events.Kind("lock-held")   // SET lock NX found it taken, then GET result: OK found
	EvStoreDown   = events.Kind("store-down")  // the store cannot be reached: Detail the server's choice (an OnDown)
	EvWork        = events.Kind("work")        // the server starts the charge for the sender To names
	EvCharge      = events.Kind("charge")      // the processor records a charge: Ref its id
	EvCrash       = events.Kind("crash")       // the server crashes at the end of the work: OK after the charge
	EvSave        = events.Kind("save")        // SET result EX: Ref the charge, N the TTL in seconds
	EvUnsaved     = events.Kind("unsaved")     // the store is still down at the end of the work: the result is not saved
	EvCreated     = events.Kind("created")     // 201 to the sender To names
	EvReplay      = events.Kind("replay")      // the saved 201, replayed to To
	EvConflict    = events.Kind("conflict")    // 409 to To
	EvUnavailable = events.Kind("unavailable") // 503 to To
	EvLost        = events.Kind("lost")        // an answer for To after it stopped waiting: N the status
	EvEvict       = events.Kind("evict")       // the store evicts every key: N the keys alive then
)

// The kinds' sentences are written from the fields, when shown.
func init() { events.Say(say) }

func say(e sim.Event) string {
	found := func(ok bool) string {
		if ok {
			return "found."
		}
		return "nothing."
	}
	switch e.Kind {
	case EvSend:
		return "Sends request " + strconv.Itoa(e.N) + " with the key."
	case EvTimeout:
		return "Hears nothing for " + strconv.Itoa(e.N) + " s and stops waiting."
	case EvGiveUp:
		return "Has used its " + strconv.Itoa(e.N) + " attempts and gives up."
	case EvGet:
		if e.OK {
			return "GET result: found."
		}
		return "GET result: nothing yet, so charge."
	case EvLock:
		return "SET lock NX EX " + strconv.Itoa(e.N) + ": taken, until t = " + secs(e.At+time.Duration(e.N)*time.Second) + " s."
	case EvLockHeld:
		return "SET lock NX: already taken. GET result: " + found(e.OK)
	case EvStoreDown:
		if e.Detail == string(FailClosed) {
			return "The key store cannot be reached: fail closed."
		}
		return "The key store cannot be reached: fail open, and work without the guard."
	case EvWork:
		return "The server starts the charge for " + who(e.To) + "."
	case EvCharge:
		return "The card is charged: " + e.Ref + "."
	case EvCrash:
		if e.OK {
			return "The server crashes after the charge: nothing saved, no answer."
		}
		return "The server crashes before the charge is recorded: nothing saved, no answer."
	case EvSave:
		return "SET result EX " + strconv.Itoa(e.N) + ": " + e.Ref + " saved."
	case EvUnsaved:
		return "The key store is still down: the result is not saved."
	case EvCreated:
		return "201 Created to " + who(e.To) + ": done."
	case EvReplay:
		return "Replay of the saved 201 to " + who(e.To) + ": done."
	case EvConflict:
		return "409 to " + who(e.To) + ": the lock is taken and there is no result yet."
	case EvUnavailable:
		return "503 to " + who(e.To) + ": the key store cannot be reached."
	case EvLost:
		return "The answer " + strconv.Itoa(e.N) + " arrives after " + who(e.To) + " stopped waiting: lost."
	case EvEvict:
		return "Memory pressure: the store evicts every key (" + strconv.Itoa(e.N) + " live)."
	}
	return e.Kind.String()
}

// send makes sd's next request and has the server handle it at once.
func (r *run) send(sd *sender) {
	sd.sends++
	r.res.Sends++
	n := sd.sends
	sd.waiting = n
	ref := r.sendRef(sd, n)
	r.s.Record(sim.Event{Kind: EvSend, Lane: sd.name, To: "server", N: n, Ref: ref})
	// The timeout is scheduled before the server's answer: an answer due
	// at the very instant the sender stops waiting comes too late (at
	// schedule seed 0; another may put the answer first).
	r.s.Schedule(r.s.Now()+r.p.Timeout, &sd.timeout)
	r.handle(sd, n, ref)
}

// timeout is the end of the wait for sd's oldest send not timed out yet.
// A sender's timeouts are due in the order of its sends, all Timeout
// after them, so the k-th to fire is the k-th send's (two at one instant
// are the same handler, whichever order they run in).
func (r *run) timeout(sd *sender) {
	sd.fired++
	n := sd.fired
	if sd.waiting != n {
		return
	}
	sd.waiting = 0
	r.res.Timeouts++
	r.s.Record(sim.Event{Kind: EvTimeout, Lane: sd.name, N: wholeSeconds(r.p.Timeout), Ref: r.sendRef(sd, n)})
	r.next(sd, r.s.Now())
}

// sendRef names sd's send n: "sender-2/3".
func (r *run) sendRef(sd *sender, n int) string { return r.names.Number(n, sd.name, "/") }

// next schedules sd's next send retry after at, or gives up.
func (r *run) next(sd *sender, at time.Duration) {
	if sd.sends >= r.p.Attempts {
		sd.gaveUp = true
		r.s.Record(sim.Event{Kind: EvGiveUp, Lane: sd.name, N: r.p.Attempts, Ref: sd.name})
		return
	}
	r.s.Schedule(at+r.p.Retry, &sd.send)
}

// answerKind is the event of an answer a sender receives.
func answerKind(status int) sim.Kind {
	switch status {
	case answerCreated:
		return EvCreated
	case answerReplay:
		return EvReplay
	case answerConflict:
		return EvConflict
	}
	return EvUnavailable
}

// answer delivers status to sd for its send n, now, unless sd stopped
// waiting for it.
func (r *run) answer(sd *sender, n, status int, ref string) {
	if sd.waiting != n {
		r.s.Record(sim.Event{Kind: EvLost, Lane: "server", To: sd.name, N: statusCode(status), Ref: ref})
		return
	}
	sd.waiting = 0
	r.s.Record(sim.Event{Kind: answerKind(status), Lane: "server", To: sd.name, N: statusCode(status), Ref: ref})
	switch status {
	case answerCreated, answerReplay:
		sd.done, sd.doneAt = true, r.s.Now()
		if status == answerReplay {
			r.res.Replays++
		}
	case answerConflict:
		r.res.Conflicts++
		r.next(sd, r.s.Now())
	case answerUnavailable:
		r.res.Unavailable++
		r.next(sd, r.s.Now())
	}
}

// handle is the server's handler for sd's send n, under the guard.
func (r *run) handle(sd *sender, n int, ref string) {
	if r.p.Guard == None {
		r.work(sd, n, ref, false)
		return
	}
	if r.down() {
		r.s.Record(sim.Event{Kind: EvStoreDown, Lane: "server", To: "store", Detail: string(r.p.OnDown), Ref: ref})
		if r.p.OnDown == FailClosed {
			r.answer(sd, n, answerUnavailable, ref)
			return
		}
		r.work(sd, n, ref, true)
		return
	}
	found := r.exists(resultKey)
	switch r.p.Guard {
	case GetThenSet:
		r.s.Record(sim.Event{Kind: EvGet, Lane: "server", To: "store", OK: found, Ref: ref})
		if found {
			r.answer(sd, n, answerReplay, ref)
			return
		}
		r.work(sd, n, ref, true)
	case SetNX:
		if !r.exists(lockKey) {
			r.keys[lockKey] = key{set: true, expiry: r.s.Now() + r.p.LockTTL}
			r.s.Record(sim.Event{Kind: EvLock, Lane: "server", To: "store", N: wholeSeconds(r.p.LockTTL), Ref: ref})
			r.work(sd, n, ref, true)
			return
		}
		r.s.Record(sim.Event{Kind: EvLockHeld, Lane: "server", To: "store", OK: found, Ref: ref})
		if found {
			r.answer(sd, n, answerReplay, ref)
			return
		}
		r.answer(sd, n, answerConflict, ref)
	}
}

// work charges, taking p.Work; at its end the charge is recorded, the
// result saved (when save, and the store is up) and the answer sent, all
// at the same instant. The first handler to start work is the one that
// crashes, if any does.
func (r *run) work(sd *sender, n int, ref string, save bool) {
	crash := r.p.Crash != NoCrash && !r.crashed
	r.crashed = r.crashed || crash
	r.s.Record(sim.Event{Kind: EvWork, Lane: "server", To: sd.name, Ref: ref})
	c := &sd.charge
	if c.running {
		c = new(charge)
	}
	*c = charge{r: r, sd: sd, n: n, ref: ref, save: save, crash: crash, running: true}
	r.s.Schedule(r.s.Now()+r.p.Work, c)
}

// finish ends the work on sd's send n: the charge recorded, the result
// saved and the answer sent, or the crash.
func (r *run) finish(sd *sender, n int, ref string, save, crash bool) {
	if crash && r.p.Crash == BeforeCharge {
		r.s.Record(sim.Event{Kind: EvCrash, Lane: "server", Ref: ref})
		return
	}
	r.charge++
	r.res.Charges++
	ch := r.names.Number(r.charge, "ch_")
	r.s.Record(sim.Event{Kind: EvCharge, Lane: "processor", N: r.charge, Ref: ch})
	if crash {
		r.s.Record(sim.Event{Kind: EvCrash, Lane: "server", OK: true, Ref: ref})
		return
	}
	if save {
		if r.down() {
			r.s.Record(sim.Event{Kind: EvUnsaved, Lane: "server", To: "store", Ref: ref})
		} else {
			r.keys[resultKey] = key{set: true, expiry: r.s.Now() + r.p.ResultTTL}
			r.s.Record(sim.Event{Kind: EvSave, Lane: "server", To: "store", N: wholeSeconds(r.p.ResultTTL), Ref: ch})
		}
	}
	r.answer(sd, n, answerCreated, ref)
}

// exists reports whether key k exists now: set, not expired, not evicted.
func (r *run) exists(k int) bool {
	return r.keys[k].set && r.s.Now() < r.keys[k].expiry
}

// down reports whether the store is unreachable now.
func (r *run) down() bool {
	return r.p.Store == Down && r.s.Now() < r.p.Outage
}

func (r *run) evict() {
	n := 0
	for k := range r.keys {
		if r.exists(k) {
			n++
		}
	}
	r.keys = [storeKeys]key{}
	r.s.Record(sim.Event{Kind: EvEvict, Lane: "store", N: n})
}

func statusCode(status int) int {
	if status == answerReplay {
		return answerCreated
	}
	return status
}

// secs writes d in seconds: 300, 0.5.
func secs(d time.Duration) string { return param.Number(d.Seconds()) }

// wholeSeconds is d in seconds, which Validate keeps whole.
func wholeSeconds(d time.Duration) int { return int(d / time.Second) }

// who names a sender's lane in a sentence: "sender-2" is "sender 2".
func who(lane string) string {
	if i := strings.IndexByte(lane, '-'); i >= 0 {
		return lane[:i] + " " + lane[i+1:]
	}
	return lane
}
