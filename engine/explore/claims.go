package explore

import (
	"math"
	"slices"
	"time"

	"github.com/retrylab/retrylab/engine/backoff"
	"github.com/retrylab/retrylab/engine/budget"
	"github.com/retrylab/retrylab/engine/cas"
	"github.com/retrylab/retrylab/engine/guard"
	"github.com/retrylab/retrylab/engine/lease"
	"github.com/retrylab/retrylab/engine/lock"
	"github.com/retrylab/retrylab/engine/ordering"
	"github.com/retrylab/retrylab/engine/outbox"
	"github.com/retrylab/retrylab/engine/payment"
	"github.com/retrylab/retrylab/engine/saga"
	"github.com/retrylab/retrylab/engine/sentmarker"
	"github.com/retrylab/retrylab/engine/sim"
	"github.com/retrylab/retrylab/engine/storm"
	"github.com/retrylab/retrylab/engine/stream"
	"github.com/retrylab/retrylab/engine/webhook"
)

// Claims are the chapters' claims about every model, by model in the
// order of engine/models.All.
var Claims = []Claim{
	// content/double-charge.md
	paymentClaim("per-intent-once", "one key per intent, sent with every retry: one charge, and the receipt is that charge, whatever the network loses or delays",
		func(r *sim.Rand, p *payment.Params) {
			p.Keys = payment.KeysPerIntent
			drawFaults(r, p)
		},
		func(p payment.Params, r *payment.Result) error {
			if len(r.Charges) > 1 {
				return errorf("%d charges with one key per intent", len(r.Charges))
			}
			if r.Receipt != "" && r.Receipt != r.Charges[0].ID {
				return errorf("the receipt is %s, the charge %s", r.Receipt, r.Charges[0].ID)
			}
			return nil
		},
		func(r *sim.Rand, p *payment.Params) { p.Keys = payment.KeysOff }),
	paymentClaim("unkeyed-charges-each", "without a key, or with a fresh key per attempt, the server charges every request it receives",
		func(r *sim.Rand, p *payment.Params) {
			p.Keys = pick(r, []payment.Keys{payment.KeysOff, payment.KeysPerAttempt})
			drawFaults(r, p)
		},
		func(p payment.Params, r *payment.Result) error {
			if got := r.Attempts - r.Trace.Count(payment.EvRequestLost); len(r.Charges) != got {
				return errorf("%d charges for %d requests received", len(r.Charges), got)
			}
			return nil
		},
		func(r *sim.Rand, p *payment.Params) { p.Keys = payment.KeysPerIntent }),

	// content/concurrent-duplicates.md
	guardClaim("claim-once", "claiming the key first gives 1 row and 1 charge, every run: one 201, the others 409 or the saved 201 replayed, a retry afterwards replays it and another amount is a 422",
		func(r *sim.Rand, p *guard.Params) {
			p.Strategy = guard.ClaimBeforeWork
			drawBurst(r, p)
		},
		func(p guard.Params, r *guard.Result) error {
			if r.Rows != 1 || r.Charges != 1 {
				return errorf("%d rows and %d charges", r.Rows, r.Charges)
			}
			fresh, paid := 0, ""
			for _, a := range r.Answers {
				switch {
				case a.Status == 201 && !a.Replayed:
					fresh, paid = fresh+1, a.Payment
				case a.Status == 201 || a.Status == 409:
				default:
					return errorf("a duplicate was answered %d", a.Status)
				}
			}
			if fresh != 1 {
				return errorf("%d fresh 201s", fresh)
			}
			if a := r.Retry; a.Status != 201 || !a.Replayed || a.Payment != paid || a.Charged {
				return errorf("the retry afterwards got %+v, want %s replayed", a, paid)
			}
			if r.Other.Status != 422 || r.Other.Charged {
				return errorf("the same key with another amount got %+v, want 422", r.Other)
			}
			return nil
		},
		func(r *sim.Rand, p *guard.Params) { p.Strategy = guard.CheckThenInsert }),
	guardClaim("constraint-charges-all", "a unique index after the charge keeps 1 row and lets every request's charge through, whatever the interleaving",
		func(r *sim.Rand, p *guard.Params) {
			p.Strategy = guard.ConstraintAfterCharge
			drawBurst(r, p)
		},
		func(p guard.Params, r *guard.Result) error {
			if r.Rows != 1 || r.Charges != p.N {
				return errorf("%d rows and %d charges for %d requests", r.Rows, r.Charges, p.N)
			}
			return nil
		},
		func(r *sim.Rand, p *guard.Params) { p.Strategy = guard.ClaimBeforeWork }),
	guardClaim("check-then-insert-lockstep", "check-then-insert charges once per request that checks before the first insert: in lockstep, every request, in any order",
		func(r *sim.Rand, p *guard.Params) {
			p.Strategy = guard.CheckThenInsert
			drawBurst(r, p)
			p.Spread = 0
		},
		func(p guard.Params, r *guard.Result) error {
			if r.Rows != p.N || r.Charges != p.N {
				return errorf("%d rows and %d charges for %d requests in lockstep", r.Rows, r.Charges, p.N)
			}
			return nil
		},
		func(r *sim.Rand, p *guard.Params) { p.Spread = between(r, 1, 10) }),

	// content/isolation-levels.md
	guardClaimIn("isolation-levels", "serializable-one-row", "check-then-insert at serializable keeps 1 row whatever the interleaving, but each transaction refused with 40001 had charged first: a charge for the winner and one per 40001, 20 in lockstep for 20, and every retry replays the row",
		func(r *sim.Rand, p *guard.Params) {
			p.Strategy, p.Isolation = guard.CheckThenInsert, guard.Serializable
			drawBurst(r, p)
		},
		func(p guard.Params, r *guard.Result) error {
			if r.Rows != 1 || r.Charges != 1+r.Aborts {
				return errorf("%d rows, %d charges, %d 40001s", r.Rows, r.Charges, r.Aborts)
			}
			if p.Spread == 0 && r.Charges != p.N {
				return errorf("%d charges for %d requests in lockstep", r.Charges, p.N)
			}
			for i, a := range r.Answers {
				if a.Aborted && (!a.Charged || !a.Replayed || a.Status != 201) {
					return errorf("request %d, refused with 40001, answered %+v", i+1, a)
				}
			}
			return nil
		},
		func(r *sim.Rand, p *guard.Params) {
			p.Isolation = pick(r, []guard.Isolation{guard.ReadCommitted, guard.RepeatableRead})
		}),
	guardClaimIn("isolation-levels", "weaker-levels-row-per-charge", "at read committed and repeatable read check-then-insert is refused nothing: a row per charge, as without a transaction",
		func(r *sim.Rand, p *guard.Params) {
			p.Strategy = guard.CheckThenInsert
			p.Isolation = pick(r, []guard.Isolation{guard.ReadCommitted, guard.RepeatableRead})
			drawBurst(r, p)
		},
		func(p guard.Params, r *guard.Result) error {
			if r.Rows != r.Charges || r.Aborts != 0 {
				return errorf("%d rows, %d charges, %d 40001s", r.Rows, r.Charges, r.Aborts)
			}
			return nil
		},
		func(r *sim.Rand, p *guard.Params) { p.Isolation = guard.Serializable }),

	// content/redis-key-store.md
	// The lock must outlive the last retry too: the recipe takes the
	// lock before it reads the result, so a retry after the lock expired
	// charges again (the chapter's "A lock shorter than the work").
	lockClaim("setnx-once", "a SET NX lock that outlives the work and the last retry, with no crash, no eviction and a store that is up or fails closed, charges once at most, for duplicates in any order",
		func(r *sim.Rand, p *lock.Params) {
			p.Guard = lock.SetNX
			drawSenders(r, p)
			p.Work = seconds(r, 0, 600)
			if r.Intn(3) == 0 {
				p.Store, p.OnDown = lock.Down, lock.FailClosed
				p.Outage = seconds(r, 1, 600)
			}
			// Every send is within Attempts - 1 waits of Timeout + Retry
			// of the first, and the lock is taken at a send.
			last := time.Duration(p.Attempts-1) * (p.Timeout + p.Retry)
			p.LockTTL = max(p.Work, last) + seconds(r, 1, 100)
		},
		func(p lock.Params, r *lock.Result) error {
			if r.Charges > 1 {
				return errorf("%d charges", r.Charges)
			}
			return nil
		},
		func(r *sim.Rand, p *lock.Params) { p.LockTTL = seconds(r, 1, 300) }),
	lockClaim("get-then-set-races", "GET then SET with the work between: duplicates at the same instant all find nothing, and every one charges (a retry while the work runs charges again)",
		func(r *sim.Rand, p *lock.Params) {
			p.Guard = lock.GetThenSet
			drawSenders(r, p)
			p.Work = seconds(r, 1, 1000)
		},
		func(p lock.Params, r *lock.Result) error {
			if r.Charges < p.Dupes {
				return errorf("%d charges for %d duplicates", r.Charges, p.Dupes)
			}
			return nil
		},
		func(r *sim.Rand, p *lock.Params) { p.Work = 0 }),

	// content/duplicates-from-infrastructure.md
	// One sender is the proxy: its timeout is the per-try timeout, its
	// attempts the first and the retries, and its wait the backoff. The
	// second attempt is sent before the first charge ends.
	lockClaimIn("duplicates-from-infrastructure", "per-try-timeout-charges-again", "a per-try timeout shorter than the work sends the request again while the first still runs: with no guard, or GET then SET, the card is charged at least twice, and at most once per attempt",
		func(r *sim.Rand, p *lock.Params) {
			p.Guard = pick(r, []lock.Guard{lock.None, lock.GetThenSet})
			p.Dupes = 1
			p.Work = seconds(r, 2, 600)
			p.Timeout = seconds(r, 1, int(p.Work/time.Second)-1)
			p.Retry = seconds(r, 0, int((p.Work-p.Timeout)/time.Second)-1)
			p.Attempts = between(r, 2, 10)
		},
		func(p lock.Params, r *lock.Result) error {
			if r.Charges < 2 || r.Charges > p.Attempts {
				return errorf("%d charges for %d attempts", r.Charges, p.Attempts)
			}
			return nil
		},
		func(r *sim.Rand, p *lock.Params) { p.Timeout = p.Work + seconds(r, 1, 60) }),

	// content/leases-and-recovery.md
	leaseClaim("takeover-once", "with recovery points a takeover resumes after the last one: whatever the crash, the lease and the retry, one payment, one charge, and the client's 201 names it",
		func(r *sim.Rand, p *lease.Params) {
			drawLease(r, p)
			p.Recovery = true
		},
		func(p lease.Params, r *lease.Result) error {
			if r.Charges != 1 || r.Payments != 1 || r.Receipt != "ch_1" {
				return errorf("%d charges, %d payments, receipt %q", r.Charges, r.Payments, r.Receipt)
			}
			return nil
		},
		func(r *sim.Rand, p *lease.Params) { p.Recovery = false }),
	leaseClaim("done-never-taken", "an answer saved before the crash is replayed to any retry, inside the lease or after it: a done key is never taken over",
		func(r *sim.Rand, p *lease.Params) {
			drawLease(r, p)
			p.Crash = lease.AfterSaving
		},
		func(p lease.Params, r *lease.Result) error {
			if r.Charges != 1 || r.Retry != "replay" || r.Receipt != "ch_1" {
				return errorf("%d charges, the retry got %s, receipt %q", r.Charges, r.Retry, r.Receipt)
			}
			return nil
		},
		func(r *sim.Rand, p *lease.Params) {
			p.Crash = pick(r, []lease.Crash{lease.BeforeCharge, lease.AfterCharge, lease.Pauses})
		}),

	// content/sagas.md
	sagaClaim("keys-leave-nothing", "with keys on every call and every undo, a resumed saga never books twice: compensated, every done step is undone and nothing is left in place; completed, each step is done once",
		func(r *sim.Rand, p *saga.Params) {
			steps := append([]saga.Step{saga.None}, saga.Steps...)
			p.Fail, p.CrashAfter, p.Keys = pick(r, steps), pick(r, steps), true
		},
		func(p saga.Params, r *saga.Result) error {
			for i, e := range r.Effects {
				switch {
				case e.Done > 1 || e.Undone > 1:
					return errorf("%s done %d times and undone %d", saga.Steps[i], e.Done, e.Undone)
				case r.Outcome == "compensated" && e.Done != e.Undone:
					return errorf("compensated, and %s is done %d times, undone %d (%d left in place)", saga.Steps[i], e.Done, e.Undone, r.Stray)
				case r.Outcome == "completed" && (e.Done != 1 || e.Undone != 0):
					return errorf("completed, and %s is done %d times, undone %d", saga.Steps[i], e.Done, e.Undone)
				}
			}
			if r.Stray != 0 {
				return errorf("%d effects left in place", r.Stray)
			}
			return nil
		},
		func(r *sim.Rand, p *saga.Params) { p.Keys = false }),

	// content/outbox-and-inbox.md
	outboxClaim("inbox-once", "the outbox publishes every order's event at least once, a crash of the relay at most twice, and the inbox sends one email per order",
		func(r *sim.Rand, p *outbox.Params) {
			p.Orders, p.RelayCrash, p.Inbox = between(r, 1, outbox.MaxOrders), r.Intn(2) == 0, true
		},
		func(p outbox.Params, r *outbox.Result) error {
			if r.Published < p.Orders || r.Published > p.Orders+1 || r.Emails != p.Orders {
				return errorf("%d orders: %d published, %d emails", p.Orders, r.Published, r.Emails)
			}
			return nil
		},
		func(r *sim.Rand, p *outbox.Params) { p.Inbox = false }),
	outboxClaim("no-inbox-emails-each", "without an inbox the consumer sends an email for every message on the broker",
		func(r *sim.Rand, p *outbox.Params) {
			p.Orders, p.RelayCrash, p.Inbox = between(r, 1, outbox.MaxOrders), r.Intn(2) == 0, false
		},
		func(p outbox.Params, r *outbox.Result) error {
			if r.Emails != r.Published {
				return errorf("%d published, %d emails", r.Published, r.Emails)
			}
			return nil
		},
		func(r *sim.Rand, p *outbox.Params) { p.Inbox = true }),

	// content/ordering-and-watermarks.md
	orderingClaim("version-guard-newest", "a version guard on event time ends on the newest event's plan, whatever the order of arrival and the repeats",
		func(r *sim.Rand, p *ordering.Params) {
			p.Strategy = ordering.VersionGuard
			drawArrival(r, p)
		},
		func(p ordering.Params, r *ordering.Result) error {
			if !r.Correct {
				return errorf("the plan ends on %s", r.Plan)
			}
			return nil
		},
		func(r *sim.Rand, p *ordering.Params) {
			p.Strategy = pick(r, []ordering.Strategy{ordering.NoGuard, ordering.Dedupe})
		}),
	orderingClaim("dedupe-once", "dedupe applies each event once at most, and skips every repeat",
		func(r *sim.Rand, p *ordering.Params) {
			p.Strategy = ordering.Dedupe
			drawArrival(r, p)
		},
		func(p ordering.Params, r *ordering.Result) error {
			seen := map[string]bool{}
			for _, id := range r.Applied {
				if seen[id] {
					return errorf("%s applied twice: %v", id, r.Applied)
				}
				seen[id] = true
			}
			if len(r.Applied)+r.Skipped != len(p.Arrival) {
				return errorf("%d applied and %d skipped of %d deliveries", len(r.Applied), r.Skipped, len(p.Arrival))
			}
			return nil
		},
		func(r *sim.Rand, p *ordering.Params) { p.Strategy = ordering.NoGuard }),

	// content/side-effects.md
	sentMarkerClaim("marker-once", "with the sent marker, the redelivered job sends nothing again, unless the crash falls between the send and the marker",
		func(r *sim.Rand, p *sentmarker.Params) {
			p.Marker, p.Crash = true, pick(r, sentmarker.Crashes)
		},
		func(p sentmarker.Params, r *sentmarker.Result) error {
			want := 1
			if p.Crash == sentmarker.BeforeMarker {
				want = 2
			}
			if r.Sent != want {
				return errorf("%d messages sent, want %d", r.Sent, want)
			}
			return nil
		},
		func(r *sim.Rand, p *sentmarker.Params) { p.Marker = false }),

	// content/receiving-webhooks.md
	webhookClaim("defended-once", "checking the signature, recording the event id before answering and keeping ids longer than the timestamp tolerance: order 1 is fulfilled once and nothing forged ships, whatever is lost, however long the work takes",
		func(r *sim.Rand, p *webhook.Params) {
			p.Signature, p.Dedupe, p.Reply = true, true, webhook.BeforeWork
			p.Keep = between(r, 1, 720)
			p.Tolerance = seconds(r, 1, min(p.Keep*3600-1, 604800))
			p.Work, p.Lost = seconds(r, 1, 120), r.Intn(2) == 0
		},
		func(p webhook.Params, r *webhook.Result) error {
			if r.Fulfilled != 1 || r.Forged != 0 {
				return errorf("order 1 fulfilled %d times, %d forged orders shipped", r.Fulfilled, r.Forged)
			}
			return nil
		},
		func(r *sim.Rand, p *webhook.Params) {
			switch r.Intn(3) {
			case 0:
				p.Signature = false
			case 1:
				p.Dedupe = false
			default:
				p.Tolerance = 0
				p.Keep = between(r, 1, int(webhook.ReplayAt/time.Hour))
			}
		}),
	webhookClaim("work-then-answer", "working before the answer, with the id recorded when the work commits: order 1 is fulfilled once if the work ends by the sender's retry, 70 s in, and twice if it ends later",
		func(r *sim.Rand, p *webhook.Params) {
			p.Reply, p.Dedupe = webhook.AfterWork, true
			p.Work, p.Lost = seconds(r, 1, 120), r.Intn(2) == 0
		},
		func(p webhook.Params, r *webhook.Result) error {
			want := 1
			if p.Work > webhook.Timeout+webhook.FirstRetry {
				want = 2
			}
			if r.Fulfilled != want {
				return errorf("order 1 fulfilled %d times after %v of work, want %d", r.Fulfilled, p.Work, want)
			}
			return nil
		},
		func(r *sim.Rand, p *webhook.Params) { p.Dedupe = false }),

	// content/exactly-once-in-streams.md
	streamClaim("committed-once", "a transactional processor and a read_committed consumer: the consumer reads each order's result once, whatever the sink does",
		func(r *sim.Rand, p *stream.Params) {
			p.Producer, p.Isolation, p.Dedupe = stream.Transactional, stream.ReadCommitted, r.Intn(2) == 0
		},
		func(p stream.Params, r *stream.Result) error {
			if r.Records != stream.Orders || r.Seen != [stream.Orders]int{1, 1, 1} {
				return errorf("the consumer read %d records, %v by order", r.Records, r.Seen)
			}
			return nil
		},
		func(r *sim.Rand, p *stream.Params) {
			if r.Intn(2) == 0 {
				p.Isolation = stream.ReadUncommitted
			} else {
				p.Producer = []stream.Producer{stream.Plain, stream.Idempotent}[r.Intn(2)]
			}
		}),
	streamClaim("keyed-once", "emails keyed by order id: one email per order, whatever the producer and the isolation level",
		func(r *sim.Rand, p *stream.Params) {
			p.Producer = stream.Producers[r.Intn(len(stream.Producers))]
			p.Isolation = stream.Isolations[r.Intn(len(stream.Isolations))]
			p.Dedupe = true
		},
		func(p stream.Params, r *stream.Result) error {
			if r.Effects != stream.Orders || r.ByOrder != [stream.Orders]int{1, 1, 1} {
				return errorf("%d emails, %v by order", r.Effects, r.ByOrder)
			}
			return nil
		},
		func(r *sim.Rand, p *stream.Params) { p.Dedupe = false }),

	// content/idempotent-by-design.md
	casClaim("cas-once", "with the version in the UPDATE, whatever the number of retries, only the first call changes anything: one shipment, version 8",
		func(r *sim.Rand, p *cas.Params) { p.Calls, p.CAS = between(r, 1, 10), true },
		func(p cas.Params, r *cas.Result) error {
			if r.Shipments != 1 || r.Version != cas.Read+1 {
				return errorf("%d shipments, version %d", r.Shipments, r.Version)
			}
			for i, n := range r.Updated {
				if (i == 0) != (n == 1) || n > 1 {
					return errorf("rows changed per call %v", r.Updated)
				}
			}
			return nil
		},
		func(r *sim.Rand, p *cas.Params) { p.CAS = false }),
	casClaim("no-cas-ships-each", "without the condition, every call ships the order again",
		func(r *sim.Rand, p *cas.Params) { p.Calls, p.CAS = between(r, 1, 10), false },
		func(p cas.Params, r *cas.Result) error {
			if r.Shipments != p.Calls {
				return errorf("%d shipments for %d calls", r.Shipments, p.Calls)
			}
			return nil
		},
		func(r *sim.Rand, p *cas.Params) { p.CAS = true }),

	// content/retry-budgets.md
	budgetClaim("budget-bounds-retries", "a retry budget caps the retries at the bank and the tokens the requests earn, however many retries each may make",
		func(r *sim.Rand, p *budget.Params) {
			drawBudget(r, p)
			p.Budget = true
		},
		func(p budget.Params, r *budget.Result) error {
			if limit := p.Bank + p.Ratio*float64(p.Requests); float64(r.Retries) > limit+1e-9 {
				return errorf("%d retries, more than the bank %g and %d requests' %g tokens", r.Retries, p.Bank, p.Requests, p.Ratio)
			}
			if r.Calls != p.Requests+r.Retries || r.Retries > p.Requests*p.Retries {
				return errorf("%d calls, %d retries for %d requests", r.Calls, r.Retries, p.Requests)
			}
			return nil
		},
		func(r *sim.Rand, p *budget.Params) { p.Budget = false }),
	budgetClaim("no-budget-multiplies", "without a budget, a failing upstream gets every request's every retry: requests × (1 + retries) calls",
		func(r *sim.Rand, p *budget.Params) {
			drawBudget(r, p)
			p.Budget = false
		},
		func(p budget.Params, r *budget.Result) error {
			if want := p.Requests * (1 + p.Retries); r.Calls != want {
				return errorf("%d calls, want %d", r.Calls, want)
			}
			return nil
		},
		func(r *sim.Rand, p *budget.Params) { p.Budget = true }),

	// content/metastable-failure.md
	stormClaim("skip-expired-wastes-nothing", "skipping expired work spends no capacity on a client that gave up, and no second serves more than the capacity",
		func(r *sim.Rand, p *storm.Params) {
			drawStorm(r, p)
			p.SkipExpired = true
		},
		func(p storm.Params, r *storm.Result) error {
			for t, w := range r.Wasted {
				if w != 0 {
					return errorf("second %d: %d served after their client gave up", t, w)
				}
			}
			for t, g := range r.Goodput {
				if g > p.Capacity {
					return errorf("second %d: goodput %d above the capacity %d", t, g, p.Capacity)
				}
			}
			return nil
		},
		func(r *sim.Rand, p *storm.Params) { p.SkipExpired = false }),
	stormClaim("budget-tenth", "a retry budget of 10% holds the retries to a tenth of the new requests and the bucket's 10 tokens",
		func(r *sim.Rand, p *storm.Params) {
			drawStorm(r, p)
			p.Budget = true
		},
		func(p storm.Params, r *storm.Result) error {
			fresh := p.New * p.Seconds
			if retries := r.Calls - fresh; float64(retries) > 10+0.1*float64(fresh)+1e-9 {
				return errorf("%d retries for %d new requests", retries, fresh)
			}
			return nil
		},
		func(r *sim.Rand, p *storm.Params) { p.Budget = false }),

	// content/backoff-and-jitter.md
	backoffClaim("served-once", "whatever the policy, every client is served once in the end: each busy slot serves up to its capacity, and the rest retry",
		func(r *sim.Rand, p *backoff.Params) { drawHerd(r, p) },
		func(p backoff.Params, r *backoff.Result) error {
			served, calls := 0, 0
			for _, n := range r.PerSlot {
				served += min(n, p.Capacity)
				calls += n
			}
			if served != p.Clients || calls != r.Calls {
				return errorf("%d served of %d clients, %d calls in the slots of %d", served, p.Clients, calls, r.Calls)
			}
			return nil
		},
		nil),
	backoffClaim("none-ignores-seed", "without jitter the herd retries in waves that no seed changes",
		func(r *sim.Rand, p *backoff.Params) {
			drawHerd(r, p)
			p.Policy = backoff.None
		},
		func(p backoff.Params, r *backoff.Result) error {
			p.Seed++
			other, err := backoff.Run(p)
			if err != nil {
				return err
			}
			if other.Calls != r.Calls || other.LastServed != r.LastServed || !slices.Equal(other.PerSlot, r.PerSlot) {
				return errorf("seed %d: %d calls, seed %d: %d", p.Seed-1, r.Calls, p.Seed, other.Calls)
			}
			return nil
		},
		func(r *sim.Rand, p *backoff.Params) {
			p.Policy = pick(r, []backoff.Policy{backoff.Full, backoff.Equal, backoff.Decorrelated})
		}),
}

