// Package figures is the one table of the figures each model must
// reproduce (each documented, with its arithmetic, in its model
// package's documentation), for the tests of every layer: the engine's,
// the widgets', the CLI's and the browser's all read the same rows, so a
// figure is written once.
//
// A row names the model, the parameters that differ from its defaults (as
// a widget block, a query string or the CLI's flags write them) and the
// figures, under the names of the widget's data-* attributes ("calls" is
// data-calls). Every layer turns its own result into those names.
package figures

import "strconv"

// A Row is one published case.
type Row struct {
	Model  string            // the model's name, which is its widget's
	Case   string            // the case, in words
	Params map[string]string // parameters other than the defaults
	Want   map[string]string // figures by data-* name
}

// Rows are the published cases. Budget's widget shows both of its runs at
// once (BudgetBoth); its rows are the engine's and the CLI's.
var Rows = []Row{
	// Section 1: payment, amount 2500.
	{"payment", "lose-request, ok, no keys", map[string]string{"faults": "lose-request, ok"},
		map[string]string{"charges": "1", "receipt": "ch_1"}},
	{"payment", "lose-response, ok, no keys: the double charge", nil,
		map[string]string{"charges": "2", "receipt": "ch_2"}},
	{"payment", "lose-response, ok, a key per intent", map[string]string{"keys": "per-intent"},
		map[string]string{"charges": "1", "receipt": "ch_1"}},
	{"payment", "lose-response, ok, a key per attempt", map[string]string{"keys": "per-attempt"},
		map[string]string{"charges": "2", "receipt": "ch_2"}},

	// Section 2: guard, twenty at once in lockstep.
	{"guard", "check-then-insert", nil,
		map[string]string{"rows": "20", "charges": "20", "statuses": "201:20"}},
	{"guard", "constraint-after-charge", map[string]string{"strategy": "constraint-after-charge"},
		map[string]string{"rows": "1", "charges": "20", "statuses": "201:1,409:19"}},
	{"guard", "claim-before-work", map[string]string{"strategy": "claim-before-work"},
		map[string]string{"rows": "1", "charges": "1", "statuses": "201:1,409:19"}},
	{"guard", "check-then-insert, repeatable read: the SELECT starts the snapshot, as at read committed", map[string]string{"isolation": "repeatable-read"},
		map[string]string{"rows": "20", "charges": "20", "statuses": "201:20", "aborts": "0"}},
	{"guard", "check-then-insert, serializable: nineteen 40001s, each after its charge, each retry a replay", map[string]string{"isolation": "serializable"},
		map[string]string{"rows": "1", "charges": "20", "statuses": "201:20", "aborts": "19"}},

	// Section 3: backoff without jitter, 1,000 clients against 50 a slot.
	{"backoff", "none", nil, map[string]string{"calls": "10500", "last-served": "132.7"}},

	// Section 4: budget, 1,000 requests with 3 retries each.
	{"budget", "no budget", map[string]string{"budget": "off"}, map[string]string{"calls": "4000"}},
	{"budget", "a budget of 10%", nil, map[string]string{"calls": "1109"}},
	// The AWS SDKs' retry quota in the budget's terms, in a total outage
	// (nothing earned): 500 tokens at 5 a retry, then at 14.
	{"budget", "AWS's long-standing quota", map[string]string{"retries": "2", "ratio": "0", "bank": "100"}, map[string]string{"calls": "1099"}},
	{"budget", "AWS's newer quota", map[string]string{"retries": "2", "ratio": "0", "bank": "35.7"}, map[string]string{"calls": "1035"}},

	// Section 5: storm (recovered: seconds after the trigger, or never).
	{"storm", "retry every timeout", nil,
		map[string]string{"healthy": "80", "slow": "20", "recovered": "never"}},
	{"storm", "retry budget 10%", map[string]string{"budget": "on"},
		map[string]string{"healthy": "80", "slow": "20", "recovered": "20"}},
	{"storm", "budget + skip expired work", map[string]string{"budget": "on", "skip-expired": "on"},
		map[string]string{"healthy": "80", "slow": "40", "recovered": "0"}},

	// Section 6: the smaller models, at their defaults.
	{"outbox", "a relay crash, an inbox", nil, map[string]string{"published": "2", "emails": "1"}},
	{"saga", "the hotel fails, a crash after the flight", nil, map[string]string{"charges": "1", "undos": "1"}},
	{"ordering", "dedupe ends on starter", nil, map[string]string{"plan": "starter"}},
	{"ordering", "a version guard ends on pro", map[string]string{"strategy": "version-guard"}, map[string]string{"plan": "pro"}},
	{"sent-marker", "the redelivered job sees the marker", nil, map[string]string{"sent": "1"}},
	{"cas", "ship twice with the version check", nil, map[string]string{"shipments": "1", "version": "8"}},

	// The leases-and-recovery chapter: a crash of the first request, a
	// lease of a minute, a retry before it ends (30 s, the default) or
	// after (90 s), recovery points on unless said.
	{"lease", "crash after the charge, retry before the lease: 409, then the takeover resumes", nil,
		map[string]string{"charges": "1", "retry": "409", "receipt": "ch_1", "payments": "1"}},
	{"lease", "crash after the charge, retry after the lease: the takeover resumes", map[string]string{"retry": "90"},
		map[string]string{"charges": "1", "retry": "201", "receipt": "ch_1"}},
	{"lease", "crash after the charge, no recovery points: the takeover charges again", map[string]string{"recovery": "off"},
		map[string]string{"charges": "2", "retry": "409", "receipt": "ch_2", "payments": "2"}},
	{"lease", "crash after the charge, no recovery points, retry after the lease", map[string]string{"recovery": "off", "retry": "90"},
		map[string]string{"charges": "2", "retry": "201", "receipt": "ch_2"}},
	{"lease", "crash before the charge, no recovery points: one charge, a pending payment left", map[string]string{"crash": "before-charge", "recovery": "off", "retry": "90"},
		map[string]string{"charges": "1", "retry": "201", "receipt": "ch_1", "payments": "2"}},
	{"lease", "crash after saving: the retry is replayed, lease or not", map[string]string{"crash": "after-saving"},
		map[string]string{"charges": "1", "retry": "replay", "receipt": "ch_1"}},
	{"lease", "no crash: no retry", map[string]string{"crash": "none"},
		map[string]string{"charges": "1", "retry": "none", "receipt": "ch_1"}},
	{"lease", "the owner pauses past its lease: the processor's key and the fence stop it", map[string]string{"crash": "pauses"},
		map[string]string{"charges": "1", "retry": "409", "receipt": "ch_1", "payments": "1"}},
	{"lease", "the owner pauses, no recovery points: the fence guards the store, not the card", map[string]string{"crash": "pauses", "recovery": "off"},
		map[string]string{"charges": "2", "retry": "409", "receipt": "ch_1", "payments": "2"}},

	// The receiving-webhooks chapter: one event whose first answer is
	// lost, a forgery at 5 minutes, a replay of the first delivery at 48
	// hours (engine/webhook).
	{"webhook", "every defence: the retry finds its id, forgery and replay refused", nil, webhookWant(1, 0, 2)},
	{"webhook", "no dedupe: the retry works again", map[string]string{"dedupe": "off"}, webhookWant(2, 0, 2)},
	{"webhook", "no signature check: the forgery ships", map[string]string{"signature": "off"}, webhookWant(1, 1, 2)},
	{"webhook", "no timestamp check: the replay finds its id forgotten", map[string]string{"tolerance": "0"}, webhookWant(2, 0, 2)},
	{"webhook", "no timestamp check, ids kept 72 h", map[string]string{"tolerance": "0", "keep": "72"}, webhookWant(1, 0, 2)},
	{"webhook", "work before the answer: past the sender's timeout", map[string]string{"reply": "after-work", "lost": "off"}, webhookWant(1, 0, 2)},
	{"webhook", "work before the answer, no dedupe: every delivery works", map[string]string{"reply": "after-work", "lost": "off", "dedupe": "off"}, webhookWant(5, 0, 5)},
	{"webhook", "work before the answer, work 90 s: the retry overtakes the id", map[string]string{"reply": "after-work", "lost": "off", "work": "90"}, webhookWant(2, 0, 3)},

	// The exactly-once-in-streams chapter: three orders through a
	// read-process-write processor whose first acknowledgement is lost and
	// which crashes once before committing, then a consumer that emails per
	// record and crashes once after an email (engine/stream).
	{"stream", "Kafka's exactly once, emails without a key: one email twice", nil, streamWant(4, 3, 4)},
	{"stream", "emails keyed by order id: one each", map[string]string{"dedupe": "on"}, streamWant(4, 3, 3)},
	{"stream", "read_uncommitted: the aborted record is read too", map[string]string{"isolation": "read_uncommitted"}, streamWant(4, 4, 5)},
	{"stream", "idempotent, no transactions: the reprocessed order is written twice", map[string]string{"producer": "idempotent"}, streamWant(4, 4, 5)},
	{"stream", "plain producer: the retry is written twice too", map[string]string{"producer": "plain"}, streamWant(5, 5, 6)},
	{"stream", "plain producer, emails keyed by order id: one each", map[string]string{"producer": "plain", "dedupe": "on"}, streamWant(5, 5, 3)},

	// Section 7: lock, the Redis key store (done-at: seconds until the
	// last sender has its answer).
	{"lock", "guard none", map[string]string{"guard": "none"}, lockWant(2, 2, 0, 0, 0, 2)},
	{"lock", "get-then-set", map[string]string{"guard": "get-then-set"}, lockWant(2, 2, 0, 0, 0, 2)},
	{"lock", "get-then-set, dupes 20", map[string]string{"guard": "get-then-set", "dupes": "20"}, lockWant(20, 20, 0, 0, 0, 2)},
	{"lock", "setnx", nil, lockWant(1, 3, 1, 1, 0, 60)},
	{"lock", "setnx, dupes 20", map[string]string{"dupes": "20"}, lockWant(1, 39, 19, 19, 0, 60)},
	{"lock", "setnx, work 400 (longer than the lock)", map[string]string{"work": "400"}, lockWant(2, 16, 12, 2, 0, 430)},
	{"lock", "setnx, crash after-charge", map[string]string{"crash": "after-charge"}, lockWant(2, 12, 9, 1, 0, 310)},
	{"lock", "setnx, crash before-charge", map[string]string{"crash": "before-charge"}, lockWant(1, 12, 9, 1, 0, 310)},
	{"lock", "setnx, store down, fail-open", map[string]string{"store": "down", "on-down": "fail-open"}, lockWant(2, 2, 0, 0, 0, 2)},
	{"lock", "setnx, store down, fail-closed", map[string]string{"store": "down", "on-down": "fail-closed"}, lockWant(1, 5, 1, 1, 2, 120)},
	{"lock", "setnx, retry 200", map[string]string{"retry": "200"}, lockWant(1, 3, 1, 1, 0, 200)},
	{"lock", "setnx, retry 300 (after the lock expired)", map[string]string{"retry": "300"}, lockWant(2, 3, 1, 0, 0, 302)},
	{"lock", "setnx, retry 200, evict on", map[string]string{"retry": "200", "evict": "on"}, lockWant(2, 3, 1, 0, 0, 202)},
}

