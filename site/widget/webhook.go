package widget

import (
	"time"

	"github.com/retrylab/retrylab/engine/sim"
	"github.com/retrylab/retrylab/engine/webhook"
)

// Webhook is an endpoint receiving a processor's event at least once,
// against a forgery and a replay, with each defence on or off.
var Webhook = Widget{
	Name:    "webhook",
	Chapter: "/receiving-webhooks/",
	Title:   "A webhook endpoint against retries, a forgery and a replay",
	Summary: "Turn off the signature check, the timestamp check or the event-id record, or work before answering, and count the orders fulfilled and the forged ones shipped.",
	Schema:  Schema(webhook.Binding.Schema),
	Run:     runWebhook,
}

func init() { register(&Webhook) }

func runWebhook(v Values) (Run, error) {
	p := webhook.Binding.Read(v.Values)
	res, err := webhook.Run(p)
	if err != nil {
		return nil, err
	}
	r := &webhookRun{p: p, res: res}
	r.states = webhookStates(p, res.Trace)
	return r, nil
}

type webhookRun struct {
	p      webhook.Params
	res    webhook.Result
	states []webhookState // after each number of steps, 0 to Steps
}

func (r *webhookRun) Steps() int { return len(r.res.Trace) }

var webhookLanes = map[string]string{"sender": "Sender", "attacker": "Attacker", "endpoint": "Endpoint", "worker": "Worker"}

// The fates of a delivery, as the sender and the endpoint see it.
const (
	fatePending  = iota // not answered yet
	fateLost            // its 200 was lost
	fateLate            // its 200 came after the sender stopped waiting
	fateFailed          // the sender stopped waiting
	fateAnswered        // 200 in time
)

// An attack's fate.
const (
	attackNotYet   = iota
	attackRefused  // 400: Why says which check
	attackSeen     // the id was recorded: 200, nothing done
	attackAccepted // the endpoint works on it
)

// webhookState is what the parts of the system hold after some steps.
type webhookState struct {
	fates      [webhook.Deliveries]int // the sender's deliveries, by number less one
	sentAt     [webhook.Deliveries]time.Duration
	deliveries int
	gaveUp     bool
	recorded   bool // evt_1's id is recorded
	recordedAt time.Duration
	forgery    int // an attack's fate
	replay     int
	replayWhy  string
	fulfilled  int
	shipped    int
	working    int // orders being worked on
}

// webhookStates plays the trace once, keeping the state after each step.
func webhookStates(p webhook.Params, trace sim.Trace) []webhookState {
	out := make([]webhookState, len(trace)+1)
	var st webhookState
	var last string // the Detail of the latest Post: "forged", "replay" or ""
	for i, e := range trace {
		switch e.Kind {
		case webhook.Post:
			last = e.Detail
			if e.Lane == "sender" {
				st.deliveries = e.N
				st.sentAt[e.N-1] = e.At
			}
		case webhook.Refused:
			switch last {
			case "forged":
				st.forgery = attackRefused
			case "replay":
				st.replay, st.replayWhy = attackRefused, e.Detail
			}
		case webhook.Seen:
			if last == "replay" {
				st.replay = attackSeen
			}
		case webhook.Queued, webhook.Working:
			switch last {
			case "forged":
				st.forgery = attackAccepted
			case "replay":
				st.replay = attackAccepted
			}
			if e.Kind == webhook.Queued && e.OK && e.Ref == webhook.Event {
				st.recorded, st.recordedAt = true, e.At
			}
			st.working++
		case webhook.Fulfil:
			st.working--
			if e.OK {
				st.fulfilled = e.N
			} else {
				st.shipped = e.N
			}
			if !st.recorded && p.Dedupe && e.Lane == "endpoint" && e.OK {
				st.recorded, st.recordedAt = true, e.At
			}
		case webhook.Lost:
			st.fates[e.N-1] = fateLost
		case webhook.Late:
			st.fates[e.N-1] = fateLate
		case webhook.Answered:
			st.fates[e.N-1] = fateAnswered
		case webhook.TimedOut:
			if st.fates[e.N-1] == fatePending {
				st.fates[e.N-1] = fateFailed
			}
		case webhook.GiveUp:
			st.gaveUp = true
			if st.fates[e.N-1] == fatePending {
				st.fates[e.N-1] = fateFailed
			}
		}
		out[i+1] = st
	}
	return out
}

