package check

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// A Check is one property of the protocol, tested from outside.
type Check struct {
	Name string
	// What is what the check sends and what a correct server answers, in
	// one sentence.
	What string
	// Reference is what the check stands on.
	Reference string
	// ttl: the check runs only when Config.TTL is set.
	ttl bool
	run func(ctx context.Context, c *client) (Result, string)
}

// Checks are every check, in the order a run makes them.
var Checks = []Check{
	{
		Name:      "replay",
		What:      "The same key and body twice, one after the other: the second answer repeats the first's status and resource, marked Idempotent-Replayed: true.",
		Reference: "draft-07 §2.6; Stripe: a retry gets the saved status code and body",
		run:       checkReplay,
	},
	{
		Name:      "new-key",
		What:      "The same body under two new keys: two resources, since a key not seen before is a new request however alike the bodies are.",
		Reference: "draft-07 §2.6: a key not seen before is processed normally",
		run:       checkNewKey,
	},
	{
		Name:      "concurrent",
		What:      "Many requests with one key and body, released at the same instant: one resource, every other answer a 409 (with Retry-After) or a replay of it, and a later retry gets it too.",
		Reference: "draft-07 §2.6, §2.7: 409 while the first is still being processed; RFC 9110 §10.2.3: Retry-After",
		run:       checkConcurrent,
	},
	{
		Name:      "mismatch",
		What:      "A used key with another body: refused with 422 (or another 4xx) and nothing created, after which the first body still gets the first resource.",
		Reference: "draft-07 §2.2, §2.7: 422 for a key reused with another payload; Stripe: a key reused with other parameters is an error",
		run:       checkMismatch,
	},
	{
		Name:      "scope",
		What:      "One key and body from two accounts: each account gets a resource of its own, never the other's.",
		Reference: "draft-07 §5: the lookup key combines the client's key with who the client is",
		run:       checkScope,
	},
	{
		Name:      "key-syntax",
		What:      "Keys longer than Stripe's 255 characters, or with a tab or a character outside ASCII, which the draft's syntax forbids: each refused with a 4xx, 400 as a rule, and nothing created.",
		Reference: "draft-07 §2.1: a structured-field string, printable ASCII; §5: validate keys; Stripe: up to 255 characters",
		run:       checkKeySyntax,
	},
	{
		Name:      "missing-key",
		What:      "The body with no Idempotency-Key: a pass when refused with 400, a warning when carried out, since some APIs make keys optional.",
		Reference: "draft-07 §2.7: 400 when a required key is missing",
		run:       checkMissingKey,
	},
	{
		Name:      "validation",
		What:      "A new key with a body that is not JSON, then the real body under the same key: the refusal was not saved, so the corrected request is carried out.",
		Reference: "Stripe: a request that fails validation saves no result",
		run:       checkValidation,
	},
	{
		Name:      "expiry",
		What:      "With --ttl: a key sent again a little before its TTL ends gets the first resource, and a little after it ends, a new one.",
		Reference: "draft-07 §2.3: keys may expire, by a published policy; Stripe: a key reused after it is pruned is new",
		ttl:       true,
		run:       checkExpiry,
	},
}

// same is the opening of several checks' sentences.
const same = "sent one key and body twice"

func checkReplay(ctx context.Context, c *client) (Result, string) {
	r := request{key: newKey(), body: c.cfg.Body}
	first := c.do(ctx, r)
	if !first.ok() {
		return Fail, fmt.Sprintf("%s: the first answer was %s, so nothing could be replayed", same, first)
	}
	second := c.do(ctx, r)
	switch {
	case !second.ok():
		return Fail, fmt.Sprintf("%s: the first answer was %s, the second %s: a retry after the first finished must get its answer", same, first, second)
	case second.ID != first.ID:
		return Fail, fmt.Sprintf("%s: the first answer was %s, the second %s: the request ran twice", same, first, second)
	case second.Status != first.Status:
		return Fail, fmt.Sprintf("%s: the first answer was %s, the second %s: a replay must repeat the saved status", same, first, second)
	case !second.Replayed:
		return Warn, fmt.Sprintf("%s: both answers were %s, but the second is not marked Idempotent-Replayed: true, so a client cannot tell it from a new resource", same, first)
	case string(second.Body) != string(first.Body):
		return Warn, fmt.Sprintf("%s: both answers were %s, but the second body differs from the first", same, first)
	}
	return Pass, fmt.Sprintf("%s: both answers were %s, the second marked Idempotent-Replayed: true", same, first)
}

