package widget

import (
	"strings"

	"github.com/retrylab/retrylab/engine/outbox"
)

// Outbox is the transactional outbox and the consumer's inbox: a relay that
// publishes an event twice, and an inbox that sends its email once.
var Outbox = Widget{
	Name:    "outbox",
	Chapter: "/outbox-and-inbox/",
	Title:   "The outbox and the inbox",
	Summary: "Crash the relay between publishing an event and marking it sent, and count the emails with and without an inbox.",
	Schema:  Schema(outbox.Schema),
	Run:     runOutbox,
}

func runOutbox(v Values) (Run, error) {
	p := outbox.FromValues(v.Model())
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
	var (
		rows      []string // outbox rows, in order
		sent      = map[string]bool{}
		broker    []string // messages on the broker
		inbox     []string // ids the inbox recorded
		emails    int      //
		skipped   int      //
		relayDown bool     // between a crash and the restart
		emailed   = map[string]int{}
	)
	for _, e := range r.res.Trace[:step] {
		switch e.Kind {
		case outbox.Commit:
			rows = append(rows, e.Ref)
		case outbox.Publish:
			broker = append(broker, e.Ref)
		case outbox.Mark:
			sent[e.Ref] = true
		case outbox.Crash:
			relayDown = true
		case outbox.Restart:
			relayDown = false
		case outbox.Email:
			emails++
			emailed[e.Ref]++
			if r.p.Inbox {
				inbox = append(inbox, e.Ref)
			}
		case outbox.Skip:
			skipped++
		}
	}

	h.Open("div", "class", "w-panels")
	h.Open("section", "class", "w-panel", "role", "group", "aria-label", "The outbox table")
	h.Open("h3").Text("Table ").Elem("code", "outbox").Close("h3")
	if len(rows) == 0 {
		h.Elem("p", "No rows yet.", "class", "empty")
	} else {
		h.Open("ul", "class", "w-rows")
		for _, id := range rows {
			state, cls := "not sent", "pending"
			if sent[id] {
				state, cls = "sent", "ok"
			}
			h.Open("li", "class", cls).Elem("code", id).Text(": " + state).Close("li")
		}
		h.Close("ul")
	}
	if relayDown {
		h.Elem("p", "The relay is down.", "class", "bad-text")
	}
	h.Close("section")

	h.Open("section", "class", "w-panel", "role", "group", "aria-label", "The broker")
	h.Elem("h3", "Broker")
	h.Open("p", "class", "w-big").Elem("strong", Figure(len(broker))).Text(" " + Plural(len(broker), "message")).Close("p")
	if len(broker) > 0 {
		h.Open("ul", "class", "w-chips")
		seen := map[string]bool{}
		for _, id := range broker {
			h.Elem("li", id, "class", when(seen[id], "dup"))
			seen[id] = true
		}
		h.Close("ul")
	}
	h.Close("section")

	h.Open("section", "class", "w-panel", "role", "group", "aria-label", "The consumer")
	h.Elem("h3", "Consumer")
	cls := "w-big"
	for _, n := range emailed {
		if n > 1 {
			cls += " bad-text"
			break
		}
	}
	h.Open("p", "class", cls).Elem("strong", Figure(emails)).Text(" " + Plural(emails, "email") + " sent").Close("p")
	if r.p.Inbox {
		h.Open("p", "class", "w-note").Text("Inbox: ")
		if len(inbox) == 0 {
			h.Text("empty")
		} else {
			h.Elem("code", strings.Join(inbox, ", "))
		}
		if skipped > 0 {
			h.Text("; " + Figure(skipped) + " skipped")
		}
		h.Close("p")
	} else {
		h.Elem("p", "No inbox: every message is an email.", "class", "w-note")
	}
	h.Close("section")
	h.Close("div")

	story(h, r.res.Trace, step, outboxLanes)

	h.Open("p", outcomeAttrs(step, r.Steps(), r.res.Emails == r.res.Events, "data-published", Itoa(len(broker)), "data-emails", Itoa(emails),
		"data-skipped", Itoa(skipped))...)
	if step < r.Steps() {
		h.Text("Replaying: " + Count(len(broker), "message") + " on the broker and " + Count(emails, "email") + " so far.")
	} else {
		h.Text(r.verdict())
	}
	h.Close("p")
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
