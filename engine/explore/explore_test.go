package explore

import (
	"bufio"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/retrylab/retrylab/engine/models"
)

// runs is how many seeds of every claim a test run checks: enough that
// each model's orders, crash points and parameters are met in their
// thousands, few enough that the whole package takes seconds.
const runs = 2000

var (
	explore = flag.Int("explore", 0, "check every claim on this many seeds (0: the tests' own "+strconv.Itoa(runs)+")")
	from    = flag.Uint64("explore.from", 0, "the first seed -explore checks")
	update  = flag.Bool("update", false, "write testdata/traces.txt afresh from this build's runs")
)

// Every claim holds on every seed checked. A failure names the seed and
// the command that replays it.
func TestClaims(t *testing.T) {
	n, first := uint64(runs), uint64(0)
	if *explore > 0 {
		n, first = uint64(*explore), *from
	}
	if runtime.GOARCH == "wasm" && *explore == 0 {
		n = runs / 20 // explored natively; here, the claims hold in this build too
	}
	for i := range Claims {
		c := &Claims[i]
		t.Run(c.ID(), func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			failed := 0
			for seed := first; seed < first+n; seed++ {
				if err := c.Check(seed); err != nil {
					t.Error(err)
					if failed++; failed == 3 {
						t.Fatalf("stopping after 3 failures")
					}
				}
			}
			t.Logf("%d seeds in %v", n, time.Since(start).Round(time.Millisecond))
		})
	}
}

// FuzzClaims lets the fuzzer choose the claim and the seed.
func FuzzClaims(f *testing.F) {
	for i := range Claims {
		f.Add(uint16(i), uint64(i))
	}
	f.Fuzz(func(t *testing.T, claim uint16, seed uint64) {
		if err := Claims[int(claim)%len(Claims)].Check(seed); err != nil {
			t.Fatal(err)
		}
	})
}

// A claim that holds on every case is no claim: each has to be able to
// fail. Every claim is run outside its scope, where its chapter says the
// thing goes wrong (a claim's outside draw: no key, no inbox, a lock
// shorter than the work), and must fail on one seed of a few hundred.
// A claim that no parameter breaks (a model's own bookkeeping) has none.
func TestClaimsCanFail(t *testing.T) {
	for i := range Claims {
		c := &Claims[i]
		if c.outside == nil {
			t.Logf("%s: no parameter takes it out of its scope", c.ID())
			continue
		}
		failed := false
		for seed := uint64(0); seed < 500 && !failed; seed++ {
			_, _, err := c.outside(seed)
			var f *Failure
			if err != nil && !errors.As(err, &f) {
				t.Fatal(err)
			}
			failed = f != nil
		}
		if !failed {
			t.Errorf("%s holds on 500 seeds outside its scope too: it checks nothing", c.ID())
		}
	}
}

// Every model of engine/models has claims, and every claim is a model's.
func TestEveryModelHasClaims(t *testing.T) {
	ids := map[string]bool{}
	for i := range Claims {
		c := &Claims[i]
		if _, ok := models.Find(c.Model); !ok {
			t.Errorf("%s: no model %q", c.ID(), c.Model)
		}
		if ids[c.ID()] {
			t.Errorf("%s: two claims of that name", c.ID())
		}
		ids[c.ID()] = true
		if _, err := os.Stat(filepath.Join("..", "..", "content", c.Chapter+".md")); err != nil {
			t.Errorf("%s: its chapter: %v", c.ID(), err)
		}
	}
	for _, m := range models.All {
		if len(Of(m.Name)) == 0 {
			t.Errorf("model %s: no claims in engine/explore", m.Name)
		}
	}
}

// A case's command line replays the very run the claim checked: its
// values read by the model's declaration, as the CLI reads its flags,
// and its schedule seed give the same trace.
func TestCommandReplaysTheCase(t *testing.T) {
	for i := range Claims {
		c := &Claims[i]
		for seed := uint64(0); seed < 20; seed++ {
			cs, want, err := c.Run(seed)
			if err != nil {
				t.Fatalf("%s seed %d: %v", c.ID(), seed, err)
			}
			got, err := Replay(cs)
			if err != nil {
				t.Fatalf("%s seed %d: %s: %v", c.ID(), seed, cs.Command(), err)
			}
			if Hash(got.Trace) != Hash(want) {
				t.Fatalf("%s seed %d: %s ran another run than the claim's", c.ID(), seed, cs.Command())
			}
		}
	}
}

