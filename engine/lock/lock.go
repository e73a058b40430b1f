// Package lock models the widely copied Redis recipe for idempotency keys
// (SIMULATORS.md, section 7): one payment intent, one key, senders that
// retry, and a key store with the Redis commands' semantics, run against the
// recipe's failure modes (a crash under the lock, work slower than the
// lock, eviction, the store being down).
//
// The store is Redis as the recipe uses it: every command is atomic, and a
// key set with EX L at time t exists for times < t + L. Time is in seconds
// on the virtual clock; nothing here sleeps or reads a clock.
package lock

import (
	"strconv"
	"time"

	"github.com/retrylab/retrylab/engine/sim"
)

// Guard is how the server uses the key store.
type Guard string

const (
	// None charges on every request.
	None Guard = "none"
	// GetThenSet GETs the result key, replays it if found, and otherwise
	// charges and then SETs it: two commands with the work between them.
	GetThenSet Guard = "get-then-set"
	// SetNX takes a lock key with SET NX EX before the work, beside the
	// result key. A request that finds the lock taken GETs the result:
	// replay if found, else 409. The lock is never deleted.
	SetNX Guard = "setnx"
)

// Guards lists the guards from the least to the most careful.
var Guards = []Guard{None, GetThenSet, SetNX}

// Crash is where the first handler that starts work crashes, at the end of
// its work.
type Crash string

const (
	NoCrash      Crash = "none"
	BeforeCharge Crash = "before-charge" // the charge is not recorded
	AfterCharge  Crash = "after-charge"  // the charge is recorded, nothing saved, no answer
)

// Crashes lists the crash points.
var Crashes = []Crash{NoCrash, BeforeCharge, AfterCharge}

// Store is whether the key store can be reached at the start of the run.
type Store string

const (
	Up   Store = "up"
	Down Store = "down" // unreachable for t < Outage
)

// Stores lists the store states.
var Stores = []Store{Up, Down}

// OnDown is what the server does when the store cannot be reached.
type OnDown string

const (
	// FailOpen works without the guard, and saves the result only if the
	// store is back when the work ends.
	FailOpen OnDown = "fail-open"
	// FailClosed answers 503.
	FailClosed OnDown = "fail-closed"
)

// OnDowns lists the choices for a store that is down.
var OnDowns = []OnDown{FailOpen, FailClosed}

// Params are the knobs of the lock model. Durations are whole seconds in
// the CLI and the widget; the engine takes any time.Duration within bounds.
type Params struct {
	Dupes    int           // identical requests with the same key, one per sender, all sent at t = 0
	Timeout  time.Duration // how long a sender waits for an answer
	Retry    time.Duration // the wait after a timeout, a 409 or a 503 before the next send
	Attempts int           // sends per sender at most, the first included

	Guard     Guard
	Work      time.Duration // how long the charge takes
	LockTTL   time.Duration // EX of the lock key (setnx)
	ResultTTL time.Duration // EX of the result key

	Crash   Crash
	Evict   bool          // every key is evicted at EvictAt (an allkeys-* policy under memory pressure)
	EvictAt time.Duration // when the eviction happens
	Store   Store
	Outage  time.Duration // how long the store is down from t = 0, when Store is Down
	OnDown  OnDown
}

// Defaults are the section's defaults: two senders, the SET NX lock, no
// fault.
//
// A lock of 300 s against work of 2 s looks generous; the figures show
// what it does not cover. A result kept 86,400 s (24 h) is the window
// Stripe documents for its keys. A sender waits 10 s, then 60 s before it
// tries again, at most 8 times: its last try is within 8 × (10 + 60) =
// 560 s, past the lock's expiry, which is the point of the crash figures.
func Defaults() Params {
	return Params{
		Dupes:     2,
		Timeout:   10 * time.Second,
		Retry:     60 * time.Second,
		Attempts:  8,
		Guard:     SetNX,
		Work:      2 * time.Second,
		LockTTL:   300 * time.Second,
		ResultTTL: 86400 * time.Second,
		Crash:     NoCrash,
		Evict:     false,
		EvictAt:   120 * time.Second,
		Store:     Up,
		Outage:    30 * time.Second,
		OnDown:    FailOpen,
	}
}

// Bounds, in the order of the parameters. A week (604,800 s) is the
// longest any duration may be: longer than any key window a payments API
// documents.
const (
	MaxDupes    = 100
	MaxAttempts = 100
	MaxSeconds  = 604800 * time.Second
)

