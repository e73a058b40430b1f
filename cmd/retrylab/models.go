package main

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/retrylab/retrylab/engine/backoff"
	"github.com/retrylab/retrylab/engine/budget"
	"github.com/retrylab/retrylab/engine/cas"
	"github.com/retrylab/retrylab/engine/guard"
	"github.com/retrylab/retrylab/engine/lease"
	"github.com/retrylab/retrylab/engine/lock"
	"github.com/retrylab/retrylab/engine/ordering"
	"github.com/retrylab/retrylab/engine/outbox"
	"github.com/retrylab/retrylab/engine/param"
	"github.com/retrylab/retrylab/engine/payment"
	"github.com/retrylab/retrylab/engine/saga"
	"github.com/retrylab/retrylab/engine/sentmarker"
	"github.com/retrylab/retrylab/engine/storm"
)

// models are the simulators. Each takes the parameters its package
// declares (Schema), which are the widget's, or a superset of them: budget's
// widget runs with and without the budget, which the CLI takes as a flag.
var models = []model{
	{
		id: "payment", title: "The double charge: a lossy network, retries, and idempotency keys.",
		schema: payment.Schema,
		exec: func(v param.Values) (report, error) {
			p := payment.FromValues(v)
			res, err := payment.Run(p)
			if err != nil {
				return report{}, err
			}
			s := paymentSummary{Charges: len(res.Charges), Ledger: []string{}, Receipt: res.Receipt,
				Status: res.Status, Replayed: res.Replayed, Attempts: res.Attempts}
			for _, c := range res.Charges {
				s.Ledger = append(s.Ledger, c.ID)
			}
			receipt := orNone(res.Receipt)
			if res.Replayed {
				receipt += ", replayed"
			}
			return report{summary: s, rows: [][2]string{
				{"charges", strconv.Itoa(s.Charges) + listed(s.Ledger)},
				{"receipt", receipt},
				{"status", statusText(res.Status)},
				{"attempts", strconv.Itoa(res.Attempts)},
			}}, nil
		},
	},

	{
		id: "guard", title: "Twenty duplicates at the same instant, three ways to guard.",
		schema: guard.Schema,
		exec: func(v param.Values) (report, error) {
			p := guard.FromValues(v)
			res, err := guard.Run(p, uint64(v.Int("seed")))
			if err != nil {
				return report{}, err
			}
			return report{summary: res.Summary, rows: [][2]string{
				{"rows", strconv.Itoa(res.Rows)},
				{"charges", strconv.Itoa(res.Charges)},
				{"statuses", statuses(res.Statuses)},
				{"replayed", strconv.Itoa(res.Replayed)},
				{"a retry after", answerText(res.Retry)},
				{"another amount", answerText(res.Other)},
			}}, nil
		},
	},

	{
		id: "backoff", title: "A thousand clients retrying against 50 calls per slot, with and without jitter.",
		schema: backoff.Schema,
		exec: func(v param.Values) (report, error) {
			p := backoff.FromValues(v)
			res, err := backoff.Run(p, uint64(v.Int("seed")))
			if err != nil {
				return report{}, err
			}
			t := &table{head: []string{"slot", "at (s)", "calls", "served"}}
			for slot, n := range res.PerSlot {
				if n == 0 {
					continue
				}
				if len(t.rows) == 40 {
					t.more = "... " + strconv.Itoa(res.Waves-40) + " more busy slots (--json lists every slot)"
					break
				}
				at := time.Duration(slot) * p.Slot
				t.rows = append(t.rows, []string{strconv.Itoa(slot), seconds(at), strconv.Itoa(n), strconv.Itoa(min(n, p.Capacity))})
			}
			rep := report{summary: backoffSummary{Summary: res.Summary}, detail: t, rows: [][2]string{
				{"calls", strconv.Itoa(res.Calls)},
				{"last served", strconv.FormatFloat(res.LastServedS, 'f', 1, 64) + " s"},
				{"slots", strconv.Itoa(res.Slots)},
				{"busy slots", strconv.Itoa(res.Waves)},
			}}
			// The second policy, as the widget draws it beside the first.
			if pol, ok := backoff.Compare(v); ok {
				q := p
				q.Policy = pol
				other, err := backoff.Run(q, uint64(v.Int("seed")))
				if err != nil {
					return report{}, err
				}
				rep.summary = backoffSummary{Summary: res.Summary, Compare: &comparedRun{Policy: string(pol), Summary: other.Summary}}
				rep.rows = append(rep.rows,
					[2]string{"compared with", string(pol)},
					[2]string{"its calls", strconv.Itoa(other.Calls)},
					[2]string{"its last served", strconv.FormatFloat(other.LastServedS, 'f', 1, 64) + " s"})
			}
			return rep, nil
		},
	},

	{
		id: "budget", title: "A retry budget: retries as a share of traffic while the upstream is down.",
		schema: budget.Schema,
		exec: func(v param.Values) (report, error) {
			p := budget.FromValues(v)
			res, err := budget.Run(p)
			if err != nil {
				return report{}, err
			}
			return report{summary: res.Summary, rows: [][2]string{
				{"calls", strconv.Itoa(res.Calls)},
				{"retries", strconv.Itoa(res.Retries)},
				{"refused retries", strconv.Itoa(res.Denied)},
				{"tokens left", strconv.FormatFloat(res.Tokens, 'f', -1, 64)},
			}}, nil
		},
	},

	{
		id: "storm", title: "A metastable failure: a short slowdown, timeouts, retries, and a queue that stays full.",
		schema: storm.Schema,
		exec: func(v param.Values) (report, error) {
			p := storm.FromValues(v)
			res, err := storm.Run(p)
			if err != nil {
				return report{}, err
			}
			recovered := "never (in " + strconv.Itoa(p.Seconds) + " s)"
			if r := res.RecoveredAfterS; r != nil {
				recovered = strconv.Itoa(*r) + " s after the slowdown ended"
			}
			return report{summary: res.Summary, detail: stormTable(res.Summary), rows: [][2]string{
				{"healthy", strconv.Itoa(res.Healthy) + "/s"},
				{"slow", strconv.Itoa(res.Slow) + "/s"},
				{"recovered", recovered},
				{"calls", strconv.Itoa(res.Calls)},
				{"clients who gave up", strconv.Itoa(res.GaveUp)},
			}}, nil
		},
	},

	{
		id: "outbox", title: "The outbox and the inbox: an event published twice, an email sent once.",
		schema: outbox.Schema,
		exec: func(v param.Values) (report, error) {
			p := outbox.FromValues(v)
			res, err := outbox.Run(p)
			if err != nil {
				return report{}, err
			}
			return report{summary: res.Summary, rows: [][2]string{
				{"orders", strconv.Itoa(res.Orders)},
				{"events on the broker", strconv.Itoa(res.Published)},
				{"emails", strconv.Itoa(res.Emails)},
				{"skipped by the inbox", strconv.Itoa(res.Skipped)},
			}}, nil
		},
	},

	{
		id: "saga", title: "A saga that crashes, resumes from its log and compensates with keys.",
		schema: saga.Schema,
		exec: func(v param.Values) (report, error) {
			p := saga.FromValues(v)
			res, err := saga.Run(p)
			if err != nil {
				return report{}, err
			}
			rows := [][2]string{{"outcome", res.Outcome}}
			for _, st := range saga.Steps {
				e := res.Effects.Of(st)
				rows = append(rows, [2]string{string(st), strconv.Itoa(e.Done) + " done, " + strconv.Itoa(e.Undone) + " undone"})
			}
			rows = append(rows, [2]string{"left in place", strconv.Itoa(res.Stray)})
			return report{summary: res.Summary, rows: rows}, nil
		},
	},

	{
		id: "ordering", title: "Events out of order and twice: dedupe against a watermark.",
		schema: ordering.Schema,
		exec: func(v param.Values) (report, error) {
			p := ordering.FromValues(v)
			res, err := ordering.Run(p)
			if err != nil {
				return report{}, err
			}
			if res.Applied == nil {
				res.Applied = []string{}
			}
			verdict := "wrong: the newest event is not the one that stands"
			if res.Correct {
				verdict = "right"
			}
			return report{summary: res.Summary, rows: [][2]string{
				{"plan", res.Plan + " (" + verdict + ")"},
				{"applied", strings.Join(res.Applied, ", ")},
				{"skipped", strconv.Itoa(res.Skipped)},
			}}, nil
		},
	},

	{
		id: "sent-marker", title: "A provider with no keys: a sent marker stops the redelivered job.",
		schema: sentmarker.Schema,
		exec: func(v param.Values) (report, error) {
			p := sentmarker.FromValues(v)
			res, err := sentmarker.Run(p)
			if err != nil {
				return report{}, err
			}
			return report{summary: res.Summary, rows: [][2]string{
				{"messages sent", strconv.Itoa(res.Sent)},
				{"runs", strconv.Itoa(res.Runs)},
				{"skipped by the marker", strconv.Itoa(res.Skipped)},
			}}, nil
		},
	},

	{
		id: "cas", title: "Compare-and-set: ship(order, version 7) twice.",
		schema: cas.Schema,
		exec: func(v param.Values) (report, error) {
			p := cas.FromValues(v)
			res, err := cas.Run(p)
			if err != nil {
				return report{}, err
			}
			var rows []string
			for _, n := range res.Updated {
				rows = append(rows, strconv.Itoa(n))
			}
			return report{summary: res.Summary, rows: [][2]string{
				{"shipments", strconv.Itoa(res.Shipments)},
				{"version", strconv.Itoa(res.Version)},
				{"rows changed per call", strings.Join(rows, ", ")},
			}}, nil
		},
	},

	{
		id: "lock", title: "An idempotency key store in Redis: GET then SET, or a SET NX lock beside the result.",
		schema: lock.Schema,
		exec: func(v param.Values) (report, error) {
			res, err := lock.Run(lock.FromValues(v))
			if err != nil {
				return report{}, err
			}
			done := "never: a sender gave up"
			if res.DoneAt != nil {
				done = strconv.FormatFloat(*res.DoneAt, 'f', -1, 64) + " s"
			}
			return report{summary: res.Summary, rows: [][2]string{
				{"charges", strconv.Itoa(res.Charges)},
				{"sends", strconv.Itoa(res.Sends)},
				{"409 conflicts", strconv.Itoa(res.Conflicts)},
				{"replays", strconv.Itoa(res.Replays)},
				{"503 unavailable", strconv.Itoa(res.Unavailable)},
				{"timeouts", strconv.Itoa(res.Timeouts)},
				{"senders who gave up", strconv.Itoa(res.GaveUp)},
				{"last sender done at", done},
			}}, nil
		},
	},

	{
		id: "lease", title: "A crashed request, a lease, a retry, and recovery points: count the charges.",
		schema: lease.Schema,
		exec: func(v param.Values) (report, error) {
			res, err := lease.Run(lease.FromValues(v))
			if err != nil {
				return report{}, err
			}
			return report{summary: res.Summary, rows: [][2]string{
				{"charges", strconv.Itoa(res.Charges)},
				{"payments created", strconv.Itoa(res.Payments)},
				{"the first retry got", res.Retry},
				{"receipt", orNone(res.Receipt)},
				{"resumed from", orNone(res.ResumedFrom)},
				{"sends", strconv.Itoa(res.Sends)},
				{"done at", strconv.FormatFloat(res.DoneAtS, 'f', -1, 64) + " s"},
			}}, nil
		},
	},
}

