package widget

import (
	"strings"

	"github.com/retrylab/retrylab/engine/cas"
)

// CAS is compare-and-set on a state change: ship(order, version 7) called
// more than once, with and without the version in the UPDATE.
var CAS = Widget{
	Name:    "cas",
	Chapter: "/idempotent-by-design/",
	Title:   "Compare-and-set: ship an order twice",
	Summary: "Call ship(order, version 7) again and again, with and without the version in the UPDATE's WHERE clause, and count the shipments.",
	Schema:  Schema(cas.Binding.Schema),
	Run:     runCAS,
}

func init() { register(&CAS) }

func runCAS(v Values) (Run, error) {
	p := cas.Binding.Read(v.Values)
	res, err := cas.Run(p)
	if err != nil {
		return nil, err
	}
	lanes := map[string]string{"db": "Orders"} // the table, not "Database": a phone's actor column is narrow
	for i := 1; i <= p.Calls; i++ {
		lanes["call-"+Itoa(i)] = "Call " + Itoa(i)
	}
	return &casRun{p: p, res: res, lanes: lanes}, nil
}

type casRun struct {
	p     cas.Params
	res   cas.Result
	lanes map[string]string
}

func (r *casRun) Steps() int { return len(r.res.Trace) }

// Output draws the order's row, the shipments and the statement as they
// stand after step events, then the story so far.
func (r *casRun) Output(h *HTML, step int) {
	step = clampStep(step, r.Steps())
	version, shipments := cas.Read, 0
	var updated []string
	for _, e := range r.res.Trace[:step] {
		switch e.Kind {
		case cas.Ship:
			version = e.M
			shipments++
			updated = append(updated, "1")
		case cas.Unchanged:
			updated = append(updated, "0")
		}
	}
	status := "paid"
	if shipments > 0 {
		status = "shipped"
	}

	h.Open("div", "class", "w-panels")
	h.Open("section", "class", "w-panel", "role", "group", "aria-label", "The order's row")
	h.Open("h3").Text("Row ").Elem("code", "ord_1").Close("h3")
	h.Open("p", "class", "w-big").Text("version ").Elem("strong", Itoa(version)).Close("p")
	h.Open("p", "class", "w-note").Text("status ").Elem("code", status).Close("p")
	h.Close("section")

	h.Open("section", "class", "w-panel"+when(shipments > 1, " bad"), "role", "group", "aria-label", "The warehouse")
	h.Elem("h3", "Warehouse")
	h.Open("p", "class", "w-big"+when(shipments > 1, " bad-text")).Elem("strong", Itoa(shipments)).
		Text(" " + Plural(shipments, "shipment")).Close("p")
	if shipments > 0 {
		h.Open("ul", "class", "w-chips")
		for i := 1; i <= shipments; i++ {
			h.Elem("li", "parcel "+Itoa(i), "class", when(i > 1, "dup"))
		}
		h.Close("ul")
	}
	h.Close("section")

	h.Open("section", "class", "w-panel w-log", "role", "group", "aria-label", "The statement each call runs")
	h.Elem("h3", "Each call runs")
	h.Elem("code", cas.Statement(r.p.CAS), "class", "w-sql")
	h.Close("section")
	h.Close("div")

	outcome := outcomeAttrs(step, r.Steps(), r.res.Shipments == 1,
		"data-shipments", Itoa(shipments), "data-version", Itoa(version), "data-updated", strings.Join(updated, ","))
	replaying := func(shipments, version int) string {
		return "Replaying: " + Count(shipments, "shipment") + " so far, the order at version " + Itoa(version) + "."
	}
	now := r.verdict()
	if step < r.Steps() {
		now = replaying(shipments, version)
	}
	// What the last step says has its place from the first (hold.go).
	holdOutcome(h, outcome, now, r.verdict(), replaying(r.res.Shipments, r.res.Version))
	events(h, r.res.Trace, step, r.lanes, false)
}

func (r *casRun) verdict() string {
	s, calls := r.res.Summary, Count(r.p.Calls, "call")
	switch {
	case r.p.Calls == 1:
		return "One call, one shipment: the order moved from version " + Itoa(cas.Read) + " to " + Itoa(s.Version) +
			". Add calls to see what a retry does."
	case r.p.CAS:
		return calls + ", " + Count(s.Shipments, "shipment") + ": the first moved the order from version " + Itoa(cas.Read) +
			" to " + Itoa(s.Version) + "; every retry's UPDATE matched no row, since the order is no longer at version " +
			Itoa(cas.Read) + ", and changed nothing."
	}
	return calls + ", " + Count(s.Shipments, "shipment") + ": without the version in the WHERE clause every retry matches the row, ships again and bumps the version, up to " +
		Itoa(s.Version) + "."
}
