package widget

import (
	"strings"

	"github.com/retrylab/retrylab/engine/outbox"
)

// Outbox is the transactional outbox and the consumer's inbox: a relay that
// publishes an event twice, and an inbox that skips the repeat. The inbox
// records an id after its email is sent, outside any transaction the email
// could join, and the panel says so: a consumer crash between the two, which
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

// Output draws the outbox table, the broker and the consumer as they stand
// after step events, then the story so far.
func (r *outboxRun) Output(h *HTML, step int) {
	step = clampStep(step, r.Steps())
	st := r.state(step)
	// What the last step shows has its place from the first (hold.go).
	end := r.state(r.Steps())

	h.Open("div", "class", "w-panels")
	h.Open("section", "class", "w-panel", "role", "group", "aria-label", "The outbox table")
	h.Open("h3").Text("Table ").Elem("code", "outbox").Close("h3")
	h.Open("div", "class", "w-hold")
	h.Elem("p", "No rows yet.", heldAttrs(len(st.rows) > 0, "class", "empty")...)
	if len(end.rows) > 0 {
		h.Open("ul", heldAttrs(len(st.rows) == 0, "class", "w-rows")...)
		for i, id := range end.rows {
			state, cls := "not sent", "pending"
			if st.sent[id] {
				state, cls = "sent", "ok"
			}
			h.Open("li", heldAttrs(i >= len(st.rows), "class", cls)...).Elem("code", id).Text(": " + state).Close("li")
		}
		h.Close("ul")
	}
	h.Close("div")
	if r.res.Trace.Count(outbox.Crash) > 0 {
		h.Elem("p", "The relay is down.", heldAttrs(!st.relayDown, "class", "bad-text")...)
	}
	h.Close("section")

	h.Open("section", "class", "w-panel", "role", "group", "aria-label", "The broker")
	h.Elem("h3", "Broker")
	h.Open("p", "class", "w-big").Elem("strong", Figure(len(st.broker))).Text(" " + Plural(len(st.broker), "message")).Close("p")
	if len(end.broker) > 0 {
		h.Open("ul", heldAttrs(len(st.broker) == 0, "class", "w-chips")...)
		seen := map[string]bool{}
		for i, id := range end.broker {
			h.Elem("li", id, heldAttrs(i >= len(st.broker), "class", when(seen[id], "dup"))...)
			seen[id] = true
		}
		h.Close("ul")
	}
	h.Close("section")

	h.Open("section", "class", "w-panel", "role", "group", "aria-label", "The consumer")
	h.Elem("h3", "Consumer")
	cls := "w-big"
	for _, n := range st.emailed {
		if n > 1 {
			cls += " bad-text"
			break
		}
	}
	h.Open("p", "class", cls).Elem("strong", Figure(st.emails)).Text(" " + Plural(st.emails, "email") + " sent").Close("p")
	if r.p.Inbox {
		h.Open("div", "class", "w-hold")
		r.inboxNote(h, st, false)
		r.inboxNote(h, end, true)
		h.Close("div")
		h.Elem("p", "Each id is recorded after its email: a crash between the two would send it again.", "class", "w-note")
	} else {
		h.Elem("p", "No inbox: every message is an email.", "class", "w-note")
	}
	h.Close("section")
	h.Close("div")

	outcome := outcomeAttrs(step, r.Steps(), r.res.Emails == r.res.Events, "data-published", Itoa(len(st.broker)), "data-emails", Itoa(st.emails),
		"data-skipped", Itoa(st.skipped))
	now := r.verdict()
	if step < r.Steps() {
		now = replayingOutbox(st)
	}
	holdOutcome(h, outcome, now, r.verdict(), replayingOutbox(end))
	events(h, r.res.Trace, step, outboxLanes, false)
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
			s.relayDown = true
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
	h.Open("p", heldAttrs(held, "class", "w-note")...).Text("Inbox: ")
	if len(s.inbox) == 0 {
		h.Text("empty")
	} else {
		h.Elem("code", strings.Join(s.inbox, ", "))
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
