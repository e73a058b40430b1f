package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/retrylab/retrylab/engine/backoff"
	"github.com/retrylab/retrylab/engine/budget"
	"github.com/retrylab/retrylab/engine/guard"
	"github.com/retrylab/retrylab/engine/lock"
	"github.com/retrylab/retrylab/engine/ordering"
	"github.com/retrylab/retrylab/engine/outbox"
	"github.com/retrylab/retrylab/engine/payment"
	"github.com/retrylab/retrylab/engine/saga"
	"github.com/retrylab/retrylab/engine/sim"
	"github.com/retrylab/retrylab/engine/storm"
)

// modelCase is one run of an engine model that bench/reference/MODEL.py
// also runs, with the same parameters, under the same case name.
type modelCase struct {
	Model, Case string
	Label       string // as the table names it
	// Run runs the engine once and returns the figures the Python run must
	// agree with, keyed as the Python script prints them.
	Run func() (map[string]any, error)
	// Time runs the engine once as the bench times it: the run, from its
	// parameters to its summary and trace, and the sentence of the trace's
	// last event, which the Python run returns too. Not the copy of the
	// figures into Run's map for the comparison: a Python run's dict is
	// its summary, a Go run's summary is its Result.
	Time func() error
}

// engineCase is a case whose run is run with the parameters p, made once
// (as the Python script's are, its run's arguments): trace reads the
// result's trace, figures its summary as the Python script prints it.
//
// Time runs into the room of the case's last run (the models' RunInto), as
// a caller that runs a model again and again does. It is the reuse a Python
// run has for free: reference counting frees a run's lists as it returns,
// and the next run's are made in the same memory.
func engineCase[P, R any](model, name, label string, p P, run func(P, *R) error, trace func(*R) sim.Trace, figures func(*R) map[string]any) modelCase {
	var last R
	return modelCase{Model: model, Case: name, Label: label,
		Run: func() (map[string]any, error) {
			var r R
			if err := run(p, &r); err != nil {
				return nil, err
			}
			return withTrace(figures(&r), trace(&r)), nil
		},
		Time: func() error {
			if err := run(p, &last); err != nil {
				return err
			}
			if t := trace(&last); len(t) > 0 {
				_ = t[len(t)-1].Sentence()
			}
			return nil
		},
	}
}

// fresh is run for a model without a RunInto: a new result each time.
func fresh[P, R any](run func(P) (R, error)) func(P, *R) error {
	return func(p P, res *R) error {
		r, err := run(p)
		*res = r
		return err
	}
}

// modelCases are the figures' parameters of SIMULATORS.md: the backoff
// model's 1,000 clients without jitter and with full jitter (seed 1: the
// reference uses the engine's generator, so the run is the same draw for
// draw), the budget model with and without its bucket, the storm's
// three variants, the guard's three strategies with twenty requests in
// lockstep, the payment's four cases of section 1, four of the lock's
// (section 7), and two each of the outbox's, the saga's and the
// ordering's.
var modelCases = []modelCase{
	backoffCase("none", "backoff, 1,000 clients, no jitter", backoff.None),
	backoffCase("full", "backoff, 1,000 clients, full jitter", backoff.Full),
	budgetCase("budget", "budget, 1,000 requests, 10% budget", true),
	budgetCase("no-budget", "budget, 1,000 requests, no budget", false),
	stormCase("retry", "storm, retry every timeout", false, false),
	stormCase("budget", "storm, retry budget", true, false),
	stormCase("budget-skip", "storm, budget + skip expired", true, true),
	guardCase("check-then-insert", "guard, 20 at once, check then insert", guard.CheckThenInsert),
	guardCase("constraint-after-charge", "guard, 20 at once, constraint after charge", guard.ConstraintAfterCharge),
	guardCase("claim-before-work", "guard, 20 at once, claim before work", guard.ClaimBeforeWork),
	paymentCase("lose-request", "payment, request lost, no keys", payment.KeysOff, payment.LoseRequest),
	paymentCase("lose-response", "payment, answer lost, no keys", payment.KeysOff, payment.LoseResponse),
	paymentCase("per-intent", "payment, answer lost, a key per intent", payment.KeysPerIntent, payment.LoseResponse),
	paymentCase("per-attempt", "payment, answer lost, a key per attempt", payment.KeysPerAttempt, payment.LoseResponse),
	lockCase("setnx-20", "lock, SET NX, 20 senders", func(p *lock.Params) { p.Dupes = 20 }),
	lockCase("crash-after-charge", "lock, SET NX, a crash after the charge", func(p *lock.Params) { p.Crash = lock.AfterCharge }),
	lockCase("fail-closed", "lock, SET NX, the store down, fail closed", func(p *lock.Params) { p.Store, p.OnDown = lock.Down, lock.FailClosed }),
	lockCase("get-then-set-20", "lock, GET then SET, 20 senders", func(p *lock.Params) { p.Guard, p.Dupes = lock.GetThenSet, 20 }),
	outboxCase("crash-inbox", "outbox, a relay crash, an inbox", 1, true),
	outboxCase("five-no-inbox", "outbox, 5 orders, a relay crash, no inbox", 5, false),
	sagaCase("keys", "saga, the hotel fails after a crash, keys", true),
	sagaCase("no-keys", "saga, the hotel fails after a crash, no keys", false),
	orderingCase("dedupe", "ordering, evt_2 evt_1 evt_2, dedupe", ordering.Dedupe),
	orderingCase("watermark", "ordering, evt_2 evt_1 evt_2, a watermark", ordering.Watermark),
}