// backoffSummary is the backoff model's summary for --json: the first
// policy's figures, and the compared policy's under "compare".
type backoffSummary struct {
	backoff.Summary
	Compare *comparedRun `json:"compare,omitempty"`
}

type comparedRun struct {
	Policy string `json:"policy"`
	backoff.Summary
}

// paymentSummary is the payment model's summary for --json.
type paymentSummary struct {
	Charges  int      `json:"charges"`  // charges on the server's ledger
	Ledger   []string `json:"ledger"`   // their ids, in order
	Receipt  string   `json:"receipt"`  // the charge id the client holds; "" if none
	Status   int      `json:"status"`   // the status of the client's final answer; 0 if none
	Replayed bool     `json:"replayed"` // that answer was a replay
	Attempts int      `json:"attempts"` // attempts the client made
}

// stormTable lists the run second by second, one line for each stretch of
// seconds alike in what arrived and what was served; the queue is the one
// at the stretch's end.
func stormTable(s storm.Summary) *table {
	t := &table{head: []string{"seconds", "offered", "goodput", "wasted", "queue"}}
	for from := 0; from < len(s.Goodput); {
		to := from
		for to+1 < len(s.Goodput) && s.Offered[to+1] == s.Offered[from] &&
			s.Goodput[to+1] == s.Goodput[from] && s.Wasted[to+1] == s.Wasted[from] {
			to++
		}
		span := strconv.Itoa(from)
		if to > from {
			span += "-" + strconv.Itoa(to)
		}
		t.rows = append(t.rows, []string{span, strconv.Itoa(s.Offered[from]), strconv.Itoa(s.Goodput[from]),
			strconv.Itoa(s.Wasted[from]), strconv.Itoa(s.Queue[to])})
		from = to + 1
	}
	return t
}

func statuses(m map[int]int) string {
	codes := make([]int, 0, len(m))
	for c := range m {
		codes = append(codes, c)
	}
	sort.Ints(codes)
	var parts []string
	for _, c := range codes {
		parts = append(parts, strconv.Itoa(c)+": "+strconv.Itoa(m[c]))
	}
	return strings.Join(parts, ", ")
}

func answerText(a guard.Answer) string {
	s := strconv.Itoa(a.Status)
	if a.Payment != "" {
		s += " " + a.Payment
	}
	if a.Replayed {
		s += ", replayed"
	}
	if a.RetryAfter > 0 {
		s += ", Retry-After: " + strconv.Itoa(a.RetryAfter)
	}
	if a.Charged {
		s += " (charged the card)"
	}
	return s
}

func statusText(status int) string {
	if status == 0 {
		return "none (the client gave up)"
	}
	return strconv.Itoa(status)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func listed(xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	return " (" + strings.Join(xs, ", ") + ")"
}

func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}
