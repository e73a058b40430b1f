// Package check tests an HTTP API that takes the Idempotency-Key header
// from the outside, the way its clients see it: it sends real requests to
// one endpoint, some of them at the same instant, and judges only the
// answers. Each check says what it sent, what it saw, and the section of
// the IETF draft (draft-ietf-httpapi-idempotency-key-header-07) or the
// behaviour of Stripe's API that it stands on.
//
// Every check uses keys of its own, new random UUIDs, so that a run never
// meets an earlier run's keys, nor another check's. The checker connects
// only to the host and port of the URL it is given: it follows no
// redirect, uses no proxy, and opens one connection per request, so that
// the requests it counts are the requests it sent (a Go client resends a
// keyed POST on its own when a kept-alive connection fails).
package check

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Result is a check's verdict.
type Result string

const (
	// Pass: the server behaved as the check's reference says it must.
	Pass Result = "pass"
	// Warn: nothing was charged twice or leaked, but the server departs
	// from the reference in a way its clients will notice.
	Warn Result = "warn"
	// Fail: the server did what the check exists to catch.
	Fail Result = "fail"
)

// A Finding is one check's outcome.
type Finding struct {
	Name   string `json:"name"`
	Result Result `json:"result"`
	// Detail is one sentence: what the check sent and what it saw.
	Detail string `json:"detail"`
	// Reference is what the check stands on: a section of the draft, or
	// Stripe's documented behaviour.
	Reference string `json:"reference"`
}

// A Report is a run's findings, in the order of Checks.
type Report struct {
	URL    string    `json:"url"`
	Checks []Finding `json:"checks"`
	// Requests is how many requests the run sent, its first one included.
	Requests int `json:"-"`
	// Took is how long the run took.
	Took time.Duration `json:"-"`
	// Host is the host and port every request went to.
	Host string `json:"-"`
	// Expiry tells whether the expiry check ran (Config.TTL was set).
	Expiry bool `json:"-"`
}

// Failed reports whether a check failed.
func (r Report) Failed() bool {
	for _, f := range r.Checks {
		if f.Result == Fail {
			return true
		}
	}
	return false
}

// Count returns how many checks had the result.
func (r Report) Count(res Result) int {
	n := 0
	for _, f := range r.Checks {
		if f.Result == res {
			n++
		}
	}
	return n
}

// Defaults fit the handbook's sandbox API (retrylab api).
const (
	DefaultBody        = `{"amount":2500,"currency":"usd"}`
	DefaultIDField     = "id"
	DefaultConcurrency = 20
)

// Limits of a run, so that no typo turns a check into a flood and no
// silent server holds a run for ever.
const (
	// MinConcurrency and MaxConcurrency bound Config.Concurrency: two
	// requests are the least that can race, and 100 connections at once
	// are a fifth of the 512 the handbook's own server serves at once, so
	// that a run cannot crowd out the other clients of a server that size.
	MinConcurrency = 2
	MaxConcurrency = 100
	// RequestTimeout is how long one request may take, its connection
	// included: 15 s, the time the handbook's own server gives a client
	// to send a whole request, and ample for an answer from a server on
	// the other side of the world.
	RequestTimeout = 15 * time.Second
	// RunTimeout bounds a whole run, the expiry check's waits aside. A
	// run is 18 rounds of requests, one after another (the concurrent
	// check's burst is one round); at RequestTimeout each they would take
	// 4.5 minutes. Two minutes lets a server average 6.6 s a round
	// (120 s / 18) before the run gives up on it.
	RunTimeout = 2 * time.Minute
	// MinTTL and MaxTTL bound Config.TTL: the expiry check waits a little
	// more than the TTL, so an hour is the most a run may be made to
	// wait, and a second the least a TTL can be told apart from the
	// latency of the requests that measure it.
	MinTTL = time.Second
	MaxTTL = time.Hour
	// maxAnswer is the most of an answer's body read: 1 MiB, far more
	// than any resource's JSON, so a run's memory stays bounded.
	maxAnswer = 1 << 20
)

// Config is what a run is told.
type Config struct {
	// URL is the endpoint a client POSTs to: http or https.
	URL string
	// Token and OtherToken are the bearer tokens of two accounts, sent as
	// Authorization: Bearer; OtherToken is the scope check's second
	// account. Empty is a new random token (on the sandbox API, a new
	// account). Both are left out when Header sets Authorization itself.
	Token, OtherToken string
	// Header holds the fields sent on every request, besides
	// Idempotency-Key, Authorization and Content-Type: application/json
	// (which Header may replace).
	Header http.Header
	// Body is the JSON of a request that creates a resource, DefaultBody
	// if empty; OtherBody a different one, sent under Body's key by the
	// mismatch check, Body with its number "amount" plus one if empty.
	Body, OtherBody []byte
	// IDField is where a 2xx answer's JSON holds the new resource's id:
	// a member name, or names joined by dots for a nested one (data.id);
	// DefaultIDField if empty.
	IDField string
	// Concurrency is how many requests the concurrent check releases at
	// the same instant, from MinConcurrency to MaxConcurrency;
	// DefaultConcurrency if zero.
	Concurrency int
	// TTL, when not zero, is how long the API says it remembers a key,
	// from MinTTL to MaxTTL; the expiry check runs only then.
	TTL time.Duration
}

// A SetupError means the run could not check anything: the URL did not
// answer, or its answer to a first, ordinary request created nothing, so
// the flags do not fit the API.
type SetupError struct{ msg string }

func (e *SetupError) Error() string { return e.msg }

// Run checks the API at cfg.URL and reports every check's finding. The
// error is a *SetupError when nothing could be checked, a problem with
// cfg itself, or ctx's error when it was cancelled during the run.
func Run(ctx context.Context, cfg Config) (Report, error) {
	start := time.Now()
	cfg, err := cfg.withDefaults()
	if err != nil {
		return Report{}, err
	}
	c, err := newClient(cfg)
	if err != nil {
		return Report{}, err
	}
	defer c.close()
	rep := Report{URL: cfg.URL, Host: c.addr, Expiry: cfg.TTL > 0}
	limit := RunTimeout
	if cfg.TTL > 0 {
		limit += cfg.TTL + ttlMargin(cfg.TTL)
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()

	if err := c.preflight(ctx); err != nil {
		return Report{}, err
	}
	for _, ch := range Checks {
		if ch.ttl && cfg.TTL == 0 {
			continue
		}
		res, detail := ch.run(ctx, c)
		if errors.Is(ctx.Err(), context.Canceled) {
			return Report{}, fmt.Errorf("stopped during the %s check: %w", ch.Name, ctx.Err())
		}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) && res != Pass {
			detail += fmt.Sprintf(" (the run's limit of %v passed)", limit)
		}
		rep.Checks = append(rep.Checks, Finding{Name: ch.Name, Result: res, Detail: detail, Reference: ch.Reference})
	}
	rep.Requests = int(c.sent.Load())
	rep.Took = time.Since(start)
	return rep, nil
}