// referenceModels are the models of modelCases, each a script
// bench/reference/MODEL.py.
func referenceModels() []string {
	var models []string
	for _, mc := range modelCases {
		if !slices.Contains(models, mc.Model) {
			models = append(models, mc.Model)
		}
	}
	return models
}

func backoffCase(name, label string, policy backoff.Policy) modelCase {
	p := backoff.Defaults()
	p.Policy = policy
	run := func(p backoff.Params) (backoff.Result, error) { return backoff.Run(p, 1) }
	return engineCase("backoff", name, label, p, fresh(run),
		func(r *backoff.Result) sim.Trace { return r.Trace }, func(r *backoff.Result) map[string]any {
			return map[string]any{"calls": r.Calls, "last_served_s": r.LastServedS, "waves": r.Waves}
		})
}

func budgetCase(name, label string, withBudget bool) modelCase {
	p := budget.Defaults()
	p.Budget = withBudget
	return engineCase("budget", name, label, p, budget.RunInto,
		func(r *budget.Result) sim.Trace { return r.Trace }, func(r *budget.Result) map[string]any {
			return map[string]any{"calls": r.Calls, "retries": r.Retries, "denied": r.Denied}
		})
}

func stormCase(name, label string, withBudget, skip bool) modelCase {
	p := storm.Defaults()
	p.Budget, p.SkipExpired = withBudget, skip
	return engineCase("storm", name, label, p, fresh(storm.Run),
		func(r *storm.Result) sim.Trace { return r.Trace }, func(r *storm.Result) map[string]any {
			var recovered any // JSON null: never recovered within the run
			if r.RecoveredAfterS != nil {
				recovered = *r.RecoveredAfterS
			}
			return map[string]any{"healthy": r.Healthy, "slow": r.Slow, "recovered_after_s": recovered}
		})
}

func guardCase(name, label string, strategy guard.Strategy) modelCase {
	p := guard.Defaults()
	p.Strategy = strategy
	return engineCase("guard", name, label, p, func(p guard.Params, res *guard.Result) error { return guard.RunInto(p, 1, res) },
		func(r *guard.Result) sim.Trace { return r.Trace }, func(r *guard.Result) map[string]any {
			return map[string]any{"rows": r.Rows, "charges": r.Charges, "replayed": r.Replayed,
				"statuses": statuses(r.Statuses), "retry_status": r.Retry.Status, "other_status": r.Other.Status}
		})
}

// paymentCase runs the payment model with the first attempt's fault
// first and the second attempt delivered.
func paymentCase(name, label string, keys payment.Keys, first payment.Fault) modelCase {
	p := payment.Defaults()
	p.Keys, p.Faults = keys, []payment.Fault{first, payment.OK}
	return engineCase("payment", name, label, p, payment.RunInto,
		func(r *payment.Result) sim.Trace { return r.Trace }, func(r *payment.Result) map[string]any {
			return map[string]any{"charges": len(r.Charges), "receipt": r.Receipt, "status": r.Status,
				"replayed": r.Replayed, "attempts": r.Attempts}
		})
}

// lockCase runs the lock model at its defaults but for what change sets.
func lockCase(name, label string, change func(*lock.Params)) modelCase {
	p := lock.Defaults()
	change(&p)
	return engineCase("lock", name, label, p, lock.RunInto,
		func(r *lock.Result) sim.Trace { return r.Trace }, func(r *lock.Result) map[string]any {
			var doneAt any // JSON null: a sender gave up
			if r.DoneAt != nil {
				doneAt = *r.DoneAt
			}
			return map[string]any{"charges": r.Charges, "sends": r.Sends, "conflicts": r.Conflicts,
				"replays": r.Replays, "unavailable": r.Unavailable, "timeouts": r.Timeouts, "gave_up": r.GaveUp,
				"done_at_s": doneAt}
		})
}

// outboxCase runs the outbox model with its relay crash, orders orders
// and the inbox or not.
func outboxCase(name, label string, orders int, inbox bool) modelCase {
	p := outbox.Defaults()
	p.Orders, p.Inbox = orders, inbox
	return engineCase("outbox", name, label, p, outbox.RunInto,
		func(r *outbox.Result) sim.Trace { return r.Trace }, func(r *outbox.Result) map[string]any {
			return map[string]any{"orders": r.Orders, "published": r.Published, "emails": r.Emails, "skipped": r.Skipped}
		})
}

// sagaCase runs the saga model at its defaults (the hotel refuses, the
// runner crashes after the flight), with keys or not.
func sagaCase(name, label string, keys bool) modelCase {
	p := saga.Defaults()
	p.Keys = keys
	return engineCase("saga", name, label, p, saga.RunInto,
		func(r *saga.Result) sim.Trace { return r.Trace }, func(r *saga.Result) map[string]any {
			return map[string]any{"outcome": r.Outcome, "charges": r.Charges, "undos": r.Undos,
				"stray": r.Stray, "calls": r.Calls, "crashes": r.Crashes}
		})
}

