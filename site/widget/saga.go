package widget

import (
	"github.com/retrylab/retrylab/engine/saga"
)

// Saga is a saga runner that crashes, resumes from its durable log and
// compensates, with and without idempotency keys on its calls.
var Saga = Widget{
	Name:    "saga",
	Chapter: "/sagas/",
	Title:   "A saga that crashes halfway",
	Summary: "Charge, book a flight, book a hotel; crash the runner, fail a step, and see what the services are left with.",
	Schema:  Schema(saga.Binding.Schema),
	Run:     runSaga,
}

func init() { register(&Saga) }

func runSaga(v Values) (Run, error) {
	p := saga.Binding.Read(v.Values)
	res, err := saga.Run(p)
	if err != nil {
		return nil, err
	}
	return &sagaRun{p: p, res: res}, nil
}

type sagaRun struct {
	p   saga.Params
	res saga.Result
}

func (r *sagaRun) Steps() int { return len(r.res.Trace) }

// sagaLanes names the trace's lanes: a service's lane is its step's name.
var sagaLanes = map[string]string{"runner": "Runner", "log": "Log", "charge": "Card", "flight": "Airline", "hotel": "Hotel"}

// sagaWords are what each step's service does and undoes.
var sagaWords = map[saga.Step][2]string{
	saga.Charge: {"charge", "refund"},
	saga.Flight: {"booking", "cancellation"},
	saga.Hotel:  {"booking", "cancellation"},
}

// Output draws the services' books and the runner's durable log as they
// stand after step events, then the story so far.
func (r *sagaRun) Output(h *HTML, step int) {
	step = clampStep(step, r.Steps())
	effects, replays, log, down := r.state(step)
	// What the last step shows has its place from the first (hold.go).
	endEffects, endReplays, endLog, _ := r.state(r.Steps())
	crashes := r.res.Crashes > 0

	h.Open("div", "class", "w-panels")
	for _, st := range saga.Steps {
		lane := string(st)
		ef := effects[lane]
		cls := "w-panel"
		if ef.Done > 1 || (step == r.Steps() && r.res.Outcome == "compensated" && ef.Done > ef.Undone) {
			cls += " bad"
		}
		h.Open("section", "class", cls, "role", "group", "aria-label", sagaLanes[lane])
		h.Elem("h3", sagaLanes[lane])
		words := sagaWords[st]
		// What is left in place, the figure the saga is judged by, and
		// under it how it came to be: a charge refunded leaves none.
		left := max(0, ef.Done-ef.Undone)
		h.Open("p", "class", "w-big").Elem("strong", Figure(left)).Text(" " + Plural(left, words[0]) + " left").Close("p")
		h.Elem("p", Count(ef.Done, words[0])+", "+Count(ef.Undone, words[1]), "class", "w-note")
		if n := endReplays[lane]; n > 0 {
			h.Elem("p", Count(max(replays[lane], 1), "replayed answer"), heldAttrs(replays[lane] == 0, "class", "w-note ok-text")...)
		}
		h.Close("section")
	}
	h.Open("section", "class", "w-panel w-log", "role", "group", "aria-label", "The runner's durable log")
	h.Elem("h3", "Durable log")
	h.Open("div", "class", "w-hold")
	h.Elem("p", "Empty.", heldAttrs(len(log) > 0, "class", "empty")...)
	if len(endLog) > 0 {
		h.Open("ol", heldAttrs(len(log) == 0, "class", "w-rows")...)
		for i, l := range endLog {
			h.Elem("li", l, heldAttrs(i >= len(log))...)
		}
		h.Close("ol")
	}
	h.Close("div")
	if crashes {
		h.Elem("p", "The runner is down.", heldAttrs(!down, "class", "bad-text")...)
	}
	h.Close("section")
	h.Close("div")

	card := effects[string(saga.Charge)]
	figures := []string{"data-charges", Itoa(card.Done), "data-undos", Itoa(card.Undone)}
	if step == r.Steps() {
		figures = append(figures, "data-outcome", r.res.Outcome, "data-stray", Itoa(r.res.Stray))
	}
	outcome := outcomeAttrs(step, r.Steps(), r.res.Stray == 0 && r.res.Charges-r.res.Undos <= 1, figures...)
	endCard := endEffects[string(saga.Charge)]
	now := r.verdict()
	if step < r.Steps() {
		now = replayingCard(card)
	}
	holdOutcome(h, outcome, now, r.verdict(), replayingCard(endCard))
	events(h, r.res.Trace, step, sagaLanes, false)
}

// replayingCard is the outcome while a replay is under way.
func replayingCard(card saga.Effect) string {
	return "Replaying: the card has seen " + Count(card.Done, "charge") + " and " + Count(card.Undone, "refund") + " so far."
}

// state is what the services, the log and the runner hold after step
// events.
func (r *sagaRun) state(step int) (effects map[string]saga.Effect, replays map[string]int, log []string, down bool) {
	effects, replays = map[string]saga.Effect{}, map[string]int{}
	for _, e := range r.res.Trace[:step] {
		ef := effects[e.Lane]
		switch e.Kind {
		case saga.Do:
			ef.Done++
		case saga.Undo:
			ef.Undone++
		case saga.Replay:
			replays[e.Lane]++
		case saga.Log:
			log = append(log, e.Ref+" "+e.Detail+".")
		case saga.Crash:
			down = true
		case saga.Resume:
			down = false
		}
		effects[e.Lane] = ef
	}
	return effects, replays, log, down
}

func (r *sagaRun) verdict() string {
	s := r.res.Summary
	text := ""
	if s.Outcome == "completed" {
		text = "Completed: every step done"
	} else {
		text = "Compensated: the " + string(r.p.Fail) + " step failed and the steps before it were undone in reverse"
	}
	if s.Crashes > 0 {
		text += ", across a crash of the runner"
	}
	text += ". The card saw " + Count(s.Charges, "charge") + " and " + Count(s.Undos, "refund") + "."
	for _, st := range saga.Steps {
		if e := s.Effects.Of(st); e.Done > 1 {
			text += " The " + sagaLanes[string(st)] + " made " + Count(e.Done, sagaWords[st][0]) +
				": without a key, the call repeated after the crash was a new one."
		}
	}
	switch {
	case s.Outcome == "compensated" && s.Stray == 0:
		text += " Nothing is left in place."
	case s.Outcome == "compensated":
		text += " " + Count(s.Stray, "effect") + " left in place that the saga meant to undo."
	}
	return text
}
