package widget

import (
	"time"

	"github.com/retrylab/retrylab/engine/lease"
	"github.com/retrylab/retrylab/engine/sim"
	"github.com/retrylab/retrylab/site/chart"
)

// Lease is the leases-and-recovery simulator: the first request crashes,
// the client retries before or after the lease, and the takeover resumes
// from a recovery point or starts over.
var Lease = Widget{
	Name:    "lease",
	Chapter: "/leases-and-recovery/",
	Title:   "A crash, a lease and a retry",
	Summary: "Crash the first request before the charge, after it or after saving; retry before or after the lease, with and without recovery points, and count the charges.",
	Schema:  Schema(lease.Binding.Schema),
	Run:     runLease,
}

func init() { register(&Lease) }

func runLease(v Values) (Run, error) {
	p := lease.Binding.Read(v.Values)
	res, err := lease.Run(p)
	if err != nil {
		return nil, err
	}
	return &leaseRun{p: p, res: res, states: leaseStates(res.Trace)}, nil
}

type leaseRun struct {
	p      lease.Params
	res    lease.Result
	states []leaseState // after each number of steps, 0 to Steps
}

func (r *leaseRun) Steps() int { return len(r.res.Trace) }

var leaseLanes = map[string]string{"client": "Client", "server": "Server", "store": "Key store"}

// leaseState is what each actor holds after some steps of the trace.
type leaseState struct {
	sends     []leaseSend
	state     string // the key's record: "absent", "in flight", "done"
	leaseEnd  int    // seconds
	point     string // its recovery point
	claims    int    // claims of the key, takeovers included
	charges   []string
	payments  []string
	paid      map[string]bool // payments whose answer was saved
	down      bool            // the server crashed and no request came since
	paused    int             // the second the paused owner wakes; 0 if none is paused
	fenced    bool            // the store refused the old owner's write
	receipt   string
	now       time.Duration
	resumedAt string // the recovery point a takeover found
}

// leaseSend is one of the client's sends and what came of it.
type leaseSend struct {
	at     time.Duration
	answer string // "" while waiting
	cls    string
}

// leaseStates plays the trace once, keeping the state after each step:
// each kept state has its own copies of what a later step changes.
func leaseStates(trace sim.Trace) []leaseState {
	st := leaseState{state: "absent", paid: map[string]bool{}}
	out := make([]leaseState, 0, len(trace)+1)
	keep := func() {
		k := st
		k.sends = append([]leaseSend(nil), st.sends...)
		k.paid = make(map[string]bool, len(st.paid))
		for id := range st.paid {
			k.paid[id] = true
		}
		out = append(out, k)
	}
	keep()
	for _, e := range trace {
		st.now = e.At
		last := len(st.sends) - 1
		switch e.Kind {
		case lease.Send:
			st.sends = append(st.sends, leaseSend{at: e.At})
			st.down = false // a retry finds a server up: another process, or the same restarted
		case lease.Silence:
			st.sends[last].answer, st.sends[last].cls = "no answer", "bad-text"
		case lease.Claim, lease.Takeover:
			st.state, st.leaseEnd = "in flight", e.N
			st.claims++
			if e.Kind == lease.Takeover {
				st.resumedAt = e.Detail
			}
		case lease.Payment:
			st.payments = append(st.payments, e.Ref)
		case lease.Checkpoint:
			st.point = e.Detail
		case lease.Charge:
			if !e.OK { // OK: the processor gave an earlier charge back
				st.charges = append(st.charges, e.Ref)
			}
		case lease.Pause:
			st.paused = e.N
		case lease.Wake:
			st.paused = 0
		case lease.Fenced:
			st.fenced = true
		case lease.Crashed:
			st.down = true
		case lease.Save:
			st.state = "done"
			st.paid[st.payments[len(st.payments)-1]] = true
		case lease.Answer:
			switch {
			case e.N == 409:
				st.sends[last].answer = "409, Retry-After " + Itoa(e.M) + " s"
				st.sends[last].cls = "pending"
			case e.OK:
				st.sends[last].answer, st.sends[last].cls = Itoa(e.N)+" "+e.Ref+", replayed", "ok"
				st.receipt = e.Ref
			default:
				st.sends[last].answer, st.sends[last].cls = Itoa(e.N)+" "+e.Ref, "ok"
				st.receipt = e.Ref
			}
		}
		keep()
	}
	return out
}

