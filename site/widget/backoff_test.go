package widget

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/engine/backoff"
	fig "github.com/retrylab/retrylab/engine/figures"
)

// The defaults are the figures of engine/backoff: no jitter takes
// exactly 10,500 calls and serves the last client at 132.7 s; full jitter,
// the comparison, between 4,950 and 5,100 calls and 4 to 12 s.
func TestBackoffDefaults(t *testing.T) {
	html := render(t, &Backoff, nil)
	f := figures(t, html)
	none := fig.Of("backoff")[0].Want
	want(t, "defaults", f, map[string]string{"data-calls": none["calls"], "data-last-served": none["last-served"]})
	calls, last := mustAtoi(t, f["data-compare-calls"]), mustFloat(t, f["data-compare-last-served"])
	j := fig.FullJitter
	if calls < j.CallsMin || calls > j.CallsMax || last < j.LastMinS || last > j.LastMaxS {
		t.Errorf("full jitter, seed 1: %d calls, last served at %v s; want 4,950 to 5,100 and 4 to 12 s", calls, last)
	}
	// One chart for both policies, an image with a name and a description
	// that carry both runs' figures: the first policy's bars, the second's
	// outline, each in its policy's colour.
	if n := strings.Count(html, `<svg class="chart bo-chart" role="img"`); n != 1 {
		t.Errorf("%d charts, want one for both policies", n)
	}
	if !strings.Contains(html, "<desc>No jitter: 10,500 calls for 1,000 clients, in 20 waves; the last client is served at 132.7 s. Full jitter: ") {
		t.Error("the chart's description lacks the figures of both runs")
	}
	for _, mark := range []string{`<path class="bars p-none"`, `<path class="steps p-full"`} {
		if !strings.Contains(html, mark) {
			t.Errorf("the chart has no %s", mark)
		}
	}
	// The controls name the policies as the figures do, and "off" is not
	// set beside a policy called "none".
	for _, opt := range []string{`<option value="none" selected>none: no jitter</option>`, `<option value="off">nothing: one policy alone</option>`,
		`<option value="full" selected>full jitter</option>`} {
		if !strings.Contains(html, opt) {
			t.Errorf("no %s among the controls", opt)
		}
	}
	self := figures(t, render(t, &Backoff, map[string]string{"policy": "full", "compare": "full"}))
	if _, ok := self["data-compare-calls"]; ok {
		t.Errorf("a policy compared with itself draws a second run: %v", self)
	}
	off := figures(t, render(t, &Backoff, map[string]string{"compare": "off"}))
	if _, ok := off["data-compare-calls"]; ok {
		t.Errorf("compare off still reports a comparison: %v", off)
	}
}

// The seed is a parameter: the same seed draws the same run, another seed
// another one.
func TestBackoffSeed(t *testing.T) {
	get := func(seed string) string {
		return figures(t, render(t, &Backoff, map[string]string{"policy": "full", "compare": "off", "seed": seed}))["data-calls"]
	}
	if a, b, c := get("3"), get("3"), get("4"); a != b || a == c {
		t.Fatalf("seeds 3, 3, 4 gave %s, %s, %s calls", a, b, c)
	}
}

// A new seed runs the jittered policy again and not the one without
// jitter, whose run is the same for every seed; the cache keeps it while
// it is used, however many seeds come and go.
func TestBackoffNewSeedRunsOnlyTheJitter(t *testing.T) {
	// From an empty cache, whatever ran before (this test, under -count).
	recent.Lock()
	recent.runs = nil
	recent.Unlock()
	var ran []string
	defer func(run func(backoff.Params) (backoff.Result, error)) { runEngine = run }(runEngine)
	runEngine = func(p backoff.Params) (backoff.Result, error) {
		ran = append(ran, string(p.Policy)+" "+strconv.FormatUint(p.Seed, 10))
		return backoff.Run(p)
	}
	for seed := 2; seed <= 8; seed++ {
		render(t, &Backoff, map[string]string{"clients": "777", "policy": "none", "compare": "full", "seed": strconv.Itoa(seed)})
	}
	want := "none 0, full 2, full 3, full 4, full 5, full 6, full 7, full 8"
	if got := strings.Join(ran, ", "); got != want {
		t.Fatalf("engine runs %s; want %s", got, want)
	}
}