// Validate reports the first parameter out of bounds, by its kebab-case
// name.
func (p Params) Validate() error {
	return sim.FirstError(
		sim.CheckInt("dupes", p.Dupes, 1, MaxDupes),
		sim.CheckSeconds("timeout", p.Timeout, time.Second, MaxSeconds),
		sim.CheckSeconds("retry", p.Retry, 0, MaxSeconds),
		sim.CheckInt("attempts", p.Attempts, 1, MaxAttempts),
		sim.CheckEnum("guard", p.Guard, Guards...),
		sim.CheckSeconds("work", p.Work, 0, MaxSeconds),
		sim.CheckSeconds("lock-ttl", p.LockTTL, time.Second, MaxSeconds),
		sim.CheckSeconds("result-ttl", p.ResultTTL, time.Second, MaxSeconds),
		sim.CheckEnum("crash", p.Crash, Crashes...),
		sim.CheckSeconds("evict-at", p.EvictAt, 0, MaxSeconds),
		sim.CheckEnum("store", p.Store, Stores...),
		sim.CheckSeconds("outage", p.Outage, time.Second, MaxSeconds),
		sim.CheckEnum("on-down", p.OnDown, OnDowns...),
	)
}

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

// Keys of the store.
const (
	lockKey   = "lock"
	resultKey = "result"
)

type run struct {
	p   Params
	s   *sim.Sim
	res Result

	keys    map[string]time.Duration // key -> expiry: the key exists for times < expiry
	crashed bool                     // the one crash has happened

	senders []*sender
	charge  int // charges so far, to name them ch_1, ch_2, ...
}

type sender struct {
	id      int
	name    string
	sends   int
	waiting int  // the number of the send whose answer the sender waits for; 0 when not waiting
	done    bool // got a 201 or a replay
	gaveUp  bool
	doneAt  time.Duration
}