// Output draws the client's sends, the key's record, the card and the
// payments as they stand after step events, then the story so far. What a
// later step shows has its place from the first (hold.go).
func (r *leaseRun) Output(h *HTML, step int) {
	step = clampStep(step, r.Steps())
	st, over := r.states[step], r.states
	done := step == r.Steps()
	end := over[len(over)-1]

	h.Open("div", "class", "w-panels")

	h.Open("section", "class", "w-panel", "role", "group", "aria-label", "The client")
	h.Elem("h3", "Client")
	h.Open("ol", "class", "w-rows")
	for i := range end.sends {
		cls := ""
		if i < len(st.sends) {
			cls = st.sends[i].cls
		}
		h.Open("li", heldAttrs(i >= len(st.sends), "class", cls)...)
		holdOver(h, st, over, func(h *HTML, s leaseState) {
			if i >= len(s.sends) {
				return
			}
			answer := s.sends[i].answer
			if answer == "" {
				answer = "waiting…"
			}
			h.Elem("strong", secs(s.sends[i].at)).Text(": " + answer)
		})
		h.Close("li")
	}
	h.Close("ol")
	holdOver(h, st, over, func(h *HTML, s leaseState) {
		if s.receipt != "" {
			h.Open("p", "class", "w-note").Text("Holds ").Elem("code", s.receipt).Close("p")
		}
	})
	h.Close("section")

	h.Open("section", "class", "w-panel", "role", "group", "aria-label", "The key store")
	h.Open("h3").Text("Key ").Elem("code", lease.Key).Close("h3")
	h.Open("p", "class", "w-big").Elem("strong", st.state).Close("p")
	holdOver(h, st, over, func(h *HTML, s leaseState) {
		if s.state == "in flight" {
			lapsed := ""
			if s.now >= time.Duration(s.leaseEnd)*time.Second {
				lapsed = ", lapsed"
			}
			h.Elem("p", "Lease until "+Itoa(s.leaseEnd)+" s"+lapsed, "class", "w-note"+when(lapsed != "", " bad-text"))
		}
	})
	holdOver(h, st, over, func(h *HTML, s leaseState) {
		if s.claims > 1 {
			h.Elem("p", Count(s.claims, "claim")+": one takeover", "class", "w-note")
		}
	})
	holdOver(h, st, over, func(h *HTML, s leaseState) {
		switch {
		case !r.p.Recovery:
			h.Elem("p", "No recovery points.", "class", "w-note")
		case s.point == "":
			h.Elem("p", "No recovery point yet.", "class", "w-note")
		default:
			h.Open("p", "class", "w-note").Text("Recovery point: ").Elem("code", s.point).Close("p")
		}
	})
	holdOver(h, st, over, func(h *HTML, s leaseState) {
		switch {
		case s.down:
			h.Elem("p", "The server is down.", "class", "bad-text")
		case s.paused > 0:
			h.Elem("p", "The first owner is paused until "+Itoa(s.paused)+" s.", "class", "bad-text")
		case s.fenced:
			h.Elem("p", "The old owner's write was refused: its fence is stale.", "class", "w-note ok-text")
		}
	})
	h.Close("section")

	h.Open("section", "class", "w-panel"+when(len(st.charges) > 1, " bad"), "role", "group", "aria-label", "The card")
	h.Elem("h3", "Card")
	h.Open("p", "class", "w-big"+when(len(st.charges) > 1, " bad-text")).Elem("strong", Itoa(len(st.charges))).
		Text(" " + Plural(len(st.charges), "charge")).Close("p")
	if len(end.charges) > 0 {
		h.Open("ul", heldAttrs(len(st.charges) == 0, "class", "w-chips")...)
		for i, id := range end.charges {
			h.Elem("li", id+" "+Money(lease.Amount), heldAttrs(i >= len(st.charges), "class", when(i > 0, "dup"))...)
		}
		h.Close("ul")
	}
	h.Close("section")

	h.Open("section", "class", "w-panel", "role", "group", "aria-label", "The payments")
	h.Elem("h3", "Payments")
	h.Open("div", "class", "w-hold")
	h.Elem("p", "None yet.", heldAttrs(len(st.payments) > 0, "class", "empty")...)
	if len(end.payments) > 0 {
		h.Open("ul", heldAttrs(len(st.payments) == 0, "class", "w-rows")...)
		for i, id := range end.payments {
			h.Open("li", heldAttrs(i >= len(st.payments), "class", when(st.paid[id], "ok")+when(!st.paid[id], "pending"))...)
			holdOver(h, st, over, func(h *HTML, s leaseState) {
				if i < len(s.payments) {
					h.Elem("code", id).Text(": " + when(s.paid[id], "succeeded") + when(!s.paid[id], "pending"))
				}
			})
			h.Close("li")
		}
		h.Close("ul")
	}
	h.Close("div")
	if len(end.payments) > 1 {
		h.Elem("p", "A takeover that starts over leaves the first payment pending for ever.", heldAttrs(!done, "class", "w-note bad-text")...)
	}
	h.Close("section")
	h.Close("div")

	r.timeline(h, step)

	figures := []string{"data-charges", Itoa(len(st.charges)), "data-payments", Itoa(len(st.payments))}
	if done {
		figures = append(figures, "data-retry", r.res.Retry, "data-receipt", r.res.Receipt)
	}
	outcome := outcomeAttrs(step, r.Steps(), r.res.Charges == 1 && r.res.Payments == 1, figures...)
	replaying := func(charges int) string { return "Replaying: " + Count(charges, "charge") + " so far." }
	now := r.verdict()
	if !done {
		now = replaying(len(st.charges))
	}
	// What the last step says has its place from the first (hold.go).
	holdOutcome(h, outcome, now, r.verdict(), replaying(r.res.Charges))
	events(h, r.res.Trace, step, leaseLanes, true)
}