// Output draws the sender, the endpoint, the attacker and the orders as
// they stand after step events, then the story so far. What a later step
// shows has its place from the first (hold.go).
func (r *webhookRun) Output(h *HTML, step int) {
	step = clampStep(step, r.Steps())
	st, end := r.states[step], r.states[len(r.states)-1]

	h.Open("div", "class", "w-panels")
	r.sender(h, st, end)
	r.endpoint(h, st)
	r.attacker(h, st)
	r.orders(h, st)
	h.Close("div")

	res := r.res
	outcome := outcomeAttrs(step, r.Steps(), res.Fulfilled == 1 && res.Forged == 0,
		"data-fulfilled", Itoa(st.fulfilled), "data-forged", Itoa(st.shipped), "data-deliveries", Itoa(st.deliveries))
	replaying := func(s webhookState) string {
		return "Replaying: order 1 fulfilled " + Times(s.fulfilled) + " in " + Count(s.deliveries, "delivery") + " so far."
	}
	now := r.verdict()
	if step < r.Steps() {
		now = replaying(st)
	}
	holdOutcome(h, outcome, now, r.verdict(), replaying(end))
	events(h, res.Trace, step, webhookLanes, false)
}

func (r *webhookRun) sender(h *HTML, st, end webhookState) {
	h.Open("section", "class", "w-panel"+when(st.gaveUp, " bad"), "role", "group", "aria-label", "The sender")
	h.Elem("h3", "Sender")
	h.Open("p", "class", "w-big").Elem("strong", Itoa(st.deliveries)).Text(" "+Plural(st.deliveries, "delivery")+" of ").Elem("code", webhook.Event).Close("p")
	h.Open("ul", "class", "w-rows")
	for i := range end.deliveries {
		text, cls := "", "pending"
		switch st.fates[i] {
		case fatePending:
			text = "waiting for a 2xx"
		case fateLost:
			text, cls = "200 lost on the way", "bad"
		case fateLate:
			text, cls = "200 too late", "bad"
		case fateFailed:
			text, cls = "no 2xx in "+sim.Span(webhook.Timeout), "bad"
		case fateAnswered:
			text, cls = "200 in time", "ok"
		}
		held := i >= st.deliveries
		if held {
			text = "waiting for a 2xx"
		}
		h.Open("li", heldAttrs(held, "class", cls)...).Text(Itoa(i+1)+", at "+sim.Span(end.sentAt[i])+": ").Elem("strong", text).Close("li")
	}
	h.Close("ul")
	holdOver(h, st, r.states, func(h *HTML, s webhookState) {
		if s.gaveUp {
			h.Elem("p", "It gave up: the event is marked failed.", "class", "w-note bad-text")
		}
	})
	h.Elem("p", "Waits "+sim.Span(webhook.Timeout)+" for a 2xx, then delivers again after 1, 2, 4 and 8 min.", "class", "w-note")
	h.Close("section")
}

func (r *webhookRun) endpoint(h *HTML, st webhookState) {
	p := r.p
	h.Open("section", "class", "w-panel", "role", "group", "aria-label", "The endpoint")
	h.Elem("h3", "Endpoint")
	h.Open("ul", "class", "w-rows")
	check := func(on bool, yes, no string) {
		if on {
			h.Open("li", "class", "ok").Elem("strong", "✓").Text(" " + yes).Close("li")
		} else {
			h.Open("li", "class", "bad").Elem("strong", "✗").Text(" " + no).Close("li")
		}
	}
	check(p.Signature, "checks the signature", "no signature check")
	check(p.Tolerance > 0, "refuses timestamps over "+sim.Span(p.Tolerance)+" old", "no timestamp check")
	check(p.Dedupe, "keeps event ids "+sim.Span(time.Duration(p.Keep)*time.Hour), "keeps no event ids")
	if p.Reply == webhook.BeforeWork {
		h.Elem("li", "answers, then works")
	} else {
		h.Elem("li", "works, then answers")
	}
	h.Close("ul")
	holdOver(h, st, r.states, func(h *HTML, s webhookState) {
		switch {
		case !p.Dedupe:
		case s.recorded:
			h.Open("p").Elem("code", webhook.Event).Text(" recorded at " + sim.Span(s.recordedAt)).Close("p")
		default:
			h.Elem("p", "No event id recorded yet.", "class", "empty")
		}
	})
	h.Close("section")
}