// Run plays the senders until no event is left. With the defaults: the
// first sender takes the lock and is charged; the second finds the lock
// taken and no result, gets 409, and 60 s later gets the saved result: 1
// charge, 3 sends, 1 conflict, 1 replay, done at 60 s. SIMULATORS.md
// section 7 lists the figures of every fault; the tests assert them.
func Run(p Params) (Result, error) {
	if err := p.Validate(); err != nil {
		return Result{}, err
	}
	r := &run{p: p, s: sim.New(0), keys: map[string]time.Duration{}}
	// The eviction is scheduled before any send, so that at the same
	// instant it comes first.
	if p.Evict {
		r.s.At(p.EvictAt, r.evict)
	}
	for i := 1; i <= p.Dupes; i++ {
		sd := &sender{id: i, name: "sender-" + strconv.Itoa(i)}
		r.senders = append(r.senders, sd)
		r.s.At(0, func() { r.send(sd) })
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
	return r.res, nil
}

func (r *run) say(kind sim.Kind, lane, to, text, ref string) {
	r.s.Record(sim.Event{Kind: kind, Lane: lane, To: to, Text: text, Ref: ref})
}

// send makes sd's next request and has the server handle it at once.
func (r *run) send(sd *sender) {
	sd.sends++
	r.res.Sends++
	n := sd.sends
	sd.waiting = n
	ref := sd.name + "/" + strconv.Itoa(n)
	r.say("send", sd.name, "server", capital(sd.name)+" sends request "+strconv.Itoa(n)+" with the key.", ref)
	// The timeout is scheduled before the server's answer: an answer due
	// at the very instant the sender stops waiting comes too late.
	r.s.At(r.s.Now()+r.p.Timeout, func() {
		if sd.waiting != n {
			return
		}
		sd.waiting = 0
		r.res.Timeouts++
		r.say("timeout", sd.name, "", capital(sd.name)+" hears nothing for "+secs(r.p.Timeout)+" s and stops waiting.", ref)
		r.next(sd, r.s.Now())
	})
	r.handle(sd, n, ref)
}

// next schedules sd's next send retry after at, or gives up.
func (r *run) next(sd *sender, at time.Duration) {
	if sd.sends >= r.p.Attempts {
		sd.gaveUp = true
		r.say("give-up", sd.name, "", capital(sd.name)+" has used its "+strconv.Itoa(r.p.Attempts)+" attempts and gives up.", sd.name)
		return
	}
	r.s.At(at+r.p.Retry, func() { r.send(sd) })
}

// answer delivers status to sd for its send n, now, unless sd stopped
// waiting for it.
func (r *run) answer(sd *sender, n, status int, ref string) {
	if sd.waiting != n {
		r.say("lost", "server", sd.name, "The answer "+strconv.Itoa(statusCode(status))+" arrives after "+sd.name+" stopped waiting: lost.", ref)
		return
	}
	sd.waiting = 0
	switch status {
	case answerCreated, answerReplay:
		sd.done, sd.doneAt = true, r.s.Now()
		if status == answerReplay {
			r.res.Replays++
			r.say("replay", "server", sd.name, "Replay of the saved 201 to "+sd.name+": done.", ref)
		} else {
			r.say("created", "server", sd.name, "201 Created to "+sd.name+": done.", ref)
		}
	case answerConflict:
		r.res.Conflicts++
		r.say("conflict", "server", sd.name, "409 to "+sd.name+": the lock is taken and there is no result yet.", ref)
		r.next(sd, r.s.Now())
	case answerUnavailable:
		r.res.Unavailable++
		r.say("unavailable", "server", sd.name, "503 to "+sd.name+": the key store cannot be reached.", ref)
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
		if r.p.OnDown == FailClosed {
			r.say("store-down", "server", "store", "The key store cannot be reached: fail closed.", ref)
			r.answer(sd, n, answerUnavailable, ref)
			return
		}
		r.say("store-down", "server", "store", "The key store cannot be reached: fail open, and work without the guard.", ref)
		r.work(sd, n, ref, true)
		return
	}
	switch r.p.Guard {
	case GetThenSet:
		if r.exists(resultKey) {
			r.say("get", "server", "store", "GET result: found.", ref)
			r.answer(sd, n, answerReplay, ref)
			return
		}
		r.say("get", "server", "store", "GET result: nothing yet, so charge.", ref)
		r.work(sd, n, ref, true)
	case SetNX:
		if !r.exists(lockKey) {
			r.keys[lockKey] = r.s.Now() + r.p.LockTTL
			r.say("lock", "server", "store", "SET lock NX EX "+secs(r.p.LockTTL)+": taken, until t = "+secs(r.s.Now()+r.p.LockTTL)+" s.", ref)
			r.work(sd, n, ref, true)
			return
		}
		if r.exists(resultKey) {
			r.say("get", "server", "store", "SET lock NX: already taken. GET result: found.", ref)
			r.answer(sd, n, answerReplay, ref)
			return
		}
		r.say("get", "server", "store", "SET lock NX: already taken. GET result: nothing.", ref)
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
	r.say("work", "server", "processor", "The server starts the charge for "+sd.name+".", ref)
	r.s.At(r.s.Now()+r.p.Work, func() {
		if crash && r.p.Crash == BeforeCharge {
			r.say("crash", "server", "", "The server crashes before the charge is recorded: nothing saved, no answer.", ref)
			return
		}
		r.charge++
		r.res.Charges++
		ch := "ch_" + strconv.Itoa(r.charge)
		r.say("charge", "processor", "", "The card is charged: "+ch+".", ch)
		if crash {
			r.say("crash", "server", "", "The server crashes after the charge: nothing saved, no answer.", ref)
			return
		}
		if save {
			if r.down() {
				r.say("store-down", "server", "store", "The key store is still down: the result is not saved.", ref)
			} else {
				r.keys[resultKey] = r.s.Now() + r.p.ResultTTL
				r.say("save", "server", "store", "SET result EX "+secs(r.p.ResultTTL)+": "+ch+" saved.", ch)
			}
		}
		r.answer(sd, n, answerCreated, ref)
	})
}

// exists reports whether key exists now: set, not expired, not evicted.
func (r *run) exists(key string) bool {
	exp, ok := r.keys[key]
	return ok && r.s.Now() < exp
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
	clear(r.keys)
	r.say("evict", "store", "", "Memory pressure: the store evicts every key ("+strconv.Itoa(n)+" live).", "")
}

func statusCode(status int) int {
	if status == answerReplay {
		return answerCreated
	}
	return status
}

// secs writes d in seconds: 300, 0.5.
func secs(d time.Duration) string { return sim.FormatFloat(d.Seconds()) }

func capital(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
