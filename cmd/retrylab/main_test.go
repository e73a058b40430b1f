package main

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/engine/figures"
	"github.com/retrylab/retrylab/engine/models"
	"github.com/retrylab/retrylab/engine/param"
	"github.com/retrylab/retrylab/site/widget"
)

// cli runs retrylab in-process and returns its exit status and output.
func cli(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// simJSON runs `retrylab sim ARGS... --json` and decodes the summary.
func simJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	code, out, errs := cli(append(append([]string{"sim"}, args...), "--json")...)
	if code != 0 {
		t.Fatalf("retrylab sim %v: exit %d, %s", args, code, errs)
	}
	if strings.Count(out, "\n") != 1 {
		t.Fatalf("retrylab sim %v --json printed more than one line: %q", args, out)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("retrylab sim %v --json: %v in %q", args, err, out)
	}
	return m
}

// want checks fields of a decoded summary; JSON numbers decode as float64.
func want(t *testing.T, what string, got map[string]any, fields map[string]any) {
	t.Helper()
	for k, v := range fields {
		g, ok := got[k]
		if !ok {
			t.Errorf("%s: no field %q in %v", what, k, got)
			continue
		}
		gj, _ := json.Marshal(g)
		wj, _ := json.Marshal(v)
		if string(gj) != string(wj) {
			t.Errorf("%s: %s = %s, want %s", what, k, gj, wj)
		}
	}
}

// The published figures (engine/figures), through the command line.
func TestSimJSONFigures(t *testing.T) {
	for _, r := range figures.Rows {
		args := []string{r.Model}
		for _, k := range slices.Sorted(maps.Keys(r.Params)) {
			args = append(args, "--"+k, r.Params[k])
		}
		got := simJSON(t, args...)
		for k, want := range r.Want {
			if g := jsonFigure(got, k); g != want {
				t.Errorf("sim %v: %s = %q, want %q (%v)", args, k, g, want, got)
			}
		}
	}
}

// jsonFigure reads the figure the table calls name from a --json summary.
func jsonFigure(m map[string]any, name string) string {
	switch name {
	case "last-served":
		return strconv.FormatFloat(m["last_served_s"].(float64), 'f', 1, 64)
	case "done-at":
		if m["done_at_s"] == nil {
			return "never"
		}
		return strconv.FormatFloat(m["done_at_s"].(float64), 'f', -1, 64)
	case "recovered":
		if m["recovered_after_s"] == nil {
			return "never"
		}
		return strconv.FormatFloat(m["recovered_after_s"].(float64), 'f', -1, 64)
	case "statuses":
		st := m["statuses"].(map[string]any)
		var parts []string
		for _, c := range slices.Sorted(maps.Keys(st)) {
			parts = append(parts, c+":"+strconv.FormatFloat(st[c].(float64), 'f', -1, 64))
		}
		return strings.Join(parts, ",")
	}
	switch v := m[name].(type) {
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case string:
		return v
	}
	return "<no " + name + ">"
}

// Full jitter depends on the seed, and the same seed gives the same run.
func TestSeed(t *testing.T) {
	a := simJSON(t, "backoff", "--policy", "full", "--seed", "3")
	b := simJSON(t, "backoff", "--policy=full", "--seed=3")
	c := simJSON(t, "backoff", "--policy", "full", "--seed", "4")
	if a["calls"] != b["calls"] || a["last_served_s"] != b["last_served_s"] {
		t.Fatalf("seed 3 twice: %v and %v calls", a["calls"], b["calls"])
	}
	if a["calls"] == c["calls"] && a["last_served_s"] == c["last_served_s"] {
		t.Fatal("seeds 3 and 4 gave the same run")
	}
	if n := a["calls"].(float64); n < float64(figures.FullJitter.CallsMin) || n > float64(figures.FullJitter.CallsMax) {
		t.Fatalf("full jitter: %v calls", n)
	}
}

