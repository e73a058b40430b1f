package models

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
	"github.com/retrylab/retrylab/engine/payment"
	"github.com/retrylab/retrylab/engine/saga"
	"github.com/retrylab/retrylab/engine/sentmarker"
	"github.com/retrylab/retrylab/engine/sim"
	"github.com/retrylab/retrylab/engine/storm"
	"github.com/retrylab/retrylab/engine/stream"
	"github.com/retrylab/retrylab/engine/webhook"
)

// All are the handbook's models, the one list of them. Each names its
// headline figures as its widget's outcome does (data-NAME), and its
// report as the CLI prints it.
var All = []*Model{
	Of(Def[payment.Params, payment.Result]{
		Name: "payment", Title: "The double charge: a lossy network, retries, and idempotency keys.",
		Binding: payment.Binding, Run: payment.Run, Into: payment.RunInto,
		Trace:    func(r *payment.Result) sim.Trace { return r.Trace },
		Schedule: func(p *payment.Params, seed uint64) { p.Schedule = seed },
		Figures: func(_ payment.Params, r *payment.Result) map[string]string {
			return map[string]string{"charges": itoa(len(r.Charges)), "receipt": r.Receipt}
		},
		Report: func(_ payment.Params, r *payment.Result) Report {
			s := paymentSummary{Charges: len(r.Charges), Ledger: []string{}, Receipt: r.Receipt,
				Status: r.Status, Replayed: r.Replayed, Attempts: r.Attempts}
			for _, c := range r.Charges {
				s.Ledger = append(s.Ledger, c.ID)
			}
			receipt := orNone(r.Receipt)
			if r.Replayed {
				receipt += ", replayed"
			}
			return Report{Summary: s, Rows: [][2]string{
				{"charges", itoa(s.Charges) + listed(s.Ledger)},
				{"receipt", receipt},
				{"status", statusText(r.Status)},
				{"attempts", itoa(r.Attempts)},
			}}
		},
	}),

	Of(Def[guard.Params, guard.Result]{
		Name: "guard", Title: "Twenty duplicates at the same instant, three ways to guard.",
		Binding: guard.Binding, Run: guard.Run, Into: guard.RunInto,
		Trace:    func(r *guard.Result) sim.Trace { return r.Trace },
		Schedule: func(p *guard.Params, seed uint64) { p.Schedule = seed },
		Figures: func(_ guard.Params, r *guard.Result) map[string]string {
			return map[string]string{"rows": itoa(r.Rows), "charges": itoa(r.Charges), "statuses": statuses(r.Statuses, ":", ","), "aborts": itoa(r.Aborts)}
		},
		Report: func(_ guard.Params, r *guard.Result) Report {
			rows := [][2]string{
				{"rows", itoa(r.Rows)},
				{"charges", itoa(r.Charges)},
				{"statuses", statuses(r.Statuses, ": ", ", ")},
				{"replayed", itoa(r.Replayed)},
			}
			if r.Aborts > 0 {
				rows = append(rows, [2]string{"40001, run again", itoa(r.Aborts) + " (each after its charge)"})
			}
			rows = append(rows, [][2]string{
				{"a retry after", answerText(r.Retry)},
				{"another amount", answerText(r.Other)},
			}...)
			return Report{Summary: r.Summary, Rows: rows}
		},
	}),

	Of(Def[backoff.Params, backoffRuns]{
		Name: "backoff", Title: "A thousand clients retrying against 50 calls per slot, with and without jitter.",
		Binding: backoff.Binding, Run: runBackoff,
		Trace: func(r *backoffRuns) sim.Trace { return r.main.Trace },
		Figures: func(_ backoff.Params, r *backoffRuns) map[string]string {
			return map[string]string{"calls": itoa(r.main.Calls), "last-served": oneDecimal(r.main.LastServedS)}
		},
		Report: reportBackoff,
	}),

	Of(Def[budget.Params, budget.Result]{
		Name: "budget", Title: "A retry budget: retries as a share of traffic while the upstream is down.",
		Binding: budget.Binding, Run: budget.Run, Into: budget.RunInto,
		Trace: func(r *budget.Result) sim.Trace { return r.Trace },
		Figures: func(_ budget.Params, r *budget.Result) map[string]string {
			return map[string]string{"calls": itoa(r.Calls)}
		},
		Report: func(_ budget.Params, r *budget.Result) Report {
			return Report{Summary: r.Summary, Rows: [][2]string{
				{"calls", itoa(r.Calls)},
				{"retries", itoa(r.Retries)},
				{"refused retries", itoa(r.Denied)},
				{"tokens left", strconv.FormatFloat(r.Tokens, 'f', -1, 64)},
			}}
		},
	}),

	Of(Def[storm.Params, storm.Result]{
		Name: "storm", Title: "A metastable failure: a short slowdown, timeouts, retries, and a queue that stays full.",
		Binding: storm.Binding, Run: storm.Run,
		Trace: func(r *storm.Result) sim.Trace { return r.Trace },
		Figures: func(_ storm.Params, r *storm.Result) map[string]string {
			rec := "never"
			if r.RecoveredAfterS != nil {
				rec = itoa(*r.RecoveredAfterS)
			}
			return map[string]string{"healthy": itoa(r.Healthy), "slow": itoa(r.Slow), "recovered": rec}
		},
		Report: func(p storm.Params, r *storm.Result) Report {
			recovered := "never (in " + itoa(p.Seconds) + " s)"
			if s := r.RecoveredAfterS; s != nil {
				recovered = itoa(*s) + " s after the slowdown ended"
			}
			return Report{Summary: r.Summary, Detail: stormTable(r.Summary), Rows: [][2]string{
				{"healthy", itoa(r.Healthy) + "/s"},
				{"slow", itoa(r.Slow) + "/s"},
				{"recovered", recovered},
				{"calls", itoa(r.Calls)},
				{"clients who gave up", itoa(r.GaveUp)},
			}}
		},
	}),

	Of(Def[outbox.Params, outbox.Result]{
		Name: "outbox", Title: "The outbox and the inbox: an event published twice, an email sent once.",
		Binding: outbox.Binding, Run: outbox.Run, Into: outbox.RunInto,
		Trace: func(r *outbox.Result) sim.Trace { return r.Trace },
		Figures: func(_ outbox.Params, r *outbox.Result) map[string]string {
			return map[string]string{"published": itoa(r.Published), "emails": itoa(r.Emails)}
		},
		Report: func(_ outbox.Params, r *outbox.Result) Report {
			return Report{Summary: r.Summary, Rows: [][2]string{
				{"orders", itoa(r.Orders)},
				{"events on the broker", itoa(r.Published)},
				{"emails", itoa(r.Emails)},
				{"skipped by the inbox", itoa(r.Skipped)},
			}}
		},
	}),

	Of(Def[saga.Params, saga.Result]{
		Name: "saga", Title: "A saga that crashes, resumes from its log and compensates with keys.",
		Binding: saga.Binding, Run: saga.Run, Into: saga.RunInto,
		Trace: func(r *saga.Result) sim.Trace { return r.Trace },
		Figures: func(_ saga.Params, r *saga.Result) map[string]string {
			return map[string]string{"charges": itoa(r.Charges), "undos": itoa(r.Undos)}
		},
		Report: func(_ saga.Params, r *saga.Result) Report {
			rows := [][2]string{{"outcome", r.Outcome}}
			for _, st := range saga.Steps {
				e := r.Effects.Of(st)
				rows = append(rows, [2]string{string(st), itoa(e.Done) + " done, " + itoa(e.Undone) + " undone"})
			}
			rows = append(rows, [2]string{"left in place", itoa(r.Stray)})
			return Report{Summary: r.Summary, Rows: rows}
		},
	}),

	Of(Def[ordering.Params, ordering.Result]{
		Name: "ordering", Title: "Events out of order and twice: dedupe against a version guard.",
		Binding: ordering.Binding, Run: ordering.Run, Into: ordering.RunInto,
		Trace: func(r *ordering.Result) sim.Trace { return r.Trace },
		Figures: func(_ ordering.Params, r *ordering.Result) map[string]string {
			return map[string]string{"plan": r.Plan}
		},
		Report: func(_ ordering.Params, r *ordering.Result) Report {
			s := r.Summary
			if s.Applied == nil {
				s.Applied = []string{}
			}
			verdict := "wrong: the newest event is not the one that stands"
			if r.Correct {
				verdict = "right"
			}
			return Report{Summary: s, Rows: [][2]string{
				{"plan", r.Plan + " (" + verdict + ")"},
				{"applied", strings.Join(r.Applied, ", ")},
				{"skipped", itoa(r.Skipped)},
			}}
		},
	}),

	Of(Def[sentmarker.Params, sentmarker.Result]{
		Name: "sent-marker", Title: "A provider with no keys: a sent marker stops the redelivered job.",
		Binding: sentmarker.Binding, Run: sentmarker.Run,
		Trace: func(r *sentmarker.Result) sim.Trace { return r.Trace },
		Figures: func(_ sentmarker.Params, r *sentmarker.Result) map[string]string {
			return map[string]string{"sent": itoa(r.Sent)}
		},
		Report: func(_ sentmarker.Params, r *sentmarker.Result) Report {
			return Report{Summary: r.Summary, Rows: [][2]string{
				{"messages sent", itoa(r.Sent)},
				{"runs", itoa(r.Runs)},
				{"skipped by the marker", itoa(r.Skipped)},
			}}
		},
	}),

	Of(Def[webhook.Params, webhook.Result]{
		Name: "webhook", Title: "A webhook endpoint against a sender's retries, a forgery and a replay.",
		Binding: webhook.Binding, Run: webhook.Run,
		Trace: func(r *webhook.Result) sim.Trace { return r.Trace },
		Figures: func(_ webhook.Params, r *webhook.Result) map[string]string {
			return map[string]string{"fulfilled": itoa(r.Fulfilled), "forged": itoa(r.Forged), "deliveries": itoa(r.Deliveries)}
		},
		Report: func(_ webhook.Params, r *webhook.Result) Report {
			return Report{Summary: r.Summary, Rows: [][2]string{
				{"order 1 fulfilled", itoa(r.Fulfilled)},
				{"forged orders shipped", itoa(r.Forged)},
				{"deliveries", itoa(r.Deliveries)},
				{"refused", itoa(r.Refused)},
				{"sender done", yesNo(r.Delivered)},
			}}
		},
	}),

	Of(Def[stream.Params, stream.Result]{
		Name: "stream", Title: "Kafka read-process-write, then an email per record: where exactly once ends.",
		Binding: stream.Binding, Run: stream.Run,
		Trace: func(r *stream.Result) sim.Trace { return r.Trace },
		Figures: func(_ stream.Params, r *stream.Result) map[string]string {
			return map[string]string{"written": itoa(r.Written), "records": itoa(r.Records), "effects": itoa(r.Effects), "orders": itoa(r.Orders)}
		},
		Report: func(_ stream.Params, r *stream.Result) Report {
			return Report{Summary: r.Summary, Rows: [][2]string{
				{"output records written", itoa(r.Written)},
				{"aborted", itoa(r.Aborted)},
				{"records the consumer read", itoa(r.Records)},
				{"emails sent", itoa(r.Effects)},
				{"orders", itoa(r.Orders)},
			}}
		},
	}),

	Of(Def[cas.Params, cas.Result]{
		Name: "cas", Title: "Compare-and-set: ship(order, version 7) twice.",
		Binding: cas.Binding, Run: cas.Run,
		Trace: func(r *cas.Result) sim.Trace { return r.Trace },
		Figures: func(_ cas.Params, r *cas.Result) map[string]string {
			return map[string]string{"shipments": itoa(r.Shipments), "version": itoa(r.Version)}
		},
		Report: func(_ cas.Params, r *cas.Result) Report {
			var rows []string
			for _, n := range r.Updated {
				rows = append(rows, itoa(n))
			}
			return Report{Summary: r.Summary, Rows: [][2]string{
				{"shipments", itoa(r.Shipments)},
				{"version", itoa(r.Version)},
				{"rows changed per call", strings.Join(rows, ", ")},
			}}
		},
	}),

	Of(Def[lock.Params, lock.Result]{
		Name: "lock", Title: "An idempotency key store in Redis: GET then SET, or a SET NX lock beside the result.",
		Binding: lock.Binding, Run: lock.Run, Into: lock.RunInto,
		Trace:    func(r *lock.Result) sim.Trace { return r.Trace },
		Schedule: func(p *lock.Params, seed uint64) { p.Schedule = seed },
		Figures: func(_ lock.Params, r *lock.Result) map[string]string {
			done := "never"
			if r.DoneAt != nil {
				done = strconv.FormatFloat(*r.DoneAt, 'f', -1, 64)
			}
			return map[string]string{"charges": itoa(r.Charges), "sends": itoa(r.Sends), "conflicts": itoa(r.Conflicts),
				"replays": itoa(r.Replays), "unavailable": itoa(r.Unavailable), "done-at": done}
		},
		Report: func(_ lock.Params, r *lock.Result) Report {
			done := "never: a sender gave up"
			if r.DoneAt != nil {
				done = strconv.FormatFloat(*r.DoneAt, 'f', -1, 64) + " s"
			}
			return Report{Summary: r.Summary, Rows: [][2]string{
				{"charges", itoa(r.Charges)},
				{"sends", itoa(r.Sends)},
				{"409 conflicts", itoa(r.Conflicts)},
				{"replays", itoa(r.Replays)},
				{"503 unavailable", itoa(r.Unavailable)},
				{"timeouts", itoa(r.Timeouts)},
				{"senders who gave up", itoa(r.GaveUp)},
				{"last sender done at", done},
			}}
		},
	}),

	Of(Def[lease.Params, lease.Result]{
		Name: "lease", Title: "A crashed request, a lease, a retry, and recovery points: count the charges.",
		Binding: lease.Binding, Run: lease.Run,
		Trace:    func(r *lease.Result) sim.Trace { return r.Trace },
		Schedule: func(p *lease.Params, seed uint64) { p.Schedule = seed },
		Figures: func(_ lease.Params, r *lease.Result) map[string]string {
			return map[string]string{"charges": itoa(r.Charges), "retry": r.Retry, "receipt": r.Receipt, "payments": itoa(r.Payments)}
		},
		Report: func(_ lease.Params, r *lease.Result) Report {
			return Report{Summary: r.Summary, Rows: [][2]string{
				{"charges", itoa(r.Charges)},
				{"payments created", itoa(r.Payments)},
				{"the first retry got", r.Retry},
				{"receipt", orNone(r.Receipt)},
				{"resumed from", orNone(r.ResumedFrom)},
				{"sends", itoa(r.Sends)},
				{"done at", strconv.FormatFloat(r.DoneAtS, 'f', -1, 64) + " s"},
			}}
		},
	}),
}