// The claims of each model, with its binding, run and schedule.

func paymentClaim(name, says string, draw func(*sim.Rand, *payment.Params), holds func(payment.Params, *payment.Result) error, outside func(*sim.Rand, *payment.Params)) Claim {
	return claim("payment", name, "double-charge", says, payment.Binding, payment.Run,
		func(p *payment.Params, s uint64) { p.Schedule = s }, func(r *payment.Result) sim.Trace { return r.Trace }, draw, holds, outside)
}

func guardClaim(name, says string, draw func(*sim.Rand, *guard.Params), holds func(guard.Params, *guard.Result) error, outside func(*sim.Rand, *guard.Params)) Claim {
	return guardClaimIn("concurrent-duplicates", name, says, draw, holds, outside)
}

// guardClaimIn is a claim about the guard model that another chapter makes.
func guardClaimIn(chapter, name, says string, draw func(*sim.Rand, *guard.Params), holds func(guard.Params, *guard.Result) error, outside func(*sim.Rand, *guard.Params)) Claim {
	return claim("guard", name, chapter, says, guard.Binding, guard.Run,
		func(p *guard.Params, s uint64) { p.Schedule = s }, func(r *guard.Result) sim.Trace { return r.Trace }, draw, holds, outside)
}

func lockClaim(name, says string, draw func(*sim.Rand, *lock.Params), holds func(lock.Params, *lock.Result) error, outside func(*sim.Rand, *lock.Params)) Claim {
	return lockClaimIn("redis-key-store", name, says, draw, holds, outside)
}