// verdict says what the run came to: when the retry came against the
// lease, what the takeover found, and the charges.
func (r *leaseRun) verdict() string {
	s, p := r.res.Summary, r.p
	retry := Itoa(int(p.Retry / time.Second))
	leaseEnd := Itoa(int(p.Lease / time.Second))
	switch p.Crash {
	case lease.NoCrash:
		return "No crash: the first request answered 201 with " + s.Receipt + ", so the client never retried. Charged once."
	case lease.AfterSaving:
		return "The answer was saved before the crash, so the retry at " + retry + " s got it replayed (" + s.Receipt +
			"), lease or no lease: a done key is never taken over. Charged once."
	}
	if p.Crash == lease.Pauses && s.Retry == "none" {
		return "The owner paused past its lease, but no retry came to take the key over before it woke: its fence still held, so it charged and answered 201 with " +
			s.Receipt + " at " + Itoa(int(s.DoneAtS)) + " s, before the client gave up. Charged once."
	}
	text := ""
	if p.Crash == lease.Pauses {
		text = "The owner paused before the charge, for two leases. "
	}
	if s.Retry == "409" {
		text += "The retry at " + retry + " s came inside the lease and got a 409 whose Retry-After sent it back at " +
			leaseEnd + " s, when the lease lapsed and it took the key over. "
	} else {
		text += "The retry at " + retry + " s came after the lease, which lapsed at " + leaseEnd + " s, and took the key over at once. "
	}
	switch {
	case p.Crash == lease.Pauses && s.Charges == 1:
		text += "It resumed after \u201c" + s.ResumedFrom + "\u201d and charged with the payment's key. When the old owner woke, the processor gave it the same charge back for that key, and the fence refused its write to the key store: charged once."
	case p.Crash == lease.Pauses:
		text += "Without recovery points it started over with a second payment. When the old owner woke it charged its own payment, under a key the processor had not seen: " +
			Count(s.Charges, "charge") + ". The fence refused its write to the key store, but a fence does not reach the processor."
	case s.ResumedFrom != "" && p.Crash == lease.AfterCharge:
		text += "It resumed after \u201c" + s.ResumedFrom + "\u201d and answered " + s.Receipt + " without charging again: charged once."
	case s.ResumedFrom != "":
		text += "It resumed after \u201c" + s.ResumedFrom + "\u201d and charged that payment: charged once."
	case s.Charges > 1:
		text += "Without recovery points it started over: a second payment and a second charge, " + s.Receipt +
			". Charged " + Itoa(s.Charges) + " times; the first charge is money no answer names."
	default:
		text += "Without recovery points it started over with a new payment: charged once, but " +
			Count(s.Payments-1, "payment") + " left pending for ever."
	}
	return text
}