// tracesFile holds the hash of the trace of each model's defaults at a
// few schedule seeds, and of the first cases of every claim, as a build
// ran them. The same seed gives the same trace in another process and in
// the other build: make test checks this file natively and compiled to
// WebAssembly under Node, and a change to a model's trace shows here
// (go test ./engine/explore -run TestTraceHashes -update writes it).
const tracesFile = "testdata/traces.txt"

func TestTraceHashes(t *testing.T) {
	got := traceHashes(t)
	if *update {
		var b strings.Builder
		b.WriteString("# run schedule-or-seed trace-hash: go test ./engine/explore -run TestTraceHashes -update\n")
		for _, l := range got {
			b.WriteString(l + "\n")
		}
		if err := os.WriteFile(tracesFile, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(tracesFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var want []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := sc.Text(); l != "" && !strings.HasPrefix(l, "#") {
			want = append(want, l)
		}
	}
	wantSet := map[string]bool{}
	for _, l := range want {
		wantSet[l] = true
	}
	for _, l := range got {
		if !wantSet[l] {
			t.Errorf("%s: this build (%s/%s) ran another trace than %s holds", strings.Join(strings.Fields(l)[:2], " "), runtime.GOOS, runtime.GOARCH, tracesFile)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d runs, %s lists %d", len(got), tracesFile, len(want))
	}
	if t.Failed() {
		t.Log("a model's trace changed on purpose: go test ./engine/explore -run TestTraceHashes -update")
	}
}

// traceHashes are this build's lines of tracesFile.
func traceHashes(t *testing.T) []string {
	var lines []string
	hex := func(h uint64) string { return strconv.FormatUint(h, 16) }
	for _, m := range models.All {
		schedules := []uint64{0}
		if m.Reorders {
			schedules = append(schedules, 1, 2, 3)
		}
		for _, s := range schedules {
			run, err := m.RunSchedule(m.Schema.Defaults(), s)
			if err != nil {
				t.Fatalf("%s: %v", m.Name, err)
			}
			lines = append(lines, m.Name+" "+strconv.FormatUint(s, 10)+" "+hex(Hash(run.Trace)))
		}
	}
	for i := range Claims {
		c := &Claims[i]
		for seed := uint64(1); seed <= 3; seed++ {
			_, tr, err := c.Run(seed)
			if err != nil {
				t.Fatalf("%s seed %d: %v", c.ID(), seed, err)
			}
			lines = append(lines, c.ID()+" "+strconv.FormatUint(seed, 10)+" "+hex(Hash(tr)))
		}
	}
	for _, f := range findings {
		run, err := Replay(f.cs)
		if err != nil {
			t.Fatalf("%s: %v", f.cs.Command(), err)
		}
		lines = append(lines, "finding:"+f.cs.Model+" "+strconv.FormatUint(f.cs.Schedule, 10)+" "+hex(Hash(run.Trace)))
	}
	return lines
}

// findings are cases exploration found where a chapter said, or let the
// reader think, the thing could not happen; the chapter and the model's
// documentation now say it does, and each case is held to the figures
// it came to, run as its command line runs it.
var findings = []struct {
	says string
	cs   Case
	want map[string]string
}{
	{
		// Found by lock/setnx-once when it drew any lock longer than
		// the work: the recipe takes the lock before it reads the
		// result, so a retry after the lock expired charges again.
		says: "content/redis-key-store.md: a lock longer than the work charges twice when a retry comes after it expired",
		cs: Case{Model: "lock", Schedule: 17, Names: []string{"dupes", "work", "lock-ttl", "timeout", "retry", "attempts"},
			Values: map[string]string{"dupes": "66", "work": "627", "lock-ttl": "667", "timeout": "42", "retry": "113", "attempts": "10"}},
		want: map[string]string{"charges": "2"},
	},
}

func TestFindings(t *testing.T) {
	for _, f := range findings {
		run, err := Replay(f.cs)
		if err != nil {
			t.Fatalf("%s: %v", f.cs.Command(), err)
		}
		for k, v := range f.want {
			if got := run.Figures[k]; got != v {
				t.Errorf("%s (%s): %s %s, want %s", f.says, f.cs.Command(), k, got, v)
			}
		}
	}
}