// lockClaimIn is a claim about the lock model that another chapter makes.
func lockClaimIn(chapter, name, says string, draw func(*sim.Rand, *lock.Params), holds func(lock.Params, *lock.Result) error, outside func(*sim.Rand, *lock.Params)) Claim {
	return claim("lock", name, chapter, says, lock.Binding, lock.Run,
		func(p *lock.Params, s uint64) { p.Schedule = s }, func(r *lock.Result) sim.Trace { return r.Trace }, draw, holds, outside)
}

func leaseClaim(name, says string, draw func(*sim.Rand, *lease.Params), holds func(lease.Params, *lease.Result) error, outside func(*sim.Rand, *lease.Params)) Claim {
	return claim("lease", name, "leases-and-recovery", says, lease.Binding, lease.Run,
		func(p *lease.Params, s uint64) { p.Schedule = s }, func(r *lease.Result) sim.Trace { return r.Trace }, draw, holds, outside)
}

func sagaClaim(name, says string, draw func(*sim.Rand, *saga.Params), holds func(saga.Params, *saga.Result) error, outside func(*sim.Rand, *saga.Params)) Claim {
	return claim("saga", name, "sagas", says, saga.Binding, saga.Run, nil, func(r *saga.Result) sim.Trace { return r.Trace }, draw, holds, outside)
}