var itoa = strconv.Itoa

// paymentSummary is the payment model's summary for --json.
type paymentSummary struct {
	Charges  int      `json:"charges"`  // charges on the server's ledger
	Ledger   []string `json:"ledger"`   // their ids, in order
	Receipt  string   `json:"receipt"`  // the charge id the client holds; "" if none
	Status   int      `json:"status"`   // the status of the client's final answer; 0 if none
	Replayed bool     `json:"replayed"` // that answer was a replay
	Attempts int      `json:"attempts"` // attempts the client made
}

// backoffRuns are a run of the backoff model and, when Compare names a
// second policy, the run of that policy, as the widget draws it beside
// the first.
type backoffRuns struct {
	main    backoff.Result
	compare *backoff.Result
}

func runBackoff(p backoff.Params) (backoffRuns, error) {
	var r backoffRuns
	var err error
	if r.main, err = backoff.Run(p); err != nil {
		return r, err
	}
	if p.Compare != backoff.Off {
		q := p
		q.Policy = p.Compare
		other, err := backoff.Run(q)
		if err != nil {
			return r, err
		}
		r.compare = &other
	}
	return r, nil
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

// reportBackoff lists the busy slots, up to 40 of them.
func reportBackoff(p backoff.Params, r *backoffRuns) Report {
	res := r.main
	t := &Table{Head: []string{"slot", "at (s)", "calls", "served"}}
	for slot, n := range res.PerSlot {
		if n == 0 {
			continue
		}
		if len(t.Rows) == 40 {
			t.More = "... " + itoa(res.Waves-40) + " more busy slots (--json lists every slot)"
			break
		}
		at := time.Duration(slot) * p.Slot
		t.Rows = append(t.Rows, []string{itoa(slot), strconv.FormatFloat(at.Seconds(), 'f', -1, 64), itoa(n), itoa(min(n, p.Capacity))})
	}
	rep := Report{Summary: backoffSummary{Summary: res.Summary}, Detail: t, Rows: [][2]string{
		{"calls", itoa(res.Calls)},
		{"last served", oneDecimal(res.LastServedS) + " s"},
		{"slots", itoa(res.Slots)},
		{"busy slots", itoa(res.Waves)},
	}}
	if other := r.compare; other != nil {
		rep.Summary = backoffSummary{Summary: res.Summary, Compare: &comparedRun{Policy: string(p.Compare), Summary: other.Summary}}
		rep.Rows = append(rep.Rows,
			[2]string{"compared with", string(p.Compare)},
			[2]string{"its calls", itoa(other.Calls)},
			[2]string{"its last served", oneDecimal(other.LastServedS) + " s"})
	}
	return rep
}

func oneDecimal(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

// stormTable lists the run second by second, one line for each stretch of
// seconds alike in what arrived and what was served; the queue is the one
// at the stretch's end.
func stormTable(s storm.Summary) *Table {
	t := &Table{Head: []string{"seconds", "offered", "goodput", "wasted", "queue"}}
	for from := 0; from < len(s.Goodput); {
		to := from
		for to+1 < len(s.Goodput) && s.Offered[to+1] == s.Offered[from] &&
			s.Goodput[to+1] == s.Goodput[from] && s.Wasted[to+1] == s.Wasted[from] {
			to++
		}
		span := itoa(from)
		if to > from {
			span += "-" + itoa(to)
		}
		t.Rows = append(t.Rows, []string{span, itoa(s.Offered[from]), itoa(s.Goodput[from]),
			itoa(s.Wasted[from]), itoa(s.Queue[to])})
		from = to + 1
	}
	return t
}

// statuses writes answers counted per status, the lowest first, each as
// status, sep, count, joined by join: "201: 1, 409: 19".
func statuses(m map[int]int, sep, join string) string {
	codes := make([]int, 0, len(m))
	for c := range m {
		codes = append(codes, c)
	}
	sort.Ints(codes)
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = itoa(c) + sep + itoa(m[c])
	}
	return strings.Join(parts, join)
}

func answerText(a guard.Answer) string {
	s := itoa(a.Status)
	if a.Payment != "" {
		s += " " + a.Payment
	}
	if a.Replayed {
		s += ", replayed"
	}
	if a.RetryAfter > 0 {
		s += ", Retry-After: " + itoa(a.RetryAfter)
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
	return itoa(status)
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

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no (it gave up)"
}