var barRE = regexp.MustCompile(`<path class="(?:bars|steps) p-[a-z]+" data-key="[a-z]+-0" d="([^"]*)"`)

// A hundred thousand clients run in the page and draw maxBars bars per
// chart (the bars of several slots summed, padded to maxBars), however
// long the run: no jitter takes 2,000 waves over 19,932.7 s here
// (engine/backoff's test of the same run). The widget's markup is then
// 18,852 bytes.
func TestBackoffHundredThousand(t *testing.T) {
	html := render(t, &Backoff, map[string]string{"clients": "100000", "policy": "none", "compare": "full"})
	f := figures(t, html)
	want(t, "100k", f, map[string]string{"data-calls": "100050000", "data-last-served": "19932.7"})
	bars := barRE.FindAllStringSubmatch(html, -1)
	if len(bars) != 2 {
		t.Fatalf("%d bar series, want 2", len(bars))
	}
	for _, b := range bars {
		if n := max(strings.Count(b[1], "M"), strings.Count(b[1], "H")); n != maxBars {
			t.Errorf("%d bars in one chart, want %d", n, maxBars)
		}
	}
	if len(html) > 20_000 {
		t.Errorf("the widget's markup is %d bytes, want at most 20,000", len(html))
	}
}

// The page refuses a run that would take it seconds, at once, with an
// error that says what to change; the engine would have run it.
func TestBackoffTooBig(t *testing.T) {
	v, err := Backoff.Schema.Parse(map[string]string{"clients": "100000", "capacity": "1", "policy": "full"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Backoff.Run(v); !errors.Is(err, ErrBackoffTooBig) {
		t.Fatalf("100,000 clients against 1 call a slot, full jitter: %v, want ErrBackoffTooBig", err)
	}
	// Without jitter the same run is waves, cheap to count.
	v, _ = Backoff.Schema.Parse(map[string]string{"clients": "100000", "capacity": "10", "policy": "none", "compare": "off"})
	if _, err := Backoff.Run(v); err != nil {
		t.Fatalf("no jitter, 100,000 clients against 10: %v", err)
	}
}

// estimateCalls is what keeps the page responsive, so it must not
// underestimate: across policies, sizes and waits, the calls a run makes
// stay below it.
func TestBackoffEstimateIsGenerous(t *testing.T) {
	for _, c := range []struct{ clients, capacity int }{{1000, 50}, {5000, 50}, {20000, 200}, {2000, 5}} {
		for _, pol := range []backoff.Policy{backoff.Full, backoff.Equal, backoff.Decorrelated} {
			for _, wait := range [][2]float64{{0.1, 10}, {0.01, 1}, {1, 60}} {
				p := backoff.Binding.Defaults()
				p.Policy, p.Clients, p.Capacity = pol, c.clients, c.capacity
				p.Base, p.Cap = backoff.Seconds(wait[0]), backoff.Seconds(wait[1])
				res, err := backoff.Run(p)
				if err != nil {
					t.Fatal(err)
				}
				if est := estimateCalls(p); float64(res.Calls) > est {
					t.Errorf("%s, %d clients, capacity %d, base %v cap %v: %d calls, estimated %.0f",
						pol, c.clients, c.capacity, wait[0], wait[1], res.Calls, est)
				}
			}
		}
	}
}

func TestSlotsPerBar(t *testing.T) {
	for slots, want := range map[int]int{1: 1, 300: 1, 301: 2, 600: 2, 601: 5, 1328: 5, 3001: 20, 199_328: 1000} {
		if got := slotsPerBar(slots); got != want {
			t.Errorf("slotsPerBar(%d) = %d, want %d", slots, got, want)
		}
	}
	if got := peaks([]int{3, 9, 1, 0, 4}, 2, 3); got[0] != 9 || got[1] != 1 || got[2] != 4 {
		t.Errorf("peaks = %v, want [9 1 4]", got)
	}
}

func mustFloat(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q is not a number", s)
	}
	return f
}