func outboxClaim(name, says string, draw func(*sim.Rand, *outbox.Params), holds func(outbox.Params, *outbox.Result) error, outside func(*sim.Rand, *outbox.Params)) Claim {
	return claim("outbox", name, "outbox-and-inbox", says, outbox.Binding, outbox.Run, nil, func(r *outbox.Result) sim.Trace { return r.Trace }, draw, holds, outside)
}

func orderingClaim(name, says string, draw func(*sim.Rand, *ordering.Params), holds func(ordering.Params, *ordering.Result) error, outside func(*sim.Rand, *ordering.Params)) Claim {
	return claim("ordering", name, "ordering-and-watermarks", says, ordering.Binding, ordering.Run, nil, func(r *ordering.Result) sim.Trace { return r.Trace }, draw, holds, outside)
}

func sentMarkerClaim(name, says string, draw func(*sim.Rand, *sentmarker.Params), holds func(sentmarker.Params, *sentmarker.Result) error, outside func(*sim.Rand, *sentmarker.Params)) Claim {
	return claim("sent-marker", name, "side-effects", says, sentmarker.Binding, sentmarker.Run, nil, func(r *sentmarker.Result) sim.Trace { return r.Trace }, draw, holds, outside)
}

func webhookClaim(name, says string, draw func(*sim.Rand, *webhook.Params), holds func(webhook.Params, *webhook.Result) error, outside func(*sim.Rand, *webhook.Params)) Claim {
	return claim("webhook", name, "receiving-webhooks", says, webhook.Binding, webhook.Run, nil, func(r *webhook.Result) sim.Trace { return r.Trace }, draw, holds, outside)
}

