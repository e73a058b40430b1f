package lock

import (
	"time"

	"github.com/retrylab/retrylab/engine/param"
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

// Params are the knobs of the lock model. Durations are whole seconds:
// Binding.Check refuses a fraction, as the CLI and the widget do.
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

	// Schedule is the order of the events due at one instant: 0 the
	// order they were scheduled in, the published figures' order; any
	// other seed a permutation of it (sim.Sim.Reorder). It is not a
	// parameter of the widget: retrylab sim --schedule sets it.
	Schedule uint64
}

// Bounds. A week (604,800 s) is the longest any duration may be: longer
// than any key window a payments API documents.
const (
	MaxDupes    = 100
	MaxAttempts = 100
	MaxSeconds  = 604800
)

// Bind declares the parameters, with the defaults of the published
// figures (the package documentation): two senders, the SET NX lock, no
// fault.
//
// A lock of 300 s against work of 2 s looks generous; the figures show
// what it does not cover. A result kept 86,400 s (24 h) is the window
// Stripe documents for its keys. A sender waits 10 s, then 60 s before it
// tries again, at most 8 times: its last try is within 8 × (10 + 60) =
// 560 s, past the lock's expiry, which is the point of the crash figures.
func (p *Params) Bind(b *param.Binder) {
	param.OneOf(b, &p.Guard, Guards, param.Param{Name: "guard", Label: "Guard", Default: string(SetNX),
		Help: "none: charge every request; get-then-set: GET the result, charge, then SET it; setnx: SET a lock NX EX before the charge, beside the result"})
	b.Int(&p.Dupes, param.Param{Name: "dupes", Label: "Identical requests", Default: "2", Min: 1, Max: MaxDupes,
		Help: "requests with the same key sent at t = 0, one per sender (a double click, a proxy's retry)"})
	param.OneOf(b, &p.Crash, Crashes, param.Param{Name: "crash", Label: "Server crashes", Default: string(NoCrash),
		Help: "the first handler that starts work crashes at its end, before or after the charge is recorded: nothing saved, no answer"})
	b.Seconds(&p.Work, param.Param{Name: "work", Label: "Charge takes (s)", Default: "2", Min: 0, Max: MaxSeconds,
		Help: "how long the charge takes, in seconds; the result is saved and the answer sent at its end"})
	b.Bool(&p.Evict, param.Param{Name: "evict", Label: "Evict every key", Default: "off",
		Help: "memory pressure under an allkeys-* policy: the store drops every key at evict-at"})
	param.OneOf(b, &p.Store, Stores, param.Param{Name: "store", Label: "Key store", Default: string(Up),
		Help: "down: the store cannot be reached for the first outage seconds"})
	param.OneOf(b, &p.OnDown, OnDowns, param.Param{Name: "on-down", Label: "When the store is down", Default: string(FailOpen),
		Help: "fail-open: charge without the guard, save the result only if the store is back by then; fail-closed: answer 503"})
	b.Seconds(&p.LockTTL, param.Param{Name: "lock-ttl", More: true, Label: "Lock TTL (s)", Default: "300", Min: 1, Max: MaxSeconds,
		Help: "EX of the lock key, in seconds"})
	b.Seconds(&p.ResultTTL, param.Param{Name: "result-ttl", More: true, Label: "Result TTL (s)", Default: "86400", Min: 1, Max: MaxSeconds,
		Help: "EX of the result key, in seconds"})
	b.Seconds(&p.Timeout, param.Param{Name: "timeout", More: true, Label: "Client timeout (s)", Default: "10", Min: 1, Max: MaxSeconds,
		Help: "how long a sender waits for an answer, in seconds"})
	b.Seconds(&p.Retry, param.Param{Name: "retry", More: true, Label: "Wait before retrying (s)", Default: "60", Min: 0, Max: MaxSeconds,
		Help: "how long a sender waits after a timeout, a 409 or a 503 before it sends again, in seconds"})
	b.Int(&p.Attempts, param.Param{Name: "attempts", More: true, Label: "Attempts per sender", Default: "8", Min: 1, Max: MaxAttempts,
		Help: "sends per sender at most, the first included; then it gives up"})
	b.Seconds(&p.EvictAt, param.Param{Name: "evict-at", More: true, Label: "Eviction at (s)", Default: "120", Min: 0, Max: MaxSeconds,
		Help: "when the store evicts every key, in seconds, if evict is on; before any send at the same instant"})
	b.Seconds(&p.Outage, param.Param{Name: "outage", More: true, Label: "Store down for (s)", Default: "30", Min: 1, Max: MaxSeconds,
		Help: "how long the store cannot be reached from t = 0, in seconds, if the store is down"})
}

// Binding is the parameters as Bind declares them: their Schema, their
// Defaults, and the reading, writing and checking of Params.
var Binding = param.NewBinding((*Params).Bind)

// Validate checks every parameter against its declaration; the error is a
// *param.Error naming the parameter, the value and what is allowed.
func (p Params) Validate() error { return Binding.Check(p) }
