package widget

import (
	"github.com/retrylab/retrylab/engine/budget"
	"github.com/retrylab/retrylab/site/chart"
)

// Budget is a retry budget against an upstream that is down: the calls
// sent without a budget and with one, side by side.
var Budget = Widget{
	Name:    "budget",
	Chapter: "/retry-budgets/",
	Title:   "A retry budget while the upstream is down",
	Summary: "Every call fails. Compare the calls sent when every failure is retried with those a token bucket lets through.",
	Schema:  Schema(budget.Binding.Schema.Without("budget")), // the view shows the runs with and without it
	Run:     runBudget,
}

func init() { register(&Budget) }

func runBudget(v Values) (Run, error) {
	p := budget.Binding.Read(v.Values)
	var r budgetRun
	var err error
	p.Budget = false
	if r.without, err = budget.Run(p); err != nil {
		return nil, err
	}
	p.Budget = true
	if r.with, err = budget.Run(p); err != nil {
		return nil, err
	}
	r.p = p
	return &r, nil
}

type budgetRun struct {
	p             budget.Params
	without, with budget.Result
}

func (r *budgetRun) Steps() int { return 0 }

// Output draws the two runs' calls as bars, first calls and retries
// stacked, then the figures.
func (r *budgetRun) Output(h *HTML, _ int) {
	wo, wi := r.without.Summary, r.with.Summary
	bars := []chart.Bar{
		{Label: "Without a budget: every failure retried", Segments: []chart.Segment{
			{Value: float64(wo.Requests), Class: "first"}, {Value: float64(wo.Retries), Class: "retry"}}},
		{Label: "With a budget of " + chart.Number(r.p.Ratio*100) + "% (bucket of " + chart.Number(r.p.Bank) + ")", Segments: []chart.Segment{
			{Value: float64(wi.Requests), Class: "first"}, {Value: float64(wi.Retries), Class: "retry"}}},
	}
	desc := r.sentence()
	h.Open("div", "class", "w-chart")
	h.Raw(chart.HBars("Calls sent while the upstream is down, without and with a retry budget", desc, "bu-chart",
		float64(max(wo.Calls, wi.Calls)), bars))
	h.Close("div")
	h.Open("ul", "class", "w-legend")
	h.Open("li").Elem("span", "", "class", "w-swatch first", "aria-hidden", "true").Text("first calls").Close("li")
	h.Open("li").Elem("span", "", "class", "w-swatch retry", "aria-hidden", "true").Text("retries").Close("li")
	h.Close("ul")

	h.Open("p", "class", ClassOutcome, "data-calls-without", Itoa(wo.Calls), "data-calls-with", Itoa(wi.Calls),
		"data-denied", Itoa(wi.Denied))
	h.Text(desc)
	h.Close("p")
}

func (r *budgetRun) sentence() string {
	wo, wi := r.without.Summary, r.with.Summary
	s := "Without a budget " + Count(wo.Requests, "failing request") + " " + Pick(wo.Requests, "sends", "send") + " " +
		Count(wo.Calls, "call") + "; with it, " + Figure(wi.Calls) + "."
	if wi.Denied > 0 {
		s += " The bucket let " + Count(wi.Retries, "retry") + " through; " + Figure(wi.Denied) + " refused."
	}
	if wo.Calls > 0 && wi.Calls < wo.Calls {
		s += " The upstream is spared " + Count(wo.Calls-wi.Calls, "call") + " it could not have answered."
	}
	return s
}