func streamClaim(name, says string, draw func(*sim.Rand, *stream.Params), holds func(stream.Params, *stream.Result) error, outside func(*sim.Rand, *stream.Params)) Claim {
	return claim("stream", name, "exactly-once-in-streams", says, stream.Binding, stream.Run, nil, func(r *stream.Result) sim.Trace { return r.Trace }, draw, holds, outside)
}

func casClaim(name, says string, draw func(*sim.Rand, *cas.Params), holds func(cas.Params, *cas.Result) error, outside func(*sim.Rand, *cas.Params)) Claim {
	return claim("cas", name, "idempotent-by-design", says, cas.Binding, cas.Run, nil, func(r *cas.Result) sim.Trace { return r.Trace }, draw, holds, outside)
}

func budgetClaim(name, says string, draw func(*sim.Rand, *budget.Params), holds func(budget.Params, *budget.Result) error, outside func(*sim.Rand, *budget.Params)) Claim {
	return claim("budget", name, "retry-budgets", says, budget.Binding, budget.Run, nil, func(r *budget.Result) sim.Trace { return r.Trace }, draw, holds, outside)
}

func stormClaim(name, says string, draw func(*sim.Rand, *storm.Params), holds func(storm.Params, *storm.Result) error, outside func(*sim.Rand, *storm.Params)) Claim {
	return claim("storm", name, "metastable-failure", says, storm.Binding, storm.Run, nil, func(r *storm.Result) sim.Trace { return r.Trace }, draw, holds, outside)
}