func checkNewKey(ctx context.Context, c *client) (Result, string) {
	const sent = "sent one body under two new keys"
	a := c.do(ctx, request{key: newKey(), body: c.cfg.Body})
	b := c.do(ctx, request{key: newKey(), body: c.cfg.Body})
	switch {
	case !a.ok() || !b.ok():
		return Fail, fmt.Sprintf("%s: %s, then %s: a key not seen before must be carried out", sent, a, b)
	case a.ID == b.ID:
		return Fail, fmt.Sprintf("%s: both got id %q: the server matched the requests by their body, not their key, so two alike payments become one", sent, a.ID)
	}
	return Pass, fmt.Sprintf("%s: two resources, %q and %q", sent, a.ID, b.ID)
}

func checkConcurrent(ctx context.Context, c *client) (Result, string) {
	n := c.cfg.Concurrency
	r := request{key: newKey(), body: c.cfg.Body}
	answers := c.burst(ctx, r, n)
	after := c.do(ctx, r) // once every request of the burst was answered
	sent := fmt.Sprintf("sent %d requests with one key and body at once", n)

	var ids []string
	// created counts the 2xx answers not marked as replays, replays the
	// 2xx answers but one, the resource's own.
	var created, replays, conflicts, noRetryAfter, limited int
	var other []string
	for _, a := range answers {
		switch {
		case a.ok():
			if !slices.Contains(ids, a.ID) {
				ids = append(ids, a.ID)
			} else {
				replays++
			}
			if !a.Replayed {
				created++
			}
		case a.Err == nil && a.Status == 409:
			conflicts++
			if a.RetryAfter == "" {
				noRetryAfter++
			}
		case a.Err == nil && a.Status == 429:
			limited++
		default:
			other = append(other, a.String())
		}
	}
	counts := fmt.Sprintf("(409: %d, replays: %d)", conflicts, replays)
	switch {
	case len(other) > 0:
		return Fail, fmt.Sprintf("%s: %s %s; a duplicate may only get a 409 or a replay", sent, summarize(other), counts)
	case len(ids) > 1:
		return Fail, fmt.Sprintf("%s: the 2xx answers carried %d different ids, so the request ran at least %d times", sent, len(ids), len(ids))
	case len(ids) == 0 && !after.ok():
		return Fail, fmt.Sprintf("%s: no answer created anything %s, and a retry afterwards got %s", sent, counts, after)
	case len(ids) == 0:
		return Fail, fmt.Sprintf("%s: no answer created anything %s, yet a retry afterwards got %s", sent, counts, after)
	case !after.ok() || after.ID != ids[0]:
		return Fail, fmt.Sprintf("%s: one resource, %q, but a retry afterwards got %s", sent, ids[0], after)
	case created > 1 && after.Replayed:
		return Fail, fmt.Sprintf("%s: every 2xx answer had id %q, but %d of them were not marked as replays (a later retry was): the request ran %d times, where a duplicate in flight gets 409",
			sent, ids[0], created, created)
	}
	ok := fmt.Sprintf("%s: one resource, %q; the other %d answers refused or replayed it %s, and so did a retry afterwards", sent, ids[0], n-1, counts)
	switch {
	case noRetryAfter > 0:
		return Warn, fmt.Sprintf("%s, but %d of the 409s had no Retry-After to say when to try again", ok, noRetryAfter)
	case limited > 0:
		return Warn, fmt.Sprintf("%s, but %d were 429, so fewer requests raced than were sent", ok, limited)
	}
	return Pass, ok
}

// summarize counts alike answers: "3 answers were 500, 1 was no answer
// (...)".
func summarize(answers []string) string {
	var parts []string
	var seen []string
	for _, a := range answers {
		if slices.Contains(seen, a) {
			continue
		}
		seen = append(seen, a)
		n := 0
		for _, b := range answers {
			if b == a {
				n++
			}
		}
		if n == 1 {
			parts = append(parts, "1 answer was "+a)
		} else {
			parts = append(parts, fmt.Sprintf("%d answers were %s", n, a))
		}
	}
	return strings.Join(parts, ", ")
}

