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

	"github.com/retrylab/retrylab/engine/models"
	"github.com/retrylab/retrylab/engine/param"
	"github.com/retrylab/retrylab/engine/sim"
)

// modelCase is one run of an engine model that bench/reference/MODEL.py
// also runs, with the same parameters, under the same case name.
type modelCase struct {
	Model, Case string
	Label       string // as the table names it
	// Run runs the engine once and returns its figures for the Python
	// run to agree with: the model's summary (what `retrylab sim --json`
	// writes), flattened (figures), and its trace's length and last
	// sentence (withTrace).
	Run func() (map[string]any, error)
	// Time runs the engine once as the bench times it: the run, from its
	// parameters to its summary and trace, into the room of the case's
	// last run (engine/models' Repeat: the models' RunInto), as a caller
	// that runs a model again and again does, and the sentence of the
	// trace's last event, which the Python run returns too. Not the
	// summary's copy into Run's map for the comparison: a Python run's
	// dict is its summary, a Go run's summary is its Result. The reuse is
	// the one a Python run has for free: reference counting frees a run's
	// lists as it returns, and the next run's are made in the same memory.
	Time func() error
}

// newCase is the case of the model called model with the parameters
// params (other than its defaults, as the CLI's flags write them), made
// once, as the Python script's are, its run's arguments.
func newCase(model, name, label string, params map[string]string) modelCase {
	mc := modelCase{Model: model, Case: name, Label: label}
	m, ok := models.Find(model)
	var v param.Values
	err := fmt.Errorf("no model called %s", model)
	if ok {
		v, err = m.Schema.Parse(params)
	}
	if err != nil {
		mc.Run = func() (map[string]any, error) { return nil, err }
		mc.Time = func() error { return err }
		return mc
	}
	mc.Run = func() (map[string]any, error) {
		run, err := m.Run(v)
		if err != nil {
			return nil, err
		}
		figs, err := summaryFigures(run.Report.Summary)
		if err != nil {
			return nil, err
		}
		return withTrace(figs, run.Trace), nil
	}
	repeat := m.Repeat(v)
	mc.Time = func() error {
		t, err := repeat()
		if len(t) > 0 {
			_ = t[len(t)-1].Sentence()
		}
		return err
	}
	return mc
}

// summaryFigures are a run's summary as figures: its JSON object with the
// members of nested objects named by their path ("retry_status" is
// retry's status, "statuses_201" the count of 201s), numbers as float64
// and lists as lists, as a Python script's dict reads once printed.
func summaryFigures(summary any) (map[string]any, error) {
	b, err := json.Marshal(summary)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return flatten(m), nil
}

// flatten names the members of nested objects by their path, joined by _.
func flatten(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if inner, ok := v.(map[string]any); ok {
			for ik, iv := range flatten(inner) {
				out[k+"_"+ik] = iv
			}
			continue
		}
		out[k] = v
	}
	return out
}

// modelCases are the published figures' parameters: the backoff model's
// 1,000 clients without jitter and with full jitter (seed 1: the
// reference uses the engine's generator, so the run is the same draw for
// draw), the budget model with and without its bucket, the storm's
// three variants, the guard's three strategies with twenty requests in
// lockstep, the payment's four cases, four of the lock's, and two each of
// the outbox's, the saga's and the ordering's (engine/figures, and each
// model's package documentation).
var modelCases = []modelCase{
	newCase("backoff", "none", "backoff, 1,000 clients, no jitter", map[string]string{"policy": "none", "compare": "off"}),
	newCase("backoff", "full", "backoff, 1,000 clients, full jitter", map[string]string{"policy": "full", "compare": "off"}),
	newCase("budget", "budget", "budget, 1,000 requests, 10% budget", map[string]string{"budget": "on"}),
	newCase("budget", "no-budget", "budget, 1,000 requests, no budget", map[string]string{"budget": "off"}),
	newCase("storm", "retry", "storm, retry every timeout", nil),
	newCase("storm", "budget", "storm, retry budget", map[string]string{"budget": "on"}),
	newCase("storm", "budget-skip", "storm, budget + skip expired", map[string]string{"budget": "on", "skip-expired": "on"}),
	newCase("guard", "check-then-insert", "guard, 20 at once, check then insert", map[string]string{"strategy": "check-then-insert"}),
	newCase("guard", "constraint-after-charge", "guard, 20 at once, constraint after charge", map[string]string{"strategy": "constraint-after-charge"}),
	newCase("guard", "claim-before-work", "guard, 20 at once, claim before work", map[string]string{"strategy": "claim-before-work"}),
	newCase("payment", "lose-request", "payment, request lost, no keys", map[string]string{"keys": "off", "faults": "lose-request, ok"}),
	newCase("payment", "lose-response", "payment, answer lost, no keys", map[string]string{"keys": "off", "faults": "lose-response, ok"}),
	newCase("payment", "per-intent", "payment, answer lost, a key per intent", map[string]string{"keys": "per-intent", "faults": "lose-response, ok"}),
	newCase("payment", "per-attempt", "payment, answer lost, a key per attempt", map[string]string{"keys": "per-attempt", "faults": "lose-response, ok"}),
	newCase("lock", "setnx-20", "lock, SET NX, 20 senders", map[string]string{"dupes": "20"}),
	newCase("lock", "crash-after-charge", "lock, SET NX, a crash after the charge", map[string]string{"crash": "after-charge"}),
	newCase("lock", "fail-closed", "lock, SET NX, the store down, fail closed", map[string]string{"store": "down", "on-down": "fail-closed"}),
	newCase("lock", "get-then-set-20", "lock, GET then SET, 20 senders", map[string]string{"guard": "get-then-set", "dupes": "20"}),
	newCase("outbox", "crash-inbox", "outbox, a relay crash, an inbox", map[string]string{"orders": "1", "inbox": "on"}),
	newCase("outbox", "five-no-inbox", "outbox, 5 orders, a relay crash, no inbox", map[string]string{"orders": "5", "inbox": "off"}),
	newCase("saga", "keys", "saga, the hotel fails after a crash, keys", map[string]string{"keys": "on"}),
	newCase("saga", "no-keys", "saga, the hotel fails after a crash, no keys", map[string]string{"keys": "off"}),
	newCase("ordering", "dedupe", "ordering, evt_2 evt_1 evt_2, dedupe", map[string]string{"strategy": "dedupe"}),
	newCase("ordering", "version-guard", "ordering, evt_2 evt_1 evt_2, a version guard", map[string]string{"strategy": "version-guard"}),
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

// disagreements lists the figures of want that got has otherwise or
// lacks, as "calls: 1109 (Go) vs 1110 (Python)"; wantRun and gotRun name
// the two runs. Numbers compare as numbers, so 80 and 80.0 agree; null
// agrees only with null; lists agree item by item.
func disagreements(want, got map[string]any, wantRun, gotRun string) []string {
	var diffs []string
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		g, ok := got[k]
		if !ok {
			diffs = append(diffs, k+": missing from the "+gotRun+" run")
			continue
		}
		if !sameFigure(want[k], g) {
			diffs = append(diffs, fmt.Sprintf("%s: %v (%s) vs %v (%s)", k, show(want[k]), wantRun, show(g), gotRun))
		}
	}
	return diffs
}

func sameFigure(a, b any) bool {
	if la, ok := a.([]any); ok {
		lb, ok := b.([]any)
		if !ok || len(la) != len(lb) {
			return false
		}
		for i := range la {
			if !sameFigure(la[i], lb[i]) {
				return false
			}
		}
		return true
	}
	if _, ok := b.([]any); ok {
		return false
	}
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