// timeline draws the run against the leases: each claim's lease as a
// band, the crash and each retry as a line, as far as step.
func (r *leaseRun) timeline(h *HTML, step int) {
	trace := r.res.Trace
	end := trace[len(trace)-1].At.Seconds()
	first := r.p.Lease.Seconds()
	xt := chart.Ticks(0, max(end, first)*1.08, 6)
	// A row of labels for each crash, wake and retry answer of the whole
	// run, so that the strip is as tall at every step of a replay.
	rows, n := 0, 0
	for _, e := range trace {
		if e.Kind == lease.Send {
			n++
		} else if labelled(e, n) {
			rows++
		}
	}
	c := chart.Chart{
		Title: "The run against the lease, in seconds",
		Class: "ls-time",
		Strip: true,
		// 8 px above the plot, 14 to the first row's baseline, 16 a row,
		// 22 below the last, and 38 for the axis.
		Height: 8 + 14 + 16*max(rows-1, 0) + 22 + 38,
		X:      chart.Axis{Title: "time (s)", Min: 0, Max: xt[len(xt)-1], Ticks: xt},
		Y:      chart.Axis{Min: 0, Max: 1},
	}
	desc := "The first claim's lease runs from 0 to " + chart.Number(first) + " s."
	row, took, sends := 0, false, 0
	for _, e := range trace[:step] {
		at := e.At.Seconds()
		switch {
		case e.Kind == lease.Send:
			sends++
		case e.Kind == lease.Claim:
			c.Band(0, min(float64(e.N), c.X.Max), "lease", "")
		case e.Kind == lease.Takeover:
			c.Band(at, min(float64(e.N), c.X.Max), "lease second", "")
			took = true
			desc += " A takeover at " + chart.Number(at) + " s holds a new lease to " + Itoa(e.N) + " s."
		case e.Kind == lease.Crashed:
			c.VLine(at, "crash", "crash", row)
			desc += " The server crashed at " + chart.Number(at) + " s."
		case e.Kind == lease.Wake:
			c.VLine(at, "crash", "old owner wakes", row)
			desc += " The paused owner woke at " + chart.Number(at) + " s."
		case e.Kind == lease.Answer && sends > 1:
			what := Itoa(e.N)
			if e.OK {
				what += " replayed"
			}
			c.VLine(at, when(e.N == 409, "wait")+when(e.N != 409, "ok"), "retry: "+what, row)
			desc += " A retry at " + chart.Number(at) + " s got " + what + "."
		}
		if e.Kind != lease.Send && labelled(e, sends) {
			row++
		}
	}
	c.Desc = desc
	h.Raw(c.SVG())
	h.Open("ul", "class", "w-legend", "aria-hidden", "true")
	h.Open("li").Elem("span", "", "class", "w-swatch ls-lease").Text("the first claim's lease").Close("li")
	if trace.Count(lease.Takeover) > 0 { // held until the takeover (hold.go)
		h.Open("li", heldAttrs(!took)...).Elem("span", "", "class", "w-swatch ls-second").Text("the takeover's lease").Close("li")
	}
	h.Close("ul")
}

// labelled reports whether e, after sends sends, is drawn on the time
// line as a line with a label in a row of its own: a crash, a wake, or the
// answer to a retry. The strip's height counts them over the whole run.
func labelled(e sim.Event, sends int) bool {
	return e.Kind == lease.Crashed || e.Kind == lease.Wake || e.Kind == lease.Answer && sends > 1
}