func checkMismatch(ctx context.Context, c *client) (Result, string) {
	const sent = "sent a key with one body, then with another"
	key := newKey()
	first := c.do(ctx, request{key: key, body: c.cfg.Body})
	if !first.ok() {
		return Fail, fmt.Sprintf("%s: the first body got %s, so there was nothing to mismatch", sent, first)
	}
	other := c.do(ctx, request{key: key, body: c.cfg.OtherBody})
	switch {
	case other.ok() && other.ID == first.ID:
		return Fail, fmt.Sprintf("%s: the other body got %s, the first body's resource: the server ignored the body, so a changed request looks done", sent, other)
	case other.ok():
		return Fail, fmt.Sprintf("%s: the other body got %s: one key made two resources", sent, other)
	case other.Err != nil || other.Status < 400 || other.Status >= 500:
		return Fail, fmt.Sprintf("%s: the other body got %s where a 422 was due", sent, other)
	}
	again := c.do(ctx, request{key: key, body: c.cfg.Body})
	refused := fmt.Sprint(other.Status)
	if other.Status != 422 {
		refused += " (the draft's answer is 422)"
	}
	if !again.ok() || again.ID != first.ID {
		return Fail, fmt.Sprintf("%s (%s), then the first again: %s, not the first resource, %q: the refused request changed what the key holds", sent, refused, again, first.ID)
	}
	return Pass, fmt.Sprintf("%s: %s, and the first body still got %q", sent, refused, first.ID)
}

func checkScope(ctx context.Context, c *client) (Result, string) {
	const sent = "sent one key and body from two accounts"
	if c.hdrAuth {
		return Warn, "sent nothing: Authorization comes from --header, so the checker cannot act as a second account"
	}
	r := request{key: newKey(), body: c.cfg.Body}
	first := c.do(ctx, r)
	if !first.ok() {
		return Fail, fmt.Sprintf("%s: the first account got %s, so there was nothing to compare", sent, first)
	}
	r.account = 1
	second := c.do(ctx, r)
	switch {
	case second.ok() && second.ID == first.ID:
		return Fail, fmt.Sprintf("%s: the second account got the first account's resource, %q: the key is shared across accounts", sent, first.ID)
	case second.ok() && string(second.Body) == string(first.Body):
		return Fail, fmt.Sprintf("%s: the second account got the first account's answer, byte for byte: the key is shared across accounts", sent)
	case second.ok():
		return Pass, fmt.Sprintf("%s: each got a resource of its own, %q and %q", sent, first.ID, second.ID)
	case second.Err == nil && (second.Status == 401 || second.Status == 403):
		return Warn, fmt.Sprintf("%s: the second account's token was refused with %d, so scope could not be checked (give --other-token a second account's token)", sent, second.Status)
	case second.Err == nil && second.Status >= 400 && second.Status < 500:
		return Fail, fmt.Sprintf("%s: the second account got %d: the first account's use of the key blocks another account's", sent, second.Status)
	}
	return Fail, fmt.Sprintf("%s: the second account got %s", sent, second)
}

// badKeys are keys a server should refuse, each named as the check's
// sentence says it: one too long for Stripe, and two outside the draft's
// syntax, a structured-field string of printable ASCII.
func badKeys() []struct{ name, key string } {
	k := newKey()
	return []struct{ name, key string }{
		// 36 characters of UUID, a hyphen, and 219 zeros: 256, one more
		// than Stripe takes.
		{"256 characters", k + "-" + strings.Repeat("0", 219)},
		{"a tab", k[:8] + "\t" + k[9:]},
		{"an é", k[:8] + "é" + k[9:]},
	}
}

