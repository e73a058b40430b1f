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
	Schema:  Schema(backoff.Schema),
	Run:     runBackoff,
}

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
	p := backoff.FromValues(v.Model())
	seed := uint64(v.Int("seed"))
	r := &backoffRun{p: p, seed: seed}
	compare, comparing := backoff.Compare(v.Model())
	for _, pol := range []backoff.Policy{p.Policy, compare} {
		if pol != backoff.None && pol != backoff.Off && estimateCalls(p) > maxCalls {
			return nil, ErrBackoffTooBig
		}
	}
	var err error
	if r.main, err = cachedRun(p, seed); err != nil {
		return nil, err
	}
	if comparing {
		q := p
		q.Policy = compare
		r.other = &backoff.Result{}
		if *r.other, err = cachedRun(q, seed); err != nil {
			return nil, err
		}
		r.otherPolicy = q.Policy
	}
	return r, nil
}

// recent holds the last few runs of the engine, so that changing one of
// the two policies, or swapping them, does not run the other again: with a
// hundred thousand clients a jittered run takes the page a few hundred
// milliseconds. Results are only read once made.
var recent struct {
	sync.Mutex
	keys []runKey
	runs []backoff.Result
}

type runKey struct {
	p    backoff.Params
	seed uint64
}

// recentRuns is how many runs recent keeps: the two of the widget's
// current state and the two before it.
const recentRuns = 4

func cachedRun(p backoff.Params, seed uint64) (backoff.Result, error) {
	k := runKey{p, seed}
	recent.Lock()
	for i, key := range recent.keys {
		if key == k {
			res := recent.runs[i]
			recent.Unlock()
			return res, nil
		}
	}
	recent.Unlock()
	res, err := backoff.Run(p, seed)
	if err != nil {
		return res, err
	}
	recent.Lock()
	if n := len(recent.keys); n == recentRuns { // drop the oldest
		copy(recent.keys, recent.keys[1:])
		copy(recent.runs, recent.runs[1:])
		recent.keys, recent.runs = recent.keys[:n-1], recent.runs[:n-1]
	}
	recent.keys = append(recent.keys, k)
	recent.runs = append(recent.runs, res)
	recent.Unlock()
	return res, nil
}

type backoffRun struct {
	p           backoff.Params
	seed        uint64
	main        backoff.Result
	other       *backoff.Result // nil when compare is off
	otherPolicy backoff.Policy
}

func (r *backoffRun) Steps() int { return 0 }

// maxBars bounds the bars of the chart: about one per 2 px of a desktop
// column, and a few kilobytes of SVG however long the run.
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

// Output draws, for each policy, calls per slot over time as bars against
// the server's capacity, each on its own time axis and all on one scale of
// calls; then, when there are two, the time each took to serve everyone,
// side by side; then the figures.
func (r *backoffRun) Output(h *HTML, _ int) {
	m := r.main
	top := float64(r.p.Capacity)
	top = max(top, float64(peak(m.PerSlot)))
	if r.other != nil {
		top = max(top, float64(peak(r.other.PerSlot)))
	}
	yt := chart.Ticks(0, top, 4)
	// One time axis for both charts, unless one run is over shareLimit
	// times longer than the other: then the shorter would be a sliver at
	// the left (no jitter's 132.7 s against full jitter's 4.3 s), and each
	// gets its own axis; the bars after them compare the times.
	span := 0 // slots on a shared axis; 0: each its own
	if r.other != nil {
		a, b := len(m.PerSlot), len(r.other.PerSlot)
		if max(a, b) <= shareLimit*min(a, b) {
			span = max(a, b)
		}
	}
	r.runChart(h, r.p.Policy, m, "s1", yt, span)
	if r.other != nil {
		r.runChart(h, r.otherPolicy, *r.other, "s2", yt, span)
		longest := max(m.LastServedS, r.other.LastServedS)
		h.Open("div", "class", "w-chart")
		h.Raw(chart.HBars("Time until the last client is served", r.sentence(r.p.Policy, m)+" "+r.sentence(r.otherPolicy, *r.other),
			"bo-served", longest, []chart.Bar{
				{Label: "Everyone served, " + policyWords(r.p.Policy) + " (s)", Segments: []chart.Segment{{Value: m.LastServedS, Class: "s1"}}},
				{Label: "Everyone served, " + policyWords(r.otherPolicy) + " (s)", Segments: []chart.Segment{{Value: r.other.LastServedS, Class: "s2"}}},
			}))
		h.Close("div")
	}

	attrs := []string{"class", "w-outcome", "data-calls", Itoa(m.Calls), "data-last-served", oneDecimal(m.LastServedS)}
	if r.other != nil {
		attrs = append(attrs, "data-compare-calls", Itoa(r.other.Calls), "data-compare-last-served", oneDecimal(r.other.LastServedS))
	}
	h.Open("p", attrs...)
	h.Text(r.sentence(r.p.Policy, m))
	if r.other != nil {
		h.Text(" " + r.sentence(r.otherPolicy, *r.other))
	}
	h.Close("p")
}

// shareLimit is how many times longer one run may be than the other for
// the two to share a time axis.
const shareLimit = 4

// runChart draws one policy's calls per slot, binned to at most maxBars
// bars, with the capacity and the moment the last client was served; over
// span slots if span is not 0, else over the run's own.
func (r *backoffRun) runChart(h *HTML, p backoff.Policy, res backoff.Result, class string, yt []float64, span int) {
	slots := max(len(res.PerSlot), span)
	k := slotsPerBar(slots)
	n := (slots + k - 1) / k
	slot := r.p.Slot.Seconds()
	dx := float64(k) * slot
	per := "calls per " + Number(slot*1000) + " ms slot"
	if k > 1 {
		per += " (the busiest of every " + Figure(k) + ")"
	}
	xt := chart.Ticks(0, float64(n)*dx, 6)
	name := policyWords(p)
	c := chart.Chart{
		Title:  Capital(name) + ": calls per slot over time",
		Desc:   r.sentence(p, res) + " Busiest slot: " + Count(peak(res.PerSlot), "call") + "; the server answers " + Figure(r.p.Capacity) + " per slot.",
		Class:  "bo-chart",
		Height: 190,
		X:      chart.Axis{Title: "time (s)", Min: 0, Max: xt[len(xt)-1], Ticks: xt},
		Y:      chart.Axis{Title: per, Min: 0, Max: yt[len(yt)-1], Ticks: yt},
	}
	c.Bars(0, dx, peaks(res.PerSlot, k, n), class)
	c.HLine(float64(r.p.Capacity), "cap", "capacity "+Figure(r.p.Capacity))
	c.VLine(res.LastServedS, class, "all served: "+Decimal(res.LastServedS, 1)+" s", 0)
	h.Open("section", "class", "w-chart bo-run", "role", "group", "aria-label", Capital(name))
	h.Open("h3", "class", "w-charthead").Elem("span", "", "class", "w-swatch "+class, "aria-hidden", "true").
		Elem("strong", Capital(name)).Text(": " + Count(res.Calls, "call") + ", everyone served at " + Decimal(res.LastServedS, 1) + " s").Close("h3")
	h.Raw(c.SVG())
	h.Close("section")
}

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
