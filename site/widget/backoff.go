package widget

import (
	"errors"
	"math"
	"strconv"
	"sync"

	"github.com/retrylab/retrylab/engine/backoff"
	"github.com/retrylab/retrylab/site/chart"
)

// Backoff is the thundering herd: a thousand clients call at once and
// retry by a policy, against a server that answers 50 calls per 100 ms.
var Backoff = Widget{
	Name:    "backoff",
	Chapter: "/backoff-and-jitter/",
	Title:   "A thousand clients, with and without jitter",
	Summary: "Pick a waiting policy and see how many calls it takes to serve everyone, and how long.",
	Schema:  Schema(backoff.Binding.Schema),
	Run:     runBackoff,
}

func init() { register(&Backoff) }

// policyWords names a policy in a sentence.
func policyWords(p backoff.Policy) string {
	if p == backoff.None {
		return "no jitter"
	}
	return string(p) + " jitter"
}

// maxCalls bounds the calls a jittered run may take in the page. The
// engine makes about 25 million calls a second natively and a few times
// fewer in WebAssembly; 6 million keeps a run under a second there, and
// lets through the largest default: 100,000 clients against 50 a slot take
// about 5.2 million calls (estimateCalls).
const maxCalls = 6_000_000

// ErrBackoffTooBig is the error for parameters whose run would take the
// page more than about a second.
var ErrBackoffTooBig = errors.New("too many calls to simulate in the page: use fewer Clients, more Capacity (calls per slot) or a longer Cap (s); retrylab sim backoff runs any size")

// estimateCalls is a generous estimate of a jittered run's calls. Serving
// every client takes at least T = clients / capacity slots. Within T a
// client's waits double from base until they reach cap, about
// log2(1 + T/base) calls, then average at least cap/2 (the smallest mean of
// the policies' waits at cap), 2T/cap calls more; plus its first call and,
// for the waits that outlast T, one more. At the defaults: T = 2 s,
// 1,000 × (2 + 4.4 + 0.4) = 6,800 against 5,020 run; for 100,000 clients,
// T = 200 s and 100,000 × (2 + 11 + 40) = 5.3 million.
func estimateCalls(p backoff.Params) float64 {
	t := float64(p.Clients) / float64(p.Capacity) * p.Slot.Seconds()
	return float64(p.Clients) * (2 + math.Log2(1+t/p.Base.Seconds()) + 2*t/p.Cap.Seconds())
}

func runBackoff(v Values) (Run, error) {
	p := backoff.Binding.Read(v.Values)
	r := &backoffRun{p: p}
	compare := p.Compare
	// A policy compared with itself would draw the same run twice.
	comparing := compare != backoff.Off && compare != p.Policy
	for _, pol := range []backoff.Policy{p.Policy, compare} {
		if pol != backoff.None && pol != backoff.Off && estimateCalls(p) > maxCalls {
			return nil, ErrBackoffTooBig
		}
	}
	var err error
	if r.main, err = cachedRun(p); err != nil {
		return nil, err
	}
	if comparing {
		q := p
		q.Policy = compare
		r.other = &backoff.Result{}
		if *r.other, err = cachedRun(q); err != nil {
			return nil, err
		}
		r.otherPolicy = q.Policy
	}
	return r, nil
}

// recent holds the last few runs of the engine, so that changing one of
// the two policies, or swapping them, does not run the other again: with a
// hundred thousand clients a jittered run takes the page a few hundred
// milliseconds. A run without jitter is kept under seed 0, since every
// seed gives it: a new seed runs only the jittered policy again. Results
// are only read once made.
var recent struct {
	sync.Mutex
	runs []*keptRun // the most recently used last
}

// A keptRun is a run of the engine and what it was asked.
type keptRun struct {
	key backoff.Params
	res backoff.Result
}

// runEngine is backoff.Run; tests count its runs.
var runEngine = backoff.Run

// recentRuns is how many runs recent keeps, the most recently used: the
// two of the widget's current state and the two before it.
const recentRuns = 4

// cachedRun is runEngine(p), from recent if it ran lately. A run is kept
// under p as Run reads it: Compare off, which Run does not read, and seed
// 0 for a policy without jitter.
func cachedRun(p backoff.Params) (backoff.Result, error) {
	k := p
	k.Compare = backoff.Off
	if !k.Policy.Jittered() {
		k.Seed = 0
	}
	recent.Lock()
	for i, r := range recent.runs {
		if r.key == k {
			// Used again: it moves last, where the oldest is dropped last.
			copy(recent.runs[i:], recent.runs[i+1:])
			recent.runs[len(recent.runs)-1] = r
			recent.Unlock()
			return r.res, nil
		}
	}
	recent.Unlock()
	res, err := runEngine(k)
	if err != nil {
		return res, err
	}
	recent.Lock()
	if n := len(recent.runs); n == recentRuns { // drop the oldest
		copy(recent.runs, recent.runs[1:])
		recent.runs = recent.runs[:n-1]
	}
	recent.runs = append(recent.runs, &keptRun{k, res})
	recent.Unlock()
	return res, nil
}

type backoffRun struct {
	p           backoff.Params
	main        backoff.Result
	other       *backoff.Result // nil when compare is off
	otherPolicy backoff.Policy
}

func (r *backoffRun) Steps() int { return 0 }

// maxBars bounds the bars of the chart: about one per 2 px of a desktop
// column, and about 12 kilobytes of SVG however long the run.
const maxBars = 300

// slotsPerBar is how many slots one bar sums so that n slots make at most
// maxBars bars: 1, 2, 5, 10, 20, 50, ... slots.
func slotsPerBar(n int) int {
	k := 1
	for mult := 0; (n+k-1)/k > maxBars; mult++ {
		k = []int{2, 5, 10}[mult%3] * int(math.Pow(10, float64(mult/3)))
	}
	return k
}