// lockWant is a row of section 7's table.
func lockWant(charges, sends, conflicts, replays, unavailable, doneAt int) map[string]string {
	n := strconv.Itoa
	return map[string]string{"charges": n(charges), "sends": n(sends), "conflicts": n(conflicts),
		"replays": n(replays), "unavailable": n(unavailable), "done-at": n(doneAt)}
}

// webhookWant is a row of the receiving-webhooks chapter.
func webhookWant(fulfilled, forged, deliveries int) map[string]string {
	n := strconv.Itoa
	return map[string]string{"fulfilled": n(fulfilled), "forged": n(forged), "deliveries": n(deliveries)}
}

// streamWant is a row of the exactly-once-in-streams chapter.
func streamWant(written, records, effects int) map[string]string {
	n := strconv.Itoa
	return map[string]string{"written": n(written), "records": n(records), "effects": n(effects), "orders": n(3)}
}

// Of returns the rows of one model.
func Of(model string) []Row {
	var out []Row
	for _, r := range Rows {
		if r.Model == model {
			out = append(out, r)
		}
	}
	return out
}

// BudgetBoth is the budget widget's view of section 4: both runs at once.
var BudgetBoth = map[string]string{"calls-without": "4000", "calls-with": "1109"}

// FullJitter bounds full jitter's runs over seeds 1 to 40 (section 3):
// calls between CallsMin and CallsMax, the last client served between
// LastMinS and LastMaxS seconds.
var FullJitter = struct {
	CallsMin, CallsMax int
	LastMinS, LastMaxS float64
}{4950, 5100, 4, 12}
