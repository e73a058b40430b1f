package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Lines as bench/reference/timing.py prints them.
const pythonOutput = `{"case": "budget", "model": "budget", "result": {"calls": 1109, "denied": 997, "events": 2106, "last_event": "A retry would empty the bucket: request 1000 gives up instead (bucket: 0.9 tokens).", "retries": 109}, "runs": 101, "seconds_per_run": 0.0019963887326763267}

{"case": "retry", "model": "storm", "result": {"events": 120, "healthy": 80, "recovered_after_s": null, "slow": 20}, "runs": 9, "seconds_per_run": 0.011135121444416049}
`

func TestParsePython(t *testing.T) {
	cases, err := parsePython(strings.NewReader(pythonOutput))
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 2 {
		t.Fatalf("%d cases, want 2 (the blank line skipped)", len(cases))
	}
	b := cases[0]
	if b.Model != "budget" || b.Case != "budget" || b.Runs != 101 || b.SecondsPerRun != 0.0019963887326763267 {
		t.Errorf("first case %+v", b)
	}
	if b.Result["calls"] != 1109.0 {
		t.Errorf("calls %v (%T), want 1109", b.Result["calls"], b.Result["calls"])
	}
	if v, ok := cases[1].Result["recovered_after_s"]; !ok || v != nil {
		t.Errorf("recovered_after_s = %v, %v; want a null that is there", v, ok)
	}

	for _, bad := range []string{
		`{"model": "budget", "case": "budget", "runs": 3, "seconds_per_run": 0.1}`,               // no result
		`{"model": "budget", "case": "budget", "runs": 0, "seconds_per_run": 0.1, "result": {}}`, // no runs
		`{"model": "budget", "case": "budget", "runs": 3, "seconds_per_run": 0, "result": {}}`,   // no time
		`Traceback (most recent call last):`,
	} {
		_, err := parsePython(strings.NewReader(pythonOutput + bad + "\n"))
		if err == nil || !strings.HasPrefix(err.Error(), "line 4:") {
			t.Errorf("parsing a last line %s: error %v, want one naming line 4", bad, err)
		}
	}
}

func TestDisagreements(t *testing.T) {
	pyFigs := map[string]any{"calls": 1109, "last_served_s": 132.7, "recovered_after_s": nil, "last_event": "Second 119: 80 new.",
		"applied": []any{"evt_2", "evt_1"}}
	same := map[string]any{"calls": 1109.0, "last_served_s": 132.7, "recovered_after_s": nil, "last_event": "Second 119: 80 new.",
		"applied": []any{"evt_2", "evt_1"}, "extra": 1.0}
	if d := disagreements(pyFigs, same, "Python", "Go"); len(d) != 0 {
		t.Errorf("equal figures (an int and a float of one value, nulls, lists, an extra Go figure) disagree: %v", d)
	}
	other := map[string]any{"calls": 1110.0, "last_served_s": 132.7, "recovered_after_s": 20.0, "applied": []any{"evt_2"}}
	d := disagreements(pyFigs, other, "Python", "Go")
	want := []string{
		"applied: [evt_2 evt_1] (Python) vs [evt_2] (Go)",
		"calls: 1109 (Python) vs 1110 (Go)",
		"last_event: missing from the Go run",
		"recovered_after_s: null (Python) vs 20 (Go)",
	}
	if strings.Join(d, "\n") != strings.Join(want, "\n") {
		t.Errorf("disagreements:\n%s\nwant:\n%s", strings.Join(d, "\n"), strings.Join(want, "\n"))
	}
}