func backoffClaim(name, says string, draw func(*sim.Rand, *backoff.Params), holds func(backoff.Params, *backoff.Result) error, outside func(*sim.Rand, *backoff.Params)) Claim {
	return claim("backoff", name, "backoff-and-jitter", says, backoff.Binding, backoff.Run, nil, func(r *backoff.Result) sim.Trace { return r.Trace }, draw, holds, outside)
}

// The draws: parameters within a claim's scope, from the seed's generator.

func pick[T any](r *sim.Rand, xs []T) T { return xs[r.Intn(len(xs))] }

// between is a whole number in [lo, hi].
func between(r *sim.Rand, lo, hi int) int { return lo + r.Intn(hi-lo+1) }

// seconds is a whole number of seconds in [lo, hi].
func seconds(r *sim.Rand, lo, hi int) time.Duration {
	return time.Duration(between(r, lo, hi)) * time.Second
}

// hundredths is a number in [lo, hi] with two decimals, which the CLI's
// flags write exactly.
func hundredths(r *sim.Rand, lo, hi float64) float64 {
	return float64(between(r, int(math.Round(lo*100)), int(math.Round(hi*100)))) / 100
}

// drawFaults is any list of faults, any number of attempts and any amount.
func drawFaults(r *sim.Rand, p *payment.Params) {
	p.Attempts = between(r, 1, payment.MaxAttempts)
	p.Faults = make([]payment.Fault, r.Intn(payment.MaxFaults+1))
	for i := range p.Faults {
		p.Faults[i] = pick(r, []payment.Fault{payment.OK, payment.LoseRequest, payment.LoseResponse})
	}
	p.Amount = int64(between(r, 1, 1_000_000))
}