func (r *webhookRun) attacker(h *HTML, st webhookState) {
	bad := st.forgery == attackAccepted || st.replay == attackAccepted
	h.Open("section", "class", "w-panel"+when(bad, " bad"), "role", "group", "aria-label", "The attacker")
	h.Elem("h3", "Attacker")
	h.Open("ul", "class", "w-rows")
	attack := func(what string, fate int, why string) {
		cls := [...]string{attackNotYet: "pending", attackRefused: "ok", attackSeen: "ok", attackAccepted: "bad"}[fate]
		h.Open("li", "class", cls).Text(what + ": ").Open("strong")
		holdTexts(h, fate, "not yet", "400, "+why, "200, id already recorded", "accepted")
		h.Close("strong").Close("li")
	}
	attack("Forged "+webhook.Forged+" at "+sim.Span(webhook.ForgeAt), st.forgery, "bad signature")
	why := "too old"
	if st.replayWhy == "signature" {
		why = "bad signature"
	}
	attack("Replay of delivery 1 at "+sim.Span(webhook.ReplayAt), st.replay, why)
	h.Close("ul")
	h.Close("section")
}

func (r *webhookRun) orders(h *HTML, st webhookState) {
	bad := st.fulfilled > 1 || st.shipped > 0
	h.Open("section", "class", "w-panel"+when(bad, " bad"), "role", "group", "aria-label", "The orders")
	h.Elem("h3", "Orders")
	h.Open("p", "class", "w-big"+when(st.fulfilled > 1, " bad-text")).Elem("code", webhook.Order).Text(" fulfilled ").Elem("strong", Times(st.fulfilled)).Close("p")
	h.Open("p", "class", when(st.shipped > 0, "bad-text")).Elem("code", webhook.Unpaid).Text(": ")
	if st.shipped > 0 {
		h.Elem("strong", "shipped, unpaid")
	} else {
		h.Text("not paid, not shipped")
	}
	h.Close("p")
	holdOver(h, st, r.states, func(h *HTML, s webhookState) {
		if s.working > 0 {
			h.Elem("p", "Working…", "class", "w-note")
		}
	})
	h.Close("section")
}

func (r *webhookRun) verdict() string {
	res, p := r.res, r.p
	end := r.states[len(r.states)-1]
	s := "Order 1 fulfilled " + Times(res.Fulfilled) + " in " + Count(res.Deliveries, "delivery")
	if res.Forged > 0 {
		s += ", and order 2 shipped unpaid"
	}
	var why []string
	if res.Forged > 0 {
		why = append(why, "with no signature check, anyone who knows the URL can post an event")
	}
	retries := res.Fulfilled
	if end.replay == attackAccepted {
		retries--
		if p.Dedupe {
			why = append(why, "with no timestamp check the 48-hour-old replay passed, and its id had been forgotten after "+sim.Span(time.Duration(p.Keep)*time.Hour))
		} else {
			why = append(why, "with no timestamp check and no record of ids, the 48-hour-old replay passed")
		}
	}
	if retries > 1 {
		if p.Dedupe {
			why = append(why, "a retry came while the first delivery was still working, before its id was recorded")
		} else {
			why = append(why, "without a record of event ids, each delivery the endpoint accepted did the work again")
		}
	}
	if len(why) == 0 {
		switch {
		case p.Reply == webhook.AfterWork && res.Deliveries > 1:
			why = append(why, "the work outlasted the sender's "+sim.Span(webhook.Timeout)+", and the retry found the id")
		case res.Deliveries > 1:
			why = append(why, "the retry found the id recorded")
		}
		if p.Signature {
			why = append(why, "the forgery failed its signature")
		}
		switch {
		case end.replay == attackRefused:
			why = append(why, "the replay was too old")
		case end.replay == attackSeen:
			why = append(why, "the replay found its id still kept")
		}
	}
	s += ": " + Clauses(why) + "."
	if res.Delivered {
		return s
	}
	return s + " The sender gave up after " + Count(res.Deliveries, "delivery") + " and marks the event failed."
}