func checkKeySyntax(ctx context.Context, c *client) (Result, string) {
	keys := badKeys()
	var names, refused, taken []string
	for _, k := range keys {
		names = append(names, k.name)
		a := c.do(ctx, request{key: k.key, body: c.cfg.Body})
		if a.Err == nil && a.Status >= 400 && a.Status < 500 && a.ID == "" {
			refused = append(refused, fmt.Sprint(a.Status))
		} else {
			taken = append(taken, k.name+" got "+a.String())
		}
	}
	sent := fmt.Sprintf("sent %d keys a server should refuse (%s)", len(keys), strings.Join(names, ", "))
	if len(taken) > 0 {
		return Fail, fmt.Sprintf("%s: %s: keys to refuse were carried out", sent, strings.Join(taken, "; "))
	}
	return Pass, fmt.Sprintf("%s: refused with %s, nothing created", sent, strings.Join(refused, ", "))
}

func checkMissingKey(ctx context.Context, c *client) (Result, string) {
	const sent = "sent the body with no Idempotency-Key"
	a := c.do(ctx, request{body: c.cfg.Body})
	switch {
	case a.Err == nil && a.Status == 400:
		return Pass, sent + ": 400, nothing created"
	case a.ok():
		return Warn, fmt.Sprintf("%s: %s: the key is optional, so a client that forgets it has no protection against a double charge", sent, a)
	case a.Err == nil && a.Status > 400 && a.Status < 500:
		return Warn, fmt.Sprintf("%s: refused with %d, where the draft's answer is 400", sent, a.Status)
	}
	return Fail, fmt.Sprintf("%s: %s, where a 400 was due", sent, a)
}

func checkValidation(ctx context.Context, c *client) (Result, string) {
	const sent = "sent a new key with a body that is not JSON, then with the real body"
	key := newKey()
	bad := c.do(ctx, request{key: key, body: []byte("{")})
	if bad.Err != nil || bad.Status < 400 || bad.Status >= 500 {
		return Warn, fmt.Sprintf("%s: the body that is not JSON got %s, not a refusal, so the check had nothing to test", sent, bad)
	}
	good := c.do(ctx, request{key: key, body: c.cfg.Body})
	switch {
	case good.ok():
		return Pass, fmt.Sprintf("%s: %d, then %s: the refusal was not saved", sent, bad.Status, good)
	case good.Err == nil && good.Status >= 400 && good.Status < 500:
		return Warn, fmt.Sprintf("%s: %d, then %d: the refusal was kept, so a corrected request needs a new key", sent, bad.Status, good.Status)
	}
	return Fail, fmt.Sprintf("%s: %d, then %s", sent, bad.Status, good)
}

func checkExpiry(ctx context.Context, c *client) (Result, string) {
	ttl := c.cfg.TTL
	m := ttlMargin(ttl)
	r := request{key: newKey(), body: c.cfg.Body}
	first := c.do(ctx, r)
	if !first.ok() {
		return Fail, fmt.Sprintf("sent a key: %s, so there was nothing to expire", first)
	}
	t0 := time.Now()
	sent := fmt.Sprintf("sent a key, then again %v and %v after its answer (--ttl %v)", ttl-m, ttl+m, ttl)
	wait := func(d time.Duration) bool {
		select {
		case <-time.After(time.Until(t0.Add(d))):
			return true
		case <-ctx.Done():
			return false
		}
	}
	if !wait(ttl - m) {
		return Fail, fmt.Sprintf("%s: stopped waiting: %v", sent, ctx.Err())
	}
	before := c.do(ctx, r)
	if !before.ok() || before.ID != first.ID {
		return Fail, fmt.Sprintf("%s: the first retry got %s, not the first resource, %q: the key was forgotten before its TTL ended", sent, before, first.ID)
	}
	if !wait(ttl + m) {
		return Fail, fmt.Sprintf("%s: stopped waiting: %v", sent, ctx.Err())
	}
	after := c.do(ctx, r)
	switch {
	case after.ok() && after.ID != first.ID:
		return Pass, fmt.Sprintf("%s: the first retry got %q again, the second a new resource, %q", sent, first.ID, after.ID)
	case after.ok():
		return Warn, fmt.Sprintf("%s: both retries got %q: the key is remembered longer than --ttl says", sent, first.ID)
	case after.Err == nil && after.Status >= 400 && after.Status < 500:
		return Warn, fmt.Sprintf("%s: the first retry got %q again, the second %d: an expired key is refused rather than taken as new", sent, first.ID, after.Status)
	}
	return Fail, fmt.Sprintf("%s: the first retry got %q again, the second %s", sent, first.ID, after)
}
