package widget

import (
	"slices"
	"strings"

	"github.com/retrylab/retrylab/engine/outbox"
)

// Outbox is the transactional outbox and the consumer's inbox: a relay that
// publishes an event twice, and an inbox that skips the repeat. The inbox
// records an id after its email is sent, outside any transaction the email
// could join, and the note under the drawing says so: a consumer crash between the two, which
// the model leaves out, would send the email again.
var Outbox = Widget{
	Name:    "outbox",
	Chapter: "/outbox-and-inbox/",
	Title:   "The outbox and the inbox",
	Summary: "Crash the relay between publishing an event and marking it sent, and count the emails with and without an inbox.",
	Schema:  Schema(outbox.Binding.Schema),
	Run:     runOutbox,
}

func init() { register(&Outbox) }

func runOutbox(v Values) (Run, error) {
	p := outbox.Binding.Read(v.Values)
	res, err := outbox.Run(p)
	if err != nil {
		return nil, err
	}
	return &outboxRun{p: p, res: res}, nil
}

type outboxRun struct {
	p   outbox.Params
	res outbox.Result
}

func (r *outboxRun) Steps() int { return len(r.res.Trace) }

var outboxLanes = map[string]string{"app": "App", "relay": "Relay", "broker": "Broker", "consumer": "Consumer"}

// Output draws the system as it stands after step events (the app, its
// outbox table, the relay, the broker, the consumer and, when on, its
// inbox, with the step's row or message moving between two of them), the
// outcome, and the story so far, folded under them.
func (r *outboxRun) Output(h *HTML, step int) {
	step = clampStep(step, r.Steps())
	st := r.state(step)
	// What the last step shows has its place from the first (hold.go).
	end := r.state(r.Steps())
	drawSystem(h, r.system(step, st, end))
	if r.p.Inbox {
		h.Elem("p", "Each id is recorded after its email: a crash between the two would send it again.", "class", "w-note w-system-note")
	} else {
		h.Elem("p", "No inbox: every message is an email.", "class", "w-note w-system-note")
	}

	outcome := outcomeAttrs(step, r.Steps(), r.res.Emails == r.res.Events, "data-published", Itoa(len(st.broker)), "data-emails", Itoa(st.emails),
		"data-skipped", Itoa(st.skipped))
	now := r.verdict()
	if step < r.Steps() {
		now = replayingOutbox(st)
	}
	holdOutcome(h, outcome, now, r.verdict(), replayingOutbox(end))
	foldedEvents(h, r.res.Trace, step, outboxLanes, false)
}

// system is the drawing at step, st the state then and end at the last.
func (r *outboxRun) system(step int, st, end outboxState) System {
	crashed := r.res.Trace.Count(outbox.Crash) > 0
	parts := []Part{
		{Name: "app", Title: "App", Draw: func(h *HTML) {
			h.Open("ul", "class", "w-chips")
			for i := range end.rows {
				h.Elem("li", "ord_"+Itoa(i+1), heldAttrs(i >= len(st.rows))...)
			}
			h.Close("ul")
		}},
		{Name: "outbox", Title: "Outbox table", Draw: func(h *HTML) {
			h.Open("div", "class", "w-hold")
			h.Elem("p", "No rows yet.", heldAttrs(len(st.rows) > 0, "class", "empty")...)
			h.Open("ul", heldAttrs(len(st.rows) == 0, "class", "w-rows")...)
			for i, id := range end.rows {
				state, cls := "not sent", "pending"
				if st.sent[id] {
					state, cls = "sent", "ok"
				}
				h.Open("li", heldAttrs(i >= len(st.rows), "class", cls)...).Elem("code", id).Text(" " + state).Close("li")
			}
			h.Close("ul")
			h.Close("div")
		}},
		{Name: "relay", Title: "Relay", Down: st.relayDown, Faulted: st.crashed, Draw: func(h *HTML) {
			if crashed {
				shown := 0
				switch {
				case st.relayDown:
					shown = 1
				case st.crashed:
					shown = 2
				}
				h.Open("p")
				holdTexts(h, shown, "Running", "Down", "Restarted")
				h.Close("p")
			} else {
				h.Elem("p", "Running")
			}
			toggleButton(h, "relay-crash", "Crash here",
				"The relay crashes once: after publishing the first event, before marking it sent", r.p.RelayCrash)
		}},
		{Name: "broker", Title: "Broker", Draw: func(h *HTML) {
			h.Open("p", "class", "w-big").Elem("strong", Figure(len(st.broker))).Text(" " + Plural(len(st.broker), "message")).Close("p")
			h.Open("ul", "class", "w-chips")
			seen := map[string]bool{}
			for i, id := range end.broker {
				h.Elem("li", id, heldAttrs(i >= len(st.broker), "class", when(seen[id], "dup"))...)
				seen[id] = true
			}
			h.Close("ul")
		}},
		{Name: "consumer", Title: "Consumer", Draw: func(h *HTML) {
			cls := "w-big"
			for _, n := range st.emailed {
				if n > 1 {
					cls += " bad-text"
					break
				}
			}
			h.Open("p", "class", cls).Elem("strong", Figure(st.emails)).Text(" " + Plural(st.emails, "email") + " sent").Close("p")
		}},
	}
	if crashed { // parts[2] is the relay
		parts[2].Fault = "Crashed before marking " + r.res.Trace[r.crashAt()].Ref
	}
	if r.p.Inbox {
		parts = append(parts, Part{Name: "inbox", Title: "Inbox", Draw: func(h *HTML) {
			h.Open("div", "class", "w-hold")
			r.inboxNote(h, st, false)
			r.inboxNote(h, end, true)
			h.Close("div")
		}})
	}
	s := System{Label: "The outbox and the inbox, drawn", Parts: parts, Alt: "Before the first step: no order yet."}
	if step == 0 {
		return s
	}
	e := r.res.Trace[step-1]
	before := r.state(step - 1)
	switch e.Kind {
	case outbox.Commit:
		s.Move = Move{From: "app", To: "outbox", Item: e.Ref}
	case outbox.Publish:
		s.Move = Move{From: "relay", To: "broker", Item: e.Ref, Outcome: when(slices.Contains(before.broker, e.Ref), "bad")}
	case outbox.Mark:
		s.Move = Move{From: "relay", To: "outbox", Item: e.Ref, Outcome: "good"}
	case outbox.Email:
		s.Move = Move{From: "broker", To: "consumer", Item: e.Ref, Outcome: when(before.emailed[e.Ref] > 0, "bad")}
	case outbox.Skip:
		s.Move = Move{From: "broker", To: "consumer", Item: e.Ref, Outcome: "good"}
	}
	s.Alt = StepText(step, r.Steps()) + ": " + e.Sentence()
	if s.Move.From != "" {
		s.Alt = StepText(step, r.Steps()) + ", " + outboxParts[s.Move.From] + " to " + outboxParts[s.Move.To] + ": " + e.Sentence()
	}
	return s
}

// outboxParts names the drawing's parts in the text alternative.
var outboxParts = map[string]string{"app": "app", "outbox": "outbox table", "relay": "relay", "broker": "broker", "consumer": "consumer"}

// crashAt is the index of the relay's crash in the trace; the run has one.
func (r *outboxRun) crashAt() int {
	for i, e := range r.res.Trace {
		if e.Kind == outbox.Crash {
			return i
		}
	}
	return -1
}

// outboxState is what the table, the broker and the consumer hold after
// some steps.
type outboxState struct {
	rows      []string // outbox rows, in order
	sent      map[string]bool
	broker    []string // messages on the broker
	inbox     []string // ids the inbox recorded
	emails    int
	skipped   int
	relayDown bool // between a crash and the restart
	crashed   bool // from the crash on
	emailed   map[string]int
}

func (r *outboxRun) state(step int) outboxState {
	s := outboxState{sent: map[string]bool{}, emailed: map[string]int{}}
	for _, e := range r.res.Trace[:step] {
		switch e.Kind {
		case outbox.Commit:
			s.rows = append(s.rows, e.Ref)
		case outbox.Publish:
			s.broker = append(s.broker, e.Ref)
		case outbox.Mark:
			s.sent[e.Ref] = true
		case outbox.Crash:
			s.relayDown, s.crashed = true, true
		case outbox.Restart:
			s.relayDown = false
		case outbox.Email:
			s.emails++
			s.emailed[e.Ref]++
			if r.p.Inbox {
				s.inbox = append(s.inbox, e.Ref)
			}
		case outbox.Skip:
			s.skipped++
		}
	}
	return s
}

// inboxNote is what the inbox holds; held, its place kept hidden.
func (r *outboxRun) inboxNote(h *HTML, s outboxState, held bool) {
	h.Open("p", heldAttrs(held)...)
	if len(s.inbox) == 0 {
		h.Text("No ids yet")
	} else {
		h.Elem("code", strings.Join(s.inbox, ", ")).Text(" recorded")
	}
	if s.skipped > 0 {
		h.Text("; " + Figure(s.skipped) + " skipped")
	}
	h.Close("p")
}

// replayingOutbox is the outcome while a replay is under way.
func replayingOutbox(s outboxState) string {
	return "Replaying: " + Count(len(s.broker), "message") + " on the broker and " + Count(s.emails, "email") + " so far."
}

func (r *outboxRun) verdict() string {
	s := r.res.Summary
	text := Count(s.Orders, "order") + " and " + Count(s.Events, "event") + ", committed together; " +
		Count(s.Published, "message") + " on the broker"
	if s.Published > s.Events {
		text += ", because the relay crashed between publishing and marking"
	}
	text += ". "
	switch {
	case s.Emails > s.Events:
		text += Count(s.Emails, "email") + " sent: without an inbox the consumer emailed the repeat too."
	case s.Skipped > 0:
		text += Count(s.Emails, "email") + " sent: the inbox recognised the repeat and skipped it."
	default:
		text += Count(s.Emails, "email") + " sent."
	}
	return text
}