// drawBurst is any burst: 1 to 50 requests, in lockstep or spread.
func drawBurst(r *sim.Rand, p *guard.Params) {
	p.N, p.Spread, p.Seed = between(r, 1, guard.MaxN), r.Intn(11), r.Uint64()%1_000_000_000
}

// drawSenders is any number of duplicates, with any timeout, wait and
// number of attempts, and no fault.
func drawSenders(r *sim.Rand, p *lock.Params) {
	p.Dupes = between(r, 1, 100)
	p.Timeout, p.Retry, p.Attempts = seconds(r, 1, 60), seconds(r, 0, 120), between(r, 1, 10)
}

// drawLease is any crash, lease and retry time, with or without recovery
// points.
func drawLease(r *sim.Rand, p *lease.Params) {
	p.Crash = pick(r, lease.Crashes)
	p.Lease = seconds(r, lease.MinLease, lease.MaxLease)
	p.Retry = seconds(r, lease.MinRetry, lease.MaxRetry)
	p.Recovery = r.Intn(2) == 0
}

// drawArrival is any order of 1 to 8 deliveries of the events, repeats
// included.
func drawArrival(r *sim.Rand, p *ordering.Params) {
	p.Arrival = make([]string, between(r, 1, ordering.MaxArrivals))
	for i := range p.Arrival {
		p.Arrival[i] = pick(r, ordering.Events).ID
	}
}

func drawBudget(r *sim.Rand, p *budget.Params) {
	p.Requests, p.Retries = between(r, 1, 3000), between(r, 0, 10)
	p.Ratio, p.Bank = hundredths(r, 0, 1), float64(between(r, 0, 100))
}

// drawStorm is any load, capacity, slowdown and client.
func drawStorm(r *sim.Rand, p *storm.Params) {
	p.Seconds = between(r, 10, 200)
	p.New, p.Capacity = between(r, 0, 300), between(r, 1, 300)
	p.SlowFrom = between(r, 0, p.Seconds-2)
	p.SlowTo = between(r, p.SlowFrom+1, p.Seconds)
	p.SlowFactor = hundredths(r, 0, 1)
	p.Timeout, p.Retries = between(r, 1, 10), between(r, 0, 10)
	p.Budget, p.SkipExpired = r.Intn(2) == 0, r.Intn(2) == 0
}

// drawHerd is any policy, herd and capacity, kept small enough that
// thousands of runs take seconds.
func drawHerd(r *sim.Rand, p *backoff.Params) {
	p.Policy = pick(r, backoff.Policies)
	p.Clients, p.Capacity = between(r, 1, 500), between(r, 1, 100)
	p.Seed = r.Uint64() % 1_000_000_000
}