// peaks is the busiest slot of each bar of k slots; n bars in all. The
// busiest slot, not the sum, so that every bar still reads as calls per
// slot against the server's capacity, whatever k: a wave of 1,000 calls in
// one slot stays 1,000 high, not smeared over the bar.
func peaks(perSlot []int, k, n int) []float64 {
	out := make([]float64, n)
	for i, c := range perSlot {
		out[i/k] = max(out[i/k], float64(c))
	}
	return out
}

// Output draws calls per slot over time as bars against the server's
// capacity and, when there is a second policy, its calls as an outline
// over the same axes: one time axis and one scale of calls, so that the
// two runs' lengths and heights compare at a glance. A line marks when
// each run served its last client. Then the figures.
func (r *backoffRun) Output(h *HTML, _ int) {
	m := r.main
	runs := []policyRun{{r.p.Policy, m}}
	if r.other != nil {
		runs = append(runs, policyRun{r.otherPolicy, *r.other})
	}
	top, slots := float64(r.p.Capacity), 0
	for _, pr := range runs {
		top = max(top, float64(peak(pr.res.PerSlot)))
		slots = max(slots, len(pr.res.PerSlot))
	}
	yt := chart.Ticks(0, top, 4)
	k := slotsPerBar(slots)
	n := (slots + k - 1) / k
	slot := r.p.Slot.Seconds()
	dx := float64(k) * slot
	xt := chart.Ticks(0, float64(n)*dx, 6)
	xTitle := "time (s)"
	if k > 1 {
		xTitle += "; a bar is the busiest of " + Figure(k) + " slots"
	}

	title, desc := Capital(policyWords(r.p.Policy))+": calls per slot over time", r.sentence(r.p.Policy, m)
	if r.other != nil {
		title = Capital(policyWords(r.p.Policy)) + " and " + policyWords(r.otherPolicy) + ": calls per slot over time"
		desc += " " + r.sentence(r.otherPolicy, *r.other)
	}
	c := chart.Chart{
		Title:  title,
		Desc:   desc + " The server answers " + Figure(r.p.Capacity) + " calls per slot.",
		Class:  "bo-chart",
		Height: chart.MinHeight,
		Pad:    maxBars, // every drawing has as many bars: a change moves each to its new place
		X:      chart.Axis{Title: xTitle, Min: 0, Max: xt[len(xt)-1], Ticks: xt},
		Y:      chart.Axis{Title: "calls per " + chart.Number(slot*1000) + " ms slot", Min: 0, Max: yt[len(yt)-1], Ticks: yt},
	}
	c.Bars(0, dx, peaks(m.PerSlot, k, n), policyClass(r.p.Policy))
	if r.other != nil {
		c.Steps(0, dx, peaks(r.other.PerSlot, k, n), policyClass(r.otherPolicy))
	}
	c.HLine(float64(r.p.Capacity), "cap", "capacity "+Figure(r.p.Capacity))
	// Alone, the line says what it marks; two lines are named by the key
	// above the chart, in their policies' colours: their labels would meet
	// the tick labels at the left of the plot.
	for _, pr := range runs {
		label := "all served: " + Decimal(pr.res.LastServedS, 1) + " s"
		if len(runs) > 1 {
			label = ""
		}
		c.VLine(pr.res.LastServedS, policyClass(pr.p), label, 0)
	}

	h.Open("div", "class", "w-chart bo-run")
	h.Open("ul", "class", "w-legend bo-key")
	for i, pr := range runs {
		swatch := "w-swatch " + policyClass(pr.p)
		drawn := "bars"
		if i > 0 {
			swatch += " line"
			drawn = "outline"
		}
		h.Open("li").Elem("span", "", "class", swatch, "aria-hidden", "true").
			Elem("strong", Capital(policyWords(pr.p))).
			Text(" (" + drawn + "): " + Count(pr.res.Calls, "call") + "; everyone served at " + Decimal(pr.res.LastServedS, 1) + " s (dashed line)").Close("li")
	}
	h.Close("ul")
	h.Raw(c.SVG())
	h.Close("div")

	attrs := []string{"class", ClassOutcome, "data-calls", Itoa(m.Calls), "data-last-served", oneDecimal(m.LastServedS)}
	if r.other != nil {
		attrs = append(attrs, "data-compare-calls", Itoa(r.other.Calls), "data-compare-last-served", oneDecimal(r.other.LastServedS))
	}
	h.Open("p", attrs...)
	h.Text(desc)
	h.Close("p")
}

// policyRun is one policy's run, as the chart draws it.
type policyRun struct {
	p   backoff.Policy
	res backoff.Result
}

// policyClass is the class that gives a policy its colour, the same in
// every figure of the site (widget.css): "p-none", "p-full", ...
func policyClass(p backoff.Policy) string { return "p-" + string(p) }

// sentence is one policy's figures: "No jitter: 10,500 calls in 20
// waves; the last client is served at 132.7 s."
func (r *backoffRun) sentence(p backoff.Policy, res backoff.Result) string {
	s := Capital(policyWords(p)) + ": " + Count(res.Calls, "call") + " for " + Count(r.p.Clients, "client")
	if p == backoff.None {
		s += ", in " + Count(res.Waves, "wave")
	}
	s += "; the last client is served at " + Decimal(res.LastServedS, 1) + " s."
	return s
}

func peak(xs []int) int {
	m := 0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// oneDecimal writes seconds as the engine rounds them, for the data-*
// attributes: "132.7", never grouped.
func oneDecimal(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }
