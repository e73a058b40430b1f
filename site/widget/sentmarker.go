package widget

import (
	"github.com/retrylab/retrylab/engine/sentmarker"
)

// SentMarker is a job that sends through a provider with no keys, a crash
// before its acknowledgement, and a sent marker that stops the second
// send, or not.
var SentMarker = Widget{
	Name:    "sent-marker",
	Chapter: "/side-effects/",
	Title:   "A sent marker against a redelivered job",
	Summary: "Crash the job after the send, before or after its marker, and count the messages the provider sends, with and without the marker.",
	Schema:  Schema(sentmarker.Binding.Schema),
	Run:     runSentMarker,
}

func init() { register(&SentMarker) }

func runSentMarker(v Values) (Run, error) {
	p := sentmarker.Binding.Read(v.Values)
	res, err := sentmarker.Run(p)
	if err != nil {
		return nil, err
	}
	return &sentMarkerRun{p: p, res: res}, nil
}

type sentMarkerRun struct {
	p   sentmarker.Params
	res sentmarker.Result
}

func (r *sentMarkerRun) Steps() int { return len(r.res.Trace) }

var sentMarkerLanes = map[string]string{"queue": "Queue", "job": "Job", "provider": "Provider", "db": "Database"}

// sentMarkerState is what the queue, the provider and the database hold
// after some steps of the trace.
type sentMarkerState struct {
	deliveries, sent, skipped int
	marked, acked, down       bool
}

func (r *sentMarkerRun) state(step int) sentMarkerState {
	var st sentMarkerState
	for _, e := range r.res.Trace[:step] {
		switch e.Kind {
		case sentmarker.Deliver:
			st.deliveries++
			st.down = false
		case sentmarker.Crashed:
			st.down = true
		case sentmarker.Send:
			st.sent = e.M
		case sentmarker.Skip:
			st.skipped++
		case sentmarker.Mark:
			st.marked = true
		case sentmarker.Ack:
			st.acked = true
		}
	}
	return st
}

// Output draws the queue, the provider and the database as they stand
// after step events, then the story so far. What a later step shows has
// its place from the first (hold.go).
func (r *sentMarkerRun) Output(h *HTML, step int) {
	step = clampStep(step, r.Steps())
	st := r.state(step)
	over := make([]sentMarkerState, r.Steps()+1)
	for i := range over {
		over[i] = r.state(i)
	}
	end := over[len(over)-1]
	deliveries, sent, skipped := st.deliveries, st.sent, st.skipped

	h.Open("div", "class", "w-panels")
	h.Open("section", "class", "w-panel", "role", "group", "aria-label", "The queue")
	h.Elem("h3", "Queue")
	word := "deliveries"
	if deliveries == 1 {
		word = "delivery"
	}
	h.Open("p", "class", "w-big").Elem("strong", Itoa(deliveries)).Text(" " + word).Close("p")
	holdOver(h, st, over, func(h *HTML, s sentMarkerState) {
		switch {
		case s.acked:
			h.Elem("p", "Acknowledged: the queue forgets the job.", "class", "w-note ok-text")
		case s.down:
			h.Elem("p", "No acknowledgement: it delivers again after "+Itoa(int(sentmarker.Redelivery.Seconds()))+" s.", "class", "w-note bad-text")
		case s.deliveries > 0:
			h.Elem("p", "Waiting for the acknowledgement.", "class", "w-note")
		}
	})
	h.Close("section")

	h.Open("section", "class", "w-panel"+when(sent > 1, " bad"), "role", "group", "aria-label", "The provider")
	h.Elem("h3", "Provider")
	h.Open("p", "class", "w-big"+when(sent > 1, " bad-text")).Elem("strong", Itoa(sent)).Text(" " + Plural(sent, "message") + " sent").Close("p")
	if end.sent > 0 {
		h.Open("ul", heldAttrs(sent == 0, "class", "w-chips")...)
		for i := 1; i <= end.sent; i++ {
			h.Elem("li", "message "+Itoa(i), heldAttrs(i > sent, "class", when(i > 1, "dup"))...)
		}
		h.Close("ul")
	}
	h.Elem("p", "No idempotency keys: every send is a message.", "class", "w-note")
	h.Close("section")

	h.Open("section", "class", "w-panel", "role", "group", "aria-label", "The database")
	h.Elem("h3", "Database")
	holdOver(h, st, over, func(h *HTML, s sentMarkerState) {
		switch {
		case !r.p.Marker:
			h.Elem("p", "No sent marker kept.", "class", "empty")
		case s.marked:
			h.Open("p").Text("Sent marker for ").Elem("code", "job_1").Text(": ").Elem("strong", "written", "class", "ok-text").Close("p")
		default:
			h.Open("p").Text("Sent marker for ").Elem("code", "job_1").Text(": none").Close("p")
		}
	})
	holdOver(h, st, over, func(h *HTML, s sentMarkerState) {
		if s.skipped > 0 {
			h.Elem("p", Count(s.skipped, "send")+" skipped by the marker", "class", "w-note ok-text")
		}
	})
	h.Close("section")
	h.Close("div")

	outcome := outcomeAttrs(step, r.Steps(), r.res.Sent == 1,
		"data-sent", Itoa(sent), "data-runs", Itoa(deliveries), "data-skipped", Itoa(skipped))
	replaying := func(sent, deliveries int) string {
		return "Replaying: " + Count(sent, "message") + " sent in " + Count(deliveries, "run") + " so far."
	}
	now := r.verdict()
	if step < r.Steps() {
		now = replaying(sent, deliveries)
	}
	// What the last step says has its place from the first (hold.go).
	holdOutcome(h, outcome, now, r.verdict(), replaying(r.res.Sent, r.res.Runs))
	events(h, r.res.Trace, step, sentMarkerLanes, false)
}

func (r *sentMarkerRun) verdict() string {
	s := r.res.Summary
	sent := Count(s.Sent, "message") + " sent in " + Count(s.Runs, "run")
	switch {
	case r.p.Crash == sentmarker.NoCrash:
		return sent + ": nothing crashed, so the queue never delivered the job again."
	case !r.p.Marker:
		return sent + ": without a marker the redelivered job cannot tell that the first run sent, and sends again."
	case r.p.Crash == sentmarker.BeforeMarker:
		return sent + ": the crash came between the send and the marker, the window a marker cannot close; only a key at the provider would."
	}
	return sent + ": the first run wrote its marker before it crashed, and the redelivered job found it and skipped the send."
}
