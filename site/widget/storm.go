package widget

import (
	"github.com/retrylab/retrylab/engine/storm"
	"github.com/retrylab/retrylab/site/chart"
)

// Storm is a metastable failure: a ten-second slowdown, clients that time
// out and retry, and a queue that stays full long after the slowdown ends.
var Storm = Widget{
	Name:    "storm",
	Chapter: "/metastable-failure/",
	Title:   "A retry storm that outlives its cause",
	Summary: "Slow the server down for ten seconds and watch whether it recovers; then give the clients a retry budget and let the server skip expired work.",
	Schema:  Schema(storm.Binding.Schema),
	Run:     runStorm,
}

func init() { register(&Storm) }

func runStorm(v Values) (Run, error) {
	p := storm.Binding.Read(v.Values)
	res, err := storm.Run(p)
	if err != nil {
		return nil, err
	}
	return &stormRun{p: p, res: res}, nil
}

type stormRun struct {
	p   storm.Params
	res storm.Result
}

func (r *stormRun) Steps() int { return 0 }

// Recovered is the recovery figure as data-recovered writes it: seconds
// after the slowdown ended, or "never".
func (r *stormRun) Recovered() string {
	if r.res.RecoveredAfterS == nil {
		return "never"
	}
	return Itoa(*r.res.RecoveredAfterS)
}

// Output draws goodput (and the load offered) and the queue over time,
// the slowdown shaded and the recovery marked, then the figures.
func (r *stormRun) Output(h *HTML, _ int) {
	p, s := r.p, r.res.Summary
	n := float64(p.Seconds)
	xt := chart.Ticks(0, n, 6)
	x := chart.Axis{Title: "time (s)", Min: 0, Max: xt[len(xt)-1], Ticks: xt}
	band := "slowdown"
	recovered := -1.0
	if r.res.RecoveredAfterS != nil {
		recovered = float64(p.SlowTo + *r.res.RecoveredAfterS)
	}

	// Goodput and offered load, per second. A second's figures are drawn
	// at its middle.
	good, offered := floats(s.Goodput), floats(s.Offered)
	top := float64(p.Capacity)
	for _, v := range offered {
		top = max(top, v)
	}
	yt := chart.Ticks(0, top, 4)
	c := chart.Chart{
		Title:  "Goodput and load offered per second",
		Desc:   r.sentence() + " " + peakWords("Offered load", offered, "request", " a second") + ".",
		Class:  "st-chart",
		Height: chart.MinHeight,
		X:      x,
		Y:      chart.Axis{Title: "requests a second", Min: 0, Max: yt[len(yt)-1], Ticks: yt},
	}
	c.Band(float64(p.SlowFrom), float64(p.SlowTo), "trigger", band)
	c.Series(0.5, 1, offered, "s2")
	c.Series(0.5, 1, good, "s1")
	c.HLine(float64(p.Capacity), "cap", "capacity "+Figure(p.Capacity))
	if recovered >= 0 {
		// Low in the plot: once recovered, goodput and the offered load
		// run near the top.
		c.VLine(recovered, "ok", "recovered", -1)
	}
	h.Open("div", "class", "w-chart")
	h.Raw(c.SVG())
	h.Close("div")
	h.Open("ul", "class", "w-legend")
	h.Open("li").Elem("span", "", "class", "w-swatch s1 line", "aria-hidden", "true").Text("goodput: answered while the client still waits").Close("li")
	h.Open("li").Elem("span", "", "class", "w-swatch s2 line", "aria-hidden", "true").Text("offered: new requests and retries").Close("li")
	h.Open("li").Elem("span", "", "class", "w-swatch trigger", "aria-hidden", "true").Text("the slowdown: " + chart.Number(p.SlowFactor*100) + "% of capacity").Close("li")
	h.Close("ul")

	queue := floats(s.Queue)
	qtop := 1.0
	for _, v := range queue {
		qtop = max(qtop, v)
	}
	qt := chart.Ticks(0, qtop, 3)
	q := chart.Chart{
		Title:  "Requests waiting in the queue at the end of each second",
		Desc:   peakWords("The queue", queue, "request", "") + "; at the end it holds " + chart.Number(queue[len(queue)-1]) + ".",
		Class:  "st-chart",
		Height: chart.MinHeight,
		X:      x,
		Y:      chart.Axis{Title: "requests waiting", Min: 0, Max: qt[len(qt)-1], Ticks: qt},
	}
	q.Band(float64(p.SlowFrom), float64(p.SlowTo), "trigger", "")
	q.Series(0.5, 1, queue, "s3")
	if recovered >= 0 {
		q.VLine(recovered, "ok", "", 0)
	}
	h.Open("div", "class", "w-chart")
	h.Raw(q.SVG())
	h.Close("div")

	h.Open("p", "class", ClassOutcome, "data-healthy", Itoa(s.Healthy), "data-slow", Itoa(s.Slow), "data-recovered", r.Recovered(),
		"data-calls", Itoa(s.Calls), "data-gave-up", Itoa(s.GaveUp), "data-verdict", verdict(s.RecoveredAfterS != nil))
	h.Text(r.sentence())
	h.Close("p")
}

// sentence is the run's outcome: goodput before and during the slowdown
// and whether the server recovers after it, unless it had nothing to
// recover to: no traffic at all, or more than it could ever answer.
func (r *stormRun) sentence() string {
	p, s := r.p, r.res.Summary
	if p.New == 0 {
		return "No requests arrive (New requests a second is 0): there is nothing to serve, so nothing to recover from."
	}
	tail := " " + Count(s.Calls, "call") + " in all; " + Count(s.GaveUp, "client") + " gave up."
	good := p.RecoveryGoodput()
	if p.Capacity < good || (p.SlowFrom > 0 && s.Healthy < good) {
		return "The server is overloaded before any slowdown: it answers " + Figure(s.Healthy) + " requests a second in time against " +
			Figure(p.New) + " new ones, so it is never healthy, and there is nothing to recover to." + tail
	}
	// A server slowed from the first second was never healthy: it does
	// not recover, it becomes healthy, or never does.
	text, never, recovers := "Goodput "+Figure(s.Healthy)+"/s before the slowdown, "+Figure(s.Slow)+"/s during it; ", "it never recovers", "it recovers"
	if p.SlowFrom == 0 {
		text, never, recovers = "The slowdown starts at once; goodput "+Figure(s.Slow)+"/s during it; ", "it is never healthy", "it becomes healthy"
	}
	switch after := s.RecoveredAfterS; {
	case after == nil:
		text += never + " in " + Figure(p.Seconds) + " s: the queue stays full of requests whose clients have given up, and their retries keep it full."
	case *after == 0:
		text += recovers + " as soon as the slowdown ends."
	default:
		text += recovers + " " + Figure(*after) + " s after the slowdown ends."
	}
	return text + tail
}

func floats(xs []int) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

// peakWords is "The queue peaks at 1,234 requests in second 25".
func peakWords(what string, xs []float64, noun, per string) string {
	at := 0
	for i, x := range xs {
		if x > xs[at] {
			at = i
		}
	}
	if len(xs) == 0 {
		return what + " is empty"
	}
	return what + " peaks at " + Count(int(xs[at]), noun) + per + " in second " + Figure(at)
}
