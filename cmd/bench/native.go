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
	{"backoff", "none", "backoff, 1,000 clients, no jitter", func() (map[string]any, error) {
		return backoffFigures(backoff.None)
	}},
	{"backoff", "full", "backoff, 1,000 clients, full jitter", func() (map[string]any, error) {
		return backoffFigures(backoff.Full)
	}},
	{"budget", "budget", "budget, 1,000 requests, 10% budget", func() (map[string]any, error) {
		return budgetFigures(true)
	}},
	{"budget", "no-budget", "budget, 1,000 requests, no budget", func() (map[string]any, error) {
		return budgetFigures(false)
	}},
	{"storm", "retry", "storm, retry every timeout", func() (map[string]any, error) {
		return stormFigures(false, false)
	}},
	{"storm", "budget", "storm, retry budget", func() (map[string]any, error) {
		return stormFigures(true, false)
	}},
	{"storm", "budget-skip", "storm, budget + skip expired", func() (map[string]any, error) {
		return stormFigures(true, true)
	}},
	{"guard", "check-then-insert", "guard, 20 at once, check then insert", func() (map[string]any, error) {
		return guardFigures(guard.CheckThenInsert)
	}},
	{"guard", "constraint-after-charge", "guard, 20 at once, constraint after charge", func() (map[string]any, error) {
		return guardFigures(guard.ConstraintAfterCharge)
	}},
	{"guard", "claim-before-work", "guard, 20 at once, claim before work", func() (map[string]any, error) {
		return guardFigures(guard.ClaimBeforeWork)
	}},
	{"payment", "lose-request", "payment, request lost, no keys", func() (map[string]any, error) {
		return paymentFigures(payment.KeysOff, payment.LoseRequest)
	}},
	{"payment", "lose-response", "payment, answer lost, no keys", func() (map[string]any, error) {
		return paymentFigures(payment.KeysOff, payment.LoseResponse)
	}},
	{"payment", "per-intent", "payment, answer lost, a key per intent", func() (map[string]any, error) {
		return paymentFigures(payment.KeysPerIntent, payment.LoseResponse)
	}},
	{"payment", "per-attempt", "payment, answer lost, a key per attempt", func() (map[string]any, error) {
		return paymentFigures(payment.KeysPerAttempt, payment.LoseResponse)
	}},
	{"lock", "setnx-20", "lock, SET NX, 20 senders", func() (map[string]any, error) {
		return lockFigures(func(p *lock.Params) { p.Dupes = 20 })
	}},
	{"lock", "crash-after-charge", "lock, SET NX, a crash after the charge", func() (map[string]any, error) {
		return lockFigures(func(p *lock.Params) { p.Crash = lock.AfterCharge })
	}},
	{"lock", "fail-closed", "lock, SET NX, the store down, fail closed", func() (map[string]any, error) {
		return lockFigures(func(p *lock.Params) { p.Store, p.OnDown = lock.Down, lock.FailClosed })
	}},
	{"lock", "get-then-set-20", "lock, GET then SET, 20 senders", func() (map[string]any, error) {
		return lockFigures(func(p *lock.Params) { p.Guard, p.Dupes = lock.GetThenSet, 20 })
	}},
	{"outbox", "crash-inbox", "outbox, a relay crash, an inbox", func() (map[string]any, error) {
		return outboxFigures(1, true)
	}},
	{"outbox", "five-no-inbox", "outbox, 5 orders, a relay crash, no inbox", func() (map[string]any, error) {
		return outboxFigures(5, false)
	}},
	{"saga", "keys", "saga, the hotel fails after a crash, keys", func() (map[string]any, error) {
		return sagaFigures(true)
	}},
	{"saga", "no-keys", "saga, the hotel fails after a crash, no keys", func() (map[string]any, error) {
		return sagaFigures(false)
	}},
	{"ordering", "dedupe", "ordering, evt_2 evt_1 evt_2, dedupe", func() (map[string]any, error) {
		return orderingFigures(ordering.Dedupe)
	}},
	{"ordering", "watermark", "ordering, evt_2 evt_1 evt_2, a watermark", func() (map[string]any, error) {
		return orderingFigures(ordering.Watermark)
	}},
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

func backoffFigures(policy backoff.Policy) (map[string]any, error) {
	p := backoff.Defaults()
	p.Policy = policy
	res, err := backoff.Run(p, 1)
	if err != nil {
		return nil, err
	}
	return withTrace(map[string]any{"calls": res.Calls, "last_served_s": res.LastServedS, "waves": res.Waves}, res.Trace), nil
}