// Usage errors exit 2 and name the thing that is wrong and what is allowed.
func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		says []string
	}{
		{nil, []string{"usage: retrylab"}},
		{[]string{"frob"}, []string{`unknown command "frob"`, "known: api, check, lab, load, sim"}},
		{[]string{"sim"}, []string{"name a model", "(known: " + strings.Join(models.Names(), ", ") + ")"}},
		{[]string{"sim", "nope"}, []string{`unknown model "nope"`, "(known: " + strings.Join(models.Names(), ", ") + ")"}},
		{[]string{"sim", "backoff", "--foo", "3"}, []string{"unknown parameter --foo", "--base, --cap, --capacity, --clients, --compare, --json, --policy, --schedule, --seed, --slot"}},
		{[]string{"sim", "backoff", "--clients", "0"}, []string{`clients: "0" is out of bounds (allowed: 1 to 100000)`}},
		{[]string{"sim", "backoff", "--clients=200000"}, []string{`clients: "200000" is out of bounds (allowed: 1 to 100000)`}},
		{[]string{"sim", "backoff", "--slot", "0"}, []string{`slot: "0" is out of bounds (allowed: 0.001 to 10)`}},
		{[]string{"sim", "backoff", "--policy", "jittery"}, []string{`policy: "jittery" is not allowed (allowed: none, full, equal, decorrelated)`}},
		{[]string{"sim", "backoff", "--clients", "many"}, []string{`clients: "many" is not a whole number`}},
		{[]string{"sim", "backoff", "--clients"}, []string{"--clients needs a value"}},
		{[]string{"sim", "backoff", "--clients", "3", "--clients", "4"}, []string{"--clients is given more than once"}},
		{[]string{"sim", "backoff", "stray"}, []string{`unexpected argument "stray"`}},
		{[]string{"sim", "backoff", "---clients", "3"}, []string{"bad flag syntax: ---clients", "--NAME VALUE"}},
		{[]string{"sim", "backoff", "--json=maybe"}, []string{`json: "maybe" is not allowed (allowed: true, false)`}},
		{[]string{"sim", "backoff", "--seed", "-1"}, []string{`seed: "-1" is out of bounds (allowed: 0 to 1000000000)`}},
		{[]string{"sim", "cas", "--seed", "x"}, []string{`seed: "x" is not a whole number (allowed: 0 to 1000000000)`}},
		{[]string{"sim", "lock", "--schedule", "-3"}, []string{`schedule: "-3" is not a whole number (allowed: 0 to 18446744073709551615)`}},
		{[]string{"sim", "lock", "--schedule", "1", "--schedule", "2"}, []string{"--schedule is given more than once"}},
		{[]string{"sim", "lock", "--work", "1.5"}, []string{`work: "1.5" is not a whole number (allowed: 0 to 604800)`}},
		{[]string{"sim", "backoff", "--base", "0.2", "--cap", "0.1"}, []string{`cap: "0.1" is not at least base (0.2)`}},
		{[]string{"sim", "payment", "--attempts", "11"}, []string{`payment: attempts: "11" is out of bounds (allowed: 1 to 10)`}},
		{[]string{"sim", "budget", "--budget", "maybe"}, []string{`budget: "maybe" is not allowed (allowed: on, off)`}},
		{[]string{"sim", "budget", "--ratio", "2"}, []string{`ratio: "2" is out of bounds (allowed: 0 to 1)`}},
		{[]string{"sim", "storm", "--slow-to", "5"}, []string{`slow-to: "5" is not above slow-from (10)`}},
		{[]string{"sim", "guard", "--strategy", "lock"}, []string{`strategy: "lock" is not allowed (allowed: check-then-insert, constraint-after-charge, claim-before-work)`}},
		{[]string{"sim", "guard", "--n", "0"}, []string{`guard: n: "0" is out of bounds (allowed: 1 to 50)`}},
		{[]string{"sim", "payment", "--keys", "sometimes"}, []string{"keys:", `"sometimes"`, "off, per-intent, per-attempt"}},
		{[]string{"sim", "payment", "--faults", "lose-response,drop"}, []string{"faults:", `"drop"`, "ok, lose-request, lose-response"}},
		{[]string{"sim", "ordering", "--arrival", "evt_3"}, []string{`arrival: "evt_3" is not allowed (did you mean evt_1? allowed: evt_1, evt_2)`}},
		{[]string{"sim", "sent-marker", "--crash", "later"}, []string{`crash: "later" is not allowed (allowed: none, before-marker, before-ack)`}},
	} {
		code, out, errs := cli(c.args...)
		if code != 2 || out != "" {
			t.Errorf("retrylab %v: exit %d, stdout %q; want exit 2 and nothing on stdout", c.args, code, out)
		}
		for _, s := range c.says {
			if !strings.Contains(errs, s) {
				t.Errorf("retrylab %v: message %q does not say %q", c.args, errs, s)
			}
		}
	}
}

// Every model runs with its defaults, as a table and as JSON, and lists
// its parameters with --help.
func TestEveryModelRuns(t *testing.T) {
	for _, m := range models.All {
		name := m.Name
		code, out, errs := cli("sim", name)
		if code != 0 || errs != "" || !strings.HasPrefix(out, name+": ") {
			t.Errorf("sim %s: exit %d, %q, %q", name, code, out, errs)
		}
		simJSON(t, name)
		code, out, _ = cli("sim", name, "--help")
		for _, p := range m.Schema {
			if code != 0 || !strings.Contains(out, "--"+p.Name) {
				t.Errorf("sim %s --help: exit %d, no --%s in %q", name, code, p.Name, out)
			}
		}
	}
}

