package lock

import (
	"strconv"
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
// Validate refuses a fraction, as the CLI and the widget do.
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

// Bounds. A week (604,800 s) is the longest any duration may be: longer
// than any key window a payments API documents.
const (
	MaxDupes    = 100
	MaxAttempts = 100
	MaxSeconds  = 604800
)

// Schema declares the parameters, SIMULATORS.md section 7's names and
// defaults: two senders, the SET NX lock, no fault.
//
// A lock of 300 s against work of 2 s looks generous; the figures show
// what it does not cover. A result kept 86,400 s (24 h) is the window
// Stripe documents for its keys. A sender waits 10 s, then 60 s before it
// tries again, at most 8 times: its last try is within 8 × (10 + 60) =
// 560 s, past the lock's expiry, which is the point of the crash figures.
var Schema = param.Schema{
	{Name: "guard", Label: "Guard", Kind: param.Enum, Default: string(SetNX), Allowed: param.Strings(Guards),
		Help: "none: charge every request; get-then-set: GET the result, charge, then SET it; setnx: SET a lock NX EX before the charge, beside the result"},
	{Name: "dupes", Label: "Identical requests", Kind: param.Int, Default: "2", Min: 1, Max: MaxDupes,
		Help: "requests with the same key sent at t = 0, one per sender (a double click, a proxy's retry)"},
	{Name: "crash", Label: "Server crashes", Kind: param.Enum, Default: string(NoCrash), Allowed: param.Strings(Crashes),
		Help: "the first handler that starts work crashes at its end, before or after the charge is recorded: nothing saved, no answer"},
	{Name: "work", Label: "Charge takes (s)", Kind: param.Int, Default: "2", Min: 0, Max: MaxSeconds,
		Help: "how long the charge takes, in seconds; the result is saved and the answer sent at its end"},
	{Name: "evict", Label: "Evict every key", Kind: param.Bool, Default: "off",
		Help: "memory pressure under an allkeys-* policy: the store drops every key at evict-at"},
	{Name: "store", Label: "Key store", Kind: param.Enum, Default: string(Up), Allowed: param.Strings(Stores),
		Help: "down: the store cannot be reached for the first outage seconds"},
	{Name: "on-down", Label: "When the store is down", Kind: param.Enum, Default: string(FailOpen), Allowed: param.Strings(OnDowns),
		Help: "fail-open: charge without the guard, save the result only if the store is back by then; fail-closed: answer 503"},
	{Name: "lock-ttl", More: true, Label: "Lock TTL (s)", Kind: param.Int, Default: "300", Min: 1, Max: MaxSeconds,
		Help: "EX of the lock key, in seconds"},
	{Name: "result-ttl", More: true, Label: "Result TTL (s)", Kind: param.Int, Default: "86400", Min: 1, Max: MaxSeconds,
		Help: "EX of the result key, in seconds"},
	{Name: "timeout", More: true, Label: "Client timeout (s)", Kind: param.Int, Default: "10", Min: 1, Max: MaxSeconds,
		Help: "how long a sender waits for an answer, in seconds"},
	{Name: "retry", More: true, Label: "Wait before retrying (s)", Kind: param.Int, Default: "60", Min: 0, Max: MaxSeconds,
		Help: "how long a sender waits after a timeout, a 409 or a 503 before it sends again, in seconds"},
	{Name: "attempts", More: true, Label: "Attempts per sender", Kind: param.Int, Default: "8", Min: 1, Max: MaxAttempts,
		Help: "sends per sender at most, the first included; then it gives up"},
	{Name: "evict-at", More: true, Label: "Eviction at (s)", Kind: param.Int, Default: "120", Min: 0, Max: MaxSeconds,
		Help: "when the store evicts every key, in seconds, if evict is on; before any send at the same instant"},
	{Name: "outage", More: true, Label: "Store down for (s)", Kind: param.Int, Default: "30", Min: 1, Max: MaxSeconds,
		Help: "how long the store cannot be reached from t = 0, in seconds, if the store is down"},
}

// Defaults are Schema's defaults.
func Defaults() Params {
	return defaults
}

// defaults are Schema's defaults, parsed once as the package starts
// rather than on every call of Defaults.
var defaults = FromValues(Schema.Defaults())

// FromValues reads parameters checked against Schema.
func FromValues(v param.Values) Params {
	sec := func(name string) time.Duration { return time.Duration(v.Int(name)) * time.Second }
	return Params{
		Dupes:     v.Int("dupes"),
		Timeout:   sec("timeout"),
		Retry:     sec("retry"),
		Attempts:  v.Int("attempts"),
		Guard:     Guard(v.String("guard")),
		Work:      sec("work"),
		LockTTL:   sec("lock-ttl"),
		ResultTTL: sec("result-ttl"),
		Crash:     Crash(v.String("crash")),
		Evict:     v.Bool("evict"),
		EvictAt:   sec("evict-at"),
		Store:     Store(v.String("store")),
		Outage:    sec("outage"),
		OnDown:    OnDown(v.String("on-down")),
	}
}

// Raw writes the parameters as Schema reads them. A duration with a
// fraction of a second is written with it, which Schema refuses.
func (p Params) Raw() map[string]string {
	sec := func(d time.Duration) string { return param.Number(d.Seconds()) }
	return map[string]string{
		"dupes":      strconv.Itoa(p.Dupes),
		"timeout":    sec(p.Timeout),
		"retry":      sec(p.Retry),
		"attempts":   strconv.Itoa(p.Attempts),
		"guard":      string(p.Guard),
		"work":       sec(p.Work),
		"lock-ttl":   sec(p.LockTTL),
		"result-ttl": sec(p.ResultTTL),
		"crash":      string(p.Crash),
		"evict":      param.OnOff(p.Evict),
		"evict-at":   sec(p.EvictAt),
		"store":      string(p.Store),
		"outage":     sec(p.Outage),
		"on-down":    string(p.OnDown),
	}
}

// Validate checks every parameter against Schema; the error is a
// *param.Error naming the parameter, the value and what is allowed.
func (p Params) Validate() error {
	return Schema.CheckFields(p.Raw, param.Word(p.Guard), param.Num(float64(p.Dupes)), param.Word(p.Crash),
		param.Num(p.Work.Seconds()), param.Flag(p.Evict), param.Word(p.Store), param.Word(p.OnDown),
		param.Num(p.LockTTL.Seconds()), param.Num(p.ResultTTL.Seconds()), param.Num(p.Timeout.Seconds()),
		param.Num(p.Retry.Seconds()), param.Num(float64(p.Attempts)), param.Num(p.EvictAt.Seconds()), param.Num(p.Outage.Seconds()))
}
