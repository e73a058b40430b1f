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
	"github.com/retrylab/retrylab/engine/ordering"
	"github.com/retrylab/retrylab/engine/outbox"
	"github.com/retrylab/retrylab/engine/payment"
	"github.com/retrylab/retrylab/engine/saga"
	"github.com/retrylab/retrylab/engine/sentmarker"
	"github.com/retrylab/retrylab/engine/storm"
)

// models are the simulators, each with its parameter table. The names are
// the widgets' names and the parameters the widgets' parameters.
var models = []model{
	simModel[payment.Params]{
		id: "payment", title: "The double charge: a lossy network, retries, and idempotency keys.",
		defaults: payment.Defaults,
		table: []param[payment.Params]{
			enumParam("keys", "how the client uses idempotency keys",
				[]payment.Keys{payment.KeysOff, payment.KeysPerIntent, payment.KeysPerAttempt},
				func(p *payment.Params) *payment.Keys { return &p.Keys }),
			listParam("faults", "the network's fault for attempt 1, 2, ...; ok after the list",
				[]payment.Fault{payment.OK, payment.LoseRequest, payment.LoseResponse},
				func(p *payment.Params) *[]payment.Fault { return &p.Faults }),
			intParam("attempts", "tries before the client gives up", func(p *payment.Params) *int { return &p.Attempts }),
			int64Param("amount", "the amount, in cents", func(p *payment.Params) *int64 { return &p.Amount }),
		},
		exec: func(p payment.Params, _ uint64) (report, error) {
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

	simModel[guard.Params]{
		id: "guard", seeded: true, title: "Twenty duplicates at the same instant, three ways to guard.",
		defaults: guard.Defaults,
		table: []param[guard.Params]{
			intParam("n", "identical requests with one key", func(p *guard.Params) *int { return &p.N }),
			enumParam("strategy", "how the handler guards the charge", guard.Strategies,
				func(p *guard.Params) *guard.Strategy { return &p.Strategy }),
			intParam("spread", "0: lockstep; else arrivals spread over that many steps, interleaved at random",
				func(p *guard.Params) *int { return &p.Spread }),
		},
		exec: func(p guard.Params, seed uint64) (report, error) {
			res, err := guard.Run(p, seed)
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

	simModel[backoff.Params]{
		id: "backoff", seeded: true, title: "A thousand clients retrying against 50 calls per slot, with and without jitter.",
		defaults: backoff.Defaults,
		table: []param[backoff.Params]{
			enumParam("policy", "how long a client waits after a failed call", backoff.Policies,
				func(p *backoff.Params) *backoff.Policy { return &p.Policy }),
			intParam("clients", "clients that all call at t = 0", func(p *backoff.Params) *int { return &p.Clients }),
			intParam("capacity", "calls the server answers per slot", func(p *backoff.Params) *int { return &p.Capacity }),
			secondsParam("slot", "the server's slot, in seconds", func(p *backoff.Params) *time.Duration { return &p.Slot }),
			secondsParam("base", "the first wait, in seconds", func(p *backoff.Params) *time.Duration { return &p.Base }),
			secondsParam("cap", "the longest wait, in seconds", func(p *backoff.Params) *time.Duration { return &p.Cap }),
		},
		exec: func(p backoff.Params, seed uint64) (report, error) {
			res, err := backoff.Run(p, seed)
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
			return report{summary: res.Summary, detail: t, rows: [][2]string{
				{"calls", strconv.Itoa(res.Calls)},
				{"last served", strconv.FormatFloat(res.LastServedS, 'f', 1, 64) + " s"},
				{"slots", strconv.Itoa(res.Slots)},
				{"busy slots", strconv.Itoa(res.Waves)},
			}}, nil
		},
	},

	simModel[budget.Params]{
		id: "budget", title: "A retry budget: retries as a share of traffic while the upstream is down.",
		defaults: budget.Defaults,
		table: []param[budget.Params]{
			intParam("requests", "requests, each failing", func(p *budget.Params) *int { return &p.Requests }),
			intParam("retries", "retries a request may make", func(p *budget.Params) *int { return &p.Retries }),
			floatParam("ratio", "tokens a request earns; a retry spends 1", func(p *budget.Params) *float64 { return &p.Ratio }),
			floatParam("bank", "the bucket's size; it starts full", func(p *budget.Params) *float64 { return &p.Bank }),
			boolParam("budget", "on: retries spend from the bucket; off: retry every failure", func(p *budget.Params) *bool { return &p.Budget }),
		},
		exec: func(p budget.Params, _ uint64) (report, error) {
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

	simModel[storm.Params]{
		id: "storm", title: "A metastable failure: a short slowdown, timeouts, retries, and a queue that stays full.",
		defaults: storm.Defaults,
		table: []param[storm.Params]{
			intParam("new", "new requests a second", func(p *storm.Params) *int { return &p.New }),
			intParam("capacity", "requests served a second", func(p *storm.Params) *int { return &p.Capacity }),
			intParam("slow-from", "the second the slowdown starts", func(p *storm.Params) *int { return &p.SlowFrom }),
			intParam("slow-to", "the second it ends (not included)", func(p *storm.Params) *int { return &p.SlowTo }),
			floatParam("slow-factor", "the share of capacity left during the slowdown", func(p *storm.Params) *float64 { return &p.SlowFactor }),
			intParam("timeout", "seconds a client waits", func(p *storm.Params) *int { return &p.Timeout }),
			intParam("retries", "retries after a timeout", func(p *storm.Params) *int { return &p.Retries }),
			boolParam("budget", "retries spend from a 10% token bucket", func(p *storm.Params) *bool { return &p.Budget }),
			boolParam("skip-expired", "drop work whose client gave up, for free", func(p *storm.Params) *bool { return &p.SkipExpired }),
			intParam("seconds", "the length of the run", func(p *storm.Params) *int { return &p.Seconds }),
		},
		exec: func(p storm.Params, _ uint64) (report, error) {
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

	simModel[outbox.Params]{
		id: "outbox", title: "The outbox and the inbox: an event published twice, an email sent once.",
		defaults: outbox.Defaults,
		table: []param[outbox.Params]{
			intParam("orders", "orders placed, each with its event", func(p *outbox.Params) *int { return &p.Orders }),
			boolParam("relay-crash", "the relay crashes after publishing, before marking", func(p *outbox.Params) *bool { return &p.RelayCrash }),
			boolParam("inbox", "the consumer skips event ids it has seen", func(p *outbox.Params) *bool { return &p.Inbox }),
		},
		exec: func(p outbox.Params, _ uint64) (report, error) {
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

	simModel[saga.Params]{
		id: "saga", title: "A saga that crashes, resumes from its log and compensates with keys.",
		defaults: saga.Defaults,
		table: []param[saga.Params]{
			enumParam("fail", "the step whose service refuses", append([]saga.Step{saga.None}, saga.Steps...),
				func(p *saga.Params) *saga.Step { return &p.Fail }),
			enumParam("crash-after", "the step after whose call the runner crashes", append([]saga.Step{saga.None}, saga.Steps...),
				func(p *saga.Params) *saga.Step { return &p.CrashAfter }),
			boolParam("keys", "calls carry saga:STEP and saga:STEP:undo", func(p *saga.Params) *bool { return &p.Keys }),
		},
		exec: func(p saga.Params, _ uint64) (report, error) {
			res, err := saga.Run(p)
			if err != nil {
				return report{}, err
			}
			rows := [][2]string{{"outcome", res.Outcome}}
			for _, st := range saga.Steps {
				e := res.Effects[st]
				rows = append(rows, [2]string{string(st), strconv.Itoa(e.Done) + " done, " + strconv.Itoa(e.Undone) + " undone"})
			}
			rows = append(rows, [2]string{"left in place", strconv.Itoa(res.Stray)})
			return report{summary: res.Summary, rows: rows}, nil
		},
	},

	simModel[ordering.Params]{
		id: "ordering", title: "Events out of order and twice: dedupe against a watermark.",
		defaults: ordering.Defaults,
		table: []param[ordering.Params]{
			enumParam("strategy", "how the consumer decides to apply an event", ordering.Strategies,
				func(p *ordering.Params) *ordering.Strategy { return &p.Strategy }),
			listParam("arrival", "event ids in arrival order (evt_1: starter at t=0, evt_2: pro at t=60)", []string{"evt_1", "evt_2"},
				func(p *ordering.Params) *[]string { return &p.Arrival }),
		},
		exec: func(p ordering.Params, _ uint64) (report, error) {
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

	simModel[sentmarker.Params]{
		id: "sent-marker", title: "A provider with no keys: a sent marker stops the redelivered job.",
		defaults: sentmarker.Defaults,
		table: []param[sentmarker.Params]{
			boolParam("marker", "the job writes and checks a sent marker", func(p *sentmarker.Params) *bool { return &p.Marker }),
			enumParam("crash", "where the first run crashes", sentmarker.Crashes,
				func(p *sentmarker.Params) *sentmarker.Crash { return &p.Crash }),
		},
		exec: func(p sentmarker.Params, _ uint64) (report, error) {
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

	simModel[cas.Params]{
		id: "cas", title: "Compare-and-set: ship(order, version 7) twice.",
		defaults: cas.Defaults,
		table: []param[cas.Params]{
			intParam("calls", "times ship(order, version 7) is called", func(p *cas.Params) *int { return &p.Calls }),
			boolParam("cas", "the UPDATE carries AND version = 7", func(p *cas.Params) *bool { return &p.CAS }),
		},
		exec: func(p cas.Params, _ uint64) (report, error) {
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