// The table says what ran and what came of it.
func TestTextTable(t *testing.T) {
	code, out, _ := cli("sim", "backoff")
	for _, s := range []string{
		"backoff: policy=none compare=full clients=1000 capacity=50 slot=0.1 base=0.1 cap=10 seed=1",
		"compared with     full",
		"calls             " + figures.Of("backoff")[0].Want["calls"], "last served       " + figures.Of("backoff")[0].Want["last-served"] + " s", "busy slots        20",
	} {
		if code != 0 || !strings.Contains(out, s) {
			t.Errorf("sim backoff: no %q in\n%s", s, out)
		}
	}
	_, out, _ = cli("sim", "storm", "--budget", "on")
	if !strings.Contains(out, "recovered             20 s after the slowdown ended") || !strings.Contains(out, "51-119") {
		t.Errorf("sim storm --budget on:\n%s", out)
	}
	_, out, _ = cli("sim", "guard", "--strategy", "claim-before-work")
	for _, s := range []string{"statuses         201: 1, 409: 19", "a retry after    201 pay_1, replayed", "another amount   422"} {
		if !strings.Contains(out, s) {
			t.Errorf("sim guard: no %q in\n%s", s, out)
		}
	}
}

// A run within bounds that is too long to simulate fails with exit 1: the
// command line was right, the run was not possible.
func TestTooLongRunExits1(t *testing.T) {
	// A hundred thousand clients in lockstep, one served per 0.1 s slot,
	// 10 s apart: past 50,000,000 queued calls after about 500 waves.
	code, out, errs := cli("sim", "backoff", "--clients", "100000", "--capacity", "1", "--compare", "off")
	if code != 1 || out != "" || !strings.Contains(errs, "too long to simulate") {
		t.Fatalf("exit %d, %q, %q", code, out, errs)
	}
}

// BenchmarkSim runs `retrylab sim NAME --json` for every model at its
// defaults, end to end: parsing, the engine, the JSON.
func BenchmarkSim(b *testing.B) {
	for _, name := range models.Names() {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if code := run([]string{"sim", name, "--json"}, io.Discard, io.Discard); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
		})
	}
}

// Every widget's parameter is a flag of the model of the same name, with
// the same declaration (label, help, default, bounds, allowed values,
// rules), and --help shows its default and bounds.
func TestEveryWidgetParameterIsAFlag(t *testing.T) {
	for _, w := range widget.All() {
		m, ok := models.Find(w.Name)
		if !ok {
			t.Errorf("widget %s: no model of that name in the CLI", w.Name)
			continue
		}
		_, help, _ := cli("sim", w.Name, "--help")
		for _, p := range w.Schema {
			q, ok := m.Schema.Param(p.Name)
			if !ok {
				t.Errorf("widget %s: parameter %s is not a flag", w.Name, p.Name)
				continue
			}
			if !reflect.DeepEqual(p, q) {
				t.Errorf("widget %s: parameter %s is declared\n%+v\nbut the CLI has\n%+v", w.Name, p.Name, p, q)
			}
			line := ""
			for _, l := range strings.Split(help, "\n") {
				if strings.HasPrefix(strings.TrimSpace(l), "--"+p.Name+" ") {
					line = l
				}
			}
			want := []string{"(default " + strings.ReplaceAll(p.Default, ", ", ",") + ")", p.Label}
			if p.Kind == param.Int || p.Kind == param.Float {
				want = append(want, p.Bounds())
			}
			for _, s := range want {
				if !strings.Contains(line, s) {
					t.Errorf("sim %s --help: the line of --%s, %q, does not say %q", w.Name, p.Name, line, s)
				}
			}
		}
	}
}

// --schedule reorders a model's simultaneous events (and delays
// payment's messages): 0 is the run without it, another seed may come
// to other figures, and the header names the seed that ran.
func TestSimSchedule(t *testing.T) {
	plain := simJSON(t, "payment", "--faults", "ok")
	if zero := simJSON(t, "payment", "--faults", "ok", "--schedule", "0"); zero["charges"] != plain["charges"] || zero["receipt"] != plain["receipt"] {
		t.Fatalf("--schedule 0 ran %v, without it %v", zero, plain)
	}
	other := ""
	for seed := 1; seed <= 200 && other == ""; seed++ {
		if r := simJSON(t, "payment", "--faults", "ok", "--schedule", strconv.Itoa(seed)); r["charges"] != plain["charges"] {
			other = strconv.Itoa(seed)
		}
	}
	if other == "" {
		t.Fatal("payment with keys off: no schedule seed in 1 to 200 delayed an answer past the client's timeout")
	}
	if code, out, errs := cli("sim", "lock", "--schedule", "7"); code != 0 || !strings.Contains(out, " schedule=7\n") {
		t.Errorf("retrylab sim lock --schedule 7: exit %d, header %q %s", code, strings.SplitN(out, "\n", 2)[0], errs)
	}
	if code, out, errs := cli("sim", "cas", "--schedule", "7"); code != 0 || strings.Contains(out, "schedule=") {
		t.Errorf("retrylab sim cas --schedule 7 (nothing to reorder): exit %d, %q %s", code, out, errs)
	}
}