func budgetFigures(withBudget bool) (map[string]any, error) {
	p := budget.Defaults()
	p.Budget = withBudget
	res, err := budget.Run(p)
	if err != nil {
		return nil, err
	}
	return withTrace(map[string]any{"calls": res.Calls, "retries": res.Retries, "denied": res.Denied}, res.Trace), nil
}

func stormFigures(withBudget, skip bool) (map[string]any, error) {
	p := storm.Defaults()
	p.Budget, p.SkipExpired = withBudget, skip
	res, err := storm.Run(p)
	if err != nil {
		return nil, err
	}
	var recovered any // JSON null: never recovered within the run
	if res.RecoveredAfterS != nil {
		recovered = *res.RecoveredAfterS
	}
	return withTrace(map[string]any{"healthy": res.Healthy, "slow": res.Slow, "recovered_after_s": recovered}, res.Trace), nil
}

// withTrace adds what the reference runs report of their trace: its
// length and its last event's sentence, which checks the wording of the
// events as well as their number.
func guardFigures(strategy guard.Strategy) (map[string]any, error) {
	p := guard.Defaults()
	p.Strategy = strategy
	res, err := guard.Run(p, 1)
	if err != nil {
		return nil, err
	}
	return withTrace(map[string]any{"rows": res.Rows, "charges": res.Charges, "replayed": res.Replayed,
		"statuses": statuses(res.Statuses), "retry_status": res.Retry.Status, "other_status": res.Other.Status}, res.Trace), nil
}

// paymentFigures runs the payment model with the first attempt's fault
// first and the second attempt delivered.
func paymentFigures(keys payment.Keys, first payment.Fault) (map[string]any, error) {
	p := payment.Defaults()
	p.Keys, p.Faults = keys, []payment.Fault{first, payment.OK}
	res, err := payment.Run(p)
	if err != nil {
		return nil, err
	}
	return withTrace(map[string]any{"charges": len(res.Charges), "receipt": res.Receipt, "status": res.Status,
		"replayed": res.Replayed, "attempts": res.Attempts}, res.Trace), nil
}

// lockFigures runs the lock model at its defaults but for what change sets.
func lockFigures(change func(*lock.Params)) (map[string]any, error) {
	p := lock.Defaults()
	change(&p)
	res, err := lock.Run(p)
	if err != nil {
		return nil, err
	}
	var doneAt any // JSON null: a sender gave up
	if res.DoneAt != nil {
		doneAt = *res.DoneAt
	}
	return withTrace(map[string]any{"charges": res.Charges, "sends": res.Sends, "conflicts": res.Conflicts,
		"replays": res.Replays, "unavailable": res.Unavailable, "timeouts": res.Timeouts, "gave_up": res.GaveUp,
		"done_at_s": doneAt}, res.Trace), nil
}

// outboxFigures runs the outbox model with its relay crash, orders orders
// and the inbox or not.
func outboxFigures(orders int, inbox bool) (map[string]any, error) {
	p := outbox.Defaults()
	p.Orders, p.Inbox = orders, inbox
	res, err := outbox.Run(p)
	if err != nil {
		return nil, err
	}
	return withTrace(map[string]any{"orders": res.Orders, "published": res.Published, "emails": res.Emails,
		"skipped": res.Skipped}, res.Trace), nil
}

// sagaFigures runs the saga model at its defaults (the hotel refuses, the
// runner crashes after the flight), with keys or not.
func sagaFigures(keys bool) (map[string]any, error) {
	p := saga.Defaults()
	p.Keys = keys
	res, err := saga.Run(p)
	if err != nil {
		return nil, err
	}
	return withTrace(map[string]any{"outcome": res.Outcome, "charges": res.Charges, "undos": res.Undos,
		"stray": res.Stray, "calls": res.Calls, "crashes": res.Crashes}, res.Trace), nil
}

// orderingFigures runs the ordering model's default arrivals under
// strategy.
func orderingFigures(strategy ordering.Strategy) (map[string]any, error) {
	p := ordering.Defaults()
	p.Strategy = strategy
	res, err := ordering.Run(p)
	if err != nil {
		return nil, err
	}
	return withTrace(map[string]any{"plan": res.Plan, "applied": strings.Join(res.Applied, ", "),
		"skipped": res.Skipped, "correct": res.Correct}, res.Trace), nil
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
func timeGo(fn func() (map[string]any, error), minTime time.Duration) (float64, int, error) {
	if _, err := fn(); err != nil {
		return 0, 0, err
	}
	var times []float64
	start := time.Now()
	for len(times) < 5 || time.Since(start) < minTime {
		t0 := time.Now()
		if _, err := fn(); err != nil {
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
