package widget

import (
	"strconv"

	"github.com/retrylab/retrylab/engine/payment"
	"github.com/retrylab/retrylab/engine/sim"
)

// Payment is the double-charge simulator: a client paying over a lossy
// network, with and without idempotency keys.
var Payment = Widget{
	Name:    "payment",
	Chapter: "/double-charge/",
	Title:   "A payment over a lossy network",
	Summary: "Lose a request or a response, let the client retry, and count the charges.",
	Schema:  Schema(payment.Binding.Schema),
	Run:     runPayment,
}

func init() { register(&Payment) }

func runPayment(v Values) (Run, error) {
	p := payment.Binding.Read(v.Values)
	res, err := payment.Run(p)
	if err != nil {
		return nil, err
	}
	return paymentRun{res}, nil
}

type paymentRun struct{ payment.Result }

func (r paymentRun) Steps() int { return len(r.Trace) }

// Output draws the sequence diagram (one row per event, in three lanes),
// the server's ledger, the client's receipt and the outcome, as they stand
// after step events. Rows not yet reached keep their place, invisible, so
// the widget does not jump while it replays.
func (r paymentRun) Output(h *HTML, step int) {
	step = clampStep(step, len(r.Trace))
	seen := r.Trace[:step]
	charges := seen.Count(payment.EvCharge)
	receipt := ""
	for _, e := range seen {
		if e.Kind == payment.EvReceipt {
			receipt = e.Ref
		}
	}

	h.Open("div", "class", "seq", "data-figure", "system", "role", "group", "aria-label", "What happened, in order")
	h.Open("div", "class", "seq-lanes", "aria-hidden", "true")
	h.Elem("span", "Client", "class", "lane-client")
	h.Elem("span", "Network", "class", "lane-network")
	h.Elem("span", "Server", "class", "lane-server")
	h.Close("div")
	h.Open("ol", "class", "seq-rows")
	for i, e := range r.Trace {
		lost := i+1 < len(r.Trace) && payment.Lost(r.Trace[i+1].Kind)
		seqRow(h, r.Trace, e, lost, i, step)
	}
	h.Close("ol")
	h.Close("div")

	h.Open("div", "class", "pay-books")
	// Every charge of the run has its row from the first step on, and
	// each of the receipt's and the outcome's texts its place: the
	// replay does not change the widget's height (hold.go).
	h.Open("section", "class", "ledger", "role", "group", "aria-label", "The server's ledger")
	h.Elem("h3", "Server's ledger")
	h.Open("div", "class", "w-hold")
	h.Elem("p", "No charges.", heldAttrs(charges > 0, "class", "empty")...)
	if len(r.Charges) > 0 {
		h.Open("table", heldAttrs(charges == 0)...)
		h.Open("thead").Open("tr").Elem("th", "Charge", "scope", "col").Elem("th", "Amount", "scope", "col").Elem("th", "Key", "scope", "col").Elem("th", "Attempt", "scope", "col").Close("tr").Close("thead")
		h.Open("tbody")
		for i, c := range r.Charges {
			cls := ""
			if c.ID != receipt && step == len(r.Trace) {
				cls = "orphan" // a charge the client never heard of
			}
			key := c.Key
			if key == "" {
				key = "none"
			}
			h.Open("tr", heldAttrs(i >= charges, "class", cls)...).Elem("td", c.ID).Elem("td", Money(c.Amount)).Elem("td", key).Elem("td", Itoa(c.Attempt)).Close("tr")
		}
		h.Close("tbody").Close("table")
	}
	h.Close("div")
	h.Close("section")
	h.Open("section", "class", "receipt", "role", "group", "aria-label", "The client's receipt")
	h.Elem("h3", "Client's receipt")
	h.Open("div", "class", "w-hold")
	r.receiptLine(h, receipt, step, false)
	if step < len(r.Trace) {
		r.receiptLine(h, r.Receipt, len(r.Trace), true)
	}
	h.Close("div")
	h.Close("section")
	h.Close("div")

	outcome := []string{"class", ClassOutcome, "data-charges", Itoa(charges), "data-receipt", receipt,
		"data-step", Itoa(step), "data-done", strconv.FormatBool(step == len(r.Trace))}
	final := len(r.Charges)
	holdOutcome(h, outcome, paymentVerdict(r.Result, charges, receipt, step == len(r.Trace)),
		paymentVerdict(r.Result, final, r.Receipt, true), paymentVerdict(r.Result, final, r.Receipt, false))
}

// receiptLine is what the client holds after step events: its receipt,
// or why it has none; held, its place kept hidden.
func (r paymentRun) receiptLine(h *HTML, receipt string, step int, held bool) {
	switch {
	case receipt != "":
		h.Open("p", heldAttrs(held, "class", "receipt-id")...).Elem("strong", receipt)
		if r.Replayed && step == len(r.Trace) {
			h.Text(" (a replayed answer)")
		}
		h.Close("p")
	case step < len(r.Trace):
		h.Elem("p", "Waiting for an answer…", heldAttrs(held, "class", "empty")...)
	case r.Status != 0:
		h.Elem("p", "Refused: "+Itoa(r.Status)+".", heldAttrs(held, "class", "empty")...)
	default:
		h.Elem("p", "None: the client gave up.", heldAttrs(held, "class", "empty")...)
	}
}

func seqRow(h *HTML, trace sim.Trace, e sim.Event, lost bool, i, step int) {
	cls := "ev ev-" + e.Kind.String() + " on-" + e.Lane
	if e.To != "" {
		cls += " msg to-" + e.To
		if lost {
			cls += " cut"
		}
	}
	switch {
	case i >= step:
		cls += " future"
	case i == step-1 && step < len(trace):
		cls += " current" // the row a replay has just reached
	}
	attrs := []string{"class", cls}
	if i >= step {
		attrs = append(attrs, "aria-hidden", "true")
	}
	h.Open("li", attrs...)
	h.Elem("span", Seconds(e.At), "class", "t")
	if e.To != "" {
		h.Open("span", "class", "arrow", "aria-hidden", "true").Close("span")
	}
	h.Elem("span", e.Sentence(), "class", "label")
	h.Close("li")
}

func paymentVerdict(r payment.Result, charges int, receipt string, done bool) string {
	if !done {
		return "Replaying: " + Count(charges, "charge") + " so far."
	}
	switch {
	case charges > 1 && receipt != "":
		others := make([]string, 0, charges-1)
		for _, c := range r.Charges {
			if c.ID != receipt {
				others = append(others, c.ID)
			}
		}
		return "Charged " + Count(charges, "time") + " for one payment. The client holds " + receipt +
			"; " + List(others) + " " + Pick(len(others), "is", "are") + " money taken that it never heard of."
	case charges > 1:
		return "Charged " + Count(charges, "time") + ", and the client gave up without a receipt."
	case charges == 1 && receipt != "":
		if r.Replayed {
			return "Charged once. The retry was answered with the saved response: the client holds " + receipt + "."
		}
		return "Charged once; the client holds " + receipt + "."
	case charges == 1:
		return "Charged once, but the client gave up and does not know it paid."
	default:
		return "Nothing charged: the client gave up."
	}
}