// A summary's nested objects are figures named by their path.
func TestSummaryFigures(t *testing.T) {
	got, err := summaryFigures(struct {
		Rows     int            `json:"rows"`
		Statuses map[int]int    `json:"statuses"`
		Retry    map[string]any `json:"retry"`
	}{20, map[int]int{201: 1, 409: 19}, map[string]any{"status": 201}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"rows": 20.0, "statuses_201": 1.0, "statuses_409": 19.0, "retry_status": 201.0}
	if d := disagreements(want, got, "want", "summary"); len(d) > 0 || len(got) != len(want) {
		t.Errorf("figures %v, want %v: %v", got, want, d)
	}
}

// The cases the bench times are run with the parameters of the published
// figures (engine/figures): the engine gives those figures for them.
func TestModelCasesAreTheFigures(t *testing.T) {
	want := map[string]map[string]any{
		"backoff/none":                  {"calls": 10500, "last_served_s": 132.7, "waves": 20},
		"budget/budget":                 {"calls": 1109},
		"budget/no-budget":              {"calls": 4000},
		"storm/retry":                   {"healthy": 80, "slow": 20, "recovered_after_s": nil},
		"storm/budget":                  {"healthy": 80, "slow": 20, "recovered_after_s": 20},
		"storm/budget-skip":             {"healthy": 80, "slow": 40, "recovered_after_s": 0},
		"backoff/full":                  nil, // a random figure: checked against Python, draw for draw
		"guard/check-then-insert":       {"rows": 20, "charges": 20, "statuses_201": 20},
		"guard/constraint-after-charge": {"rows": 1, "charges": 20, "statuses_201": 1, "statuses_409": 19},
		"guard/claim-before-work":       {"rows": 1, "charges": 1, "statuses_201": 1, "statuses_409": 19},
		"payment/lose-request":          {"charges": 1, "receipt": "ch_1"},
		"payment/lose-response":         {"charges": 2, "receipt": "ch_2"},
		"payment/per-intent":            {"charges": 1, "receipt": "ch_1", "replayed": true},
		"payment/per-attempt":           {"charges": 2, "receipt": "ch_2"},
		"lock/setnx-20":                 {"charges": 1, "sends": 39, "conflicts": 19, "replays": 19, "done_at_s": 60},
		"lock/crash-after-charge":       {"charges": 2, "sends": 12, "conflicts": 9, "replays": 1, "done_at_s": 310},
		"lock/fail-closed":              {"charges": 1, "sends": 5, "unavailable": 2, "done_at_s": 120},
		"lock/get-then-set-20":          {"charges": 20, "sends": 20, "done_at_s": 2},
		"outbox/crash-inbox":            {"published": 2, "emails": 1},
		"outbox/five-no-inbox":          {"published": 6, "emails": 6},
		"saga/keys":                     {"charges": 1, "undos": 1, "stray": 0, "outcome": "compensated"},
		"saga/no-keys":                  {"charges": 1, "undos": 1, "stray": 1, "outcome": "compensated"},
		"ordering/dedupe":               {"plan": "starter", "correct": false},
		"ordering/version-guard":        {"plan": "pro", "correct": true},
	}
	for _, mc := range modelCases {
		key := mc.Model + "/" + mc.Case
		w, ok := want[key]
		if !ok {
			t.Errorf("case %s has no published figure here", key)
			continue
		}
		figs, err := mc.Run()
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		if d := disagreements(w, figs, "published", "Go"); len(d) > 0 {
			t.Errorf("%s: %v", key, d)
		}
		if n, _ := number(figs["events"]); n < 1 || figs["last_event"] == "" {
			t.Errorf("%s: trace of %v events, last %q", key, figs["events"], figs["last_event"])
		}
		delete(want, key)
	}
	for key := range want {
		t.Errorf("case %s is not timed", key)
	}
}

// Every reference script gives the engine's figures and last event, word
// for word, for every case the bench times, and times no case the bench
// does not know. It needs python3 (build/install-deps.sh installs it).
func TestReferencesAgree(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal("python3 not found, so the references cannot be checked: run build/install-deps.sh")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]modelCase{}
	for _, mc := range modelCases {
		cases[mc.Model+"/"+mc.Case] = mc
	}
	for _, model := range referenceModels() {
		got, err := runPython(context.Background(), python, root, model, time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range got {
			key := c.Model + "/" + c.Case
			mc, ok := cases[key]
			if !ok {
				t.Errorf("bench/reference/%s.py times %s, which the bench does not", model, key)
				continue
			}
			delete(cases, key)
			if _, ok := c.Result["last_event"]; !ok || len(c.Result) < 3 {
				t.Errorf("%s: the Python run prints %v: want its figures, events and last_event", key, c.Result)
			}
			want, err := mc.Run()
			if err != nil {
				t.Fatalf("%s: %v", key, err)
			}
			if d := disagreements(flatten(c.Result), want, "Python", "Go"); len(d) > 0 {
				t.Errorf("%s: %s", key, strings.Join(d, "; "))
			}
		}
	}
	for key := range cases {
		t.Errorf("no reference script times %s", key)
	}
}