// orderingCase runs the ordering model's default arrivals under strategy.
func orderingCase(name, label string, strategy ordering.Strategy) modelCase {
	p := ordering.Defaults()
	p.Strategy = strategy
	return engineCase("ordering", name, label, p, ordering.RunInto,
		func(r *ordering.Result) sim.Trace { return r.Trace }, func(r *ordering.Result) map[string]any {
			return map[string]any{"plan": r.Plan, "applied": strings.Join(r.Applied, ", "),
				"skipped": r.Skipped, "correct": r.Correct}
		})
}

// statuses writes answers counted per status as "201: 1, 409: 19", the
// lowest status first.
func statuses(count map[int]int) string {
	codes := make([]int, 0, len(count))
	for c := range count {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = fmt.Sprintf("%d: %d", c, count[c])
	}
	return strings.Join(parts, ", ")
}

// withTrace adds what the reference runs report of their trace: its
// length and its last event's sentence, which checks the wording of the
// events as well as their number.
func withTrace(figs map[string]any, t sim.Trace) map[string]any {
	figs["events"] = len(t)
	figs["last_event"] = ""
	if len(t) > 0 {
		figs["last_event"] = t[len(t)-1].Sentence()
	}
	return figs
}

// timeGo runs fn once to warm up, then again until minTime has passed and
// at least five times, and returns the median seconds per run and the
// number of runs: the method of bench/reference/timing.py. The median
// rather than the mean: a run another process interrupted says nothing
// about the model.
func timeGo(fn func() error, minTime time.Duration) (float64, int, error) {
	if err := fn(); err != nil {
		return 0, 0, err
	}
	var times []float64
	start := time.Now()
	for len(times) < 5 || time.Since(start) < minTime {
		t0 := time.Now()
		if err := fn(); err != nil {
			return 0, 0, err
		}
		times = append(times, time.Since(t0).Seconds())
	}
	return median(times), len(times), nil
}

// pyCase is one line a reference script prints.
type pyCase struct {
	Model         string         `json:"model"`
	Case          string         `json:"case"`
	Runs          int            `json:"runs"`
	SecondsPerRun float64        `json:"seconds_per_run"`
	Result        map[string]any `json:"result"`
}

// parsePython reads the JSON lines of a reference script. Blank lines are
// skipped; any other line that is not a case is an error naming its line.
func parsePython(r io.Reader) ([]pyCase, error) {
	var out []pyCase
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var c pyCase
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			return nil, fmt.Errorf("line %d: %v: %q", n, err, line)
		}
		if c.Model == "" || c.Case == "" || c.Runs <= 0 || !(c.SecondsPerRun > 0) || c.Result == nil {
			return nil, fmt.Errorf("line %d: a case needs model, case, runs, seconds_per_run and result: %q", n, line)
		}
		out = append(out, c)
	}
	return out, sc.Err()
}

// runPython runs bench/reference/MODEL.py with python and returns its
// cases. -B: no __pycache__ is left in the tree.
func runPython(ctx context.Context, python, root, model string, minTime time.Duration) ([]pyCase, error) {
	script := filepath.Join(root, "bench", "reference", model+".py")
	cmd := exec.CommandContext(ctx, python, "-B", script, "--min-time", strconv.FormatFloat(minTime.Seconds(), 'f', -1, 64))
	cmd.Dir = root
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s %s: %v: %s", filepath.Base(python), filepath.Join("bench", "reference", model+".py"), err, lastLine(stderr.String()))
	}
	cases, err := parsePython(&stdout)
	if err != nil {
		return nil, fmt.Errorf("bench/reference/%s.py: %w", model, err)
	}
	return cases, nil
}

// disagreements lists the figures of want (the engine's) that got (the
// Python run's) has otherwise or lacks, as "calls: 1109 vs 1110". Numbers
// compare as numbers, so 80 and 80.0 agree; null agrees only with null.
func disagreements(want, got map[string]any) []string {
	var diffs []string
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		g, ok := got[k]
		if !ok {
			diffs = append(diffs, k+": missing from the Python run")
			continue
		}
		if !sameFigure(want[k], g) {
			diffs = append(diffs, fmt.Sprintf("%s: %v (Go) vs %v (Python)", k, show(want[k]), show(g)))
		}
	}
	return diffs
}

func sameFigure(a, b any) bool {
	fa, aok := number(a)
	fb, bok := number(b)
	if aok || bok {
		return aok && bok && math.Abs(fa-fb) <= 1e-9*math.Max(1, math.Abs(fa))
	}
	return a == b // both nil, or equal strings and booleans
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

func show(v any) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprint(v)
}

// lastLine is the last non-empty line of s: the message of a Python
// traceback.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// pythonVersion is `python3 --version`, trimmed.
func pythonVersion(python string) string {
	out, err := exec.Command(python, "--version").CombinedOutput()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
