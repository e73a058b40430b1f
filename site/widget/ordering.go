package widget

import (
	"strconv"
	"strings"
	"time"

	"github.com/retrylab/retrylab/engine/ordering"
)

// Ordering is webhook events that arrive out of order and twice: deduping
// by id stops the repeat but not the reordering; a version guard stops both.
var Ordering = Widget{
	Name:    "ordering",
	Chapter: "/ordering-and-watermarks/",
	Title:   "Events out of order, and twice",
	Summary: "A subscription goes from starter to pro, but the events arrive pro, starter, pro. Which plan does the consumer end on?",
	Schema:  Schema(ordering.Binding.Schema),
	Run:     runOrdering,
}

func init() { register(&Ordering) }

func runOrdering(v Values) (Run, error) {
	p := ordering.Binding.Read(v.Values)
	res, err := ordering.Run(p)
	if err != nil {
		return nil, err
	}
	return &orderingRun{p: p, res: res}, nil
}

type orderingRun struct {
	p   ordering.Params
	res ordering.Result
}

func (r *orderingRun) Steps() int { return len(r.res.Trace) }

func eventOf(id string) ordering.Event {
	for _, e := range ordering.Events {
		if e.ID == id {
			return e
		}
	}
	return ordering.Event{ID: id}
}

func secondsText(d time.Duration) string { return "t = " + strconv.Itoa(int(d/time.Second)) + " s" }

// Output draws the deliveries, each marked applied or skipped once
// reached, the plan in the database and what the consumer remembers, then
// the story so far.
func (r *orderingRun) Output(h *HTML, step int) {
	step = clampStep(step, r.Steps())
	plan, fates, mark, seenIDs := r.state(step)
	// What the last step shows has its place from the first (hold.go).
	_, endFates, endMark, endIDs := r.state(r.Steps())

	h.Open("div", "class", "w-panels")
	h.Open("section", "class", "w-panel or-arrivals", "role", "group", "aria-label", "Deliveries, in arrival order")
	h.Elem("h3", "Deliveries")
	h.Open("ol", "class", "w-rows")
	for i, id := range r.p.Arrival {
		ev := eventOf(id)
		fate, cls := fateText(fates, i)
		end, _ := fateText(endFates, i)
		h.Open("li", "class", cls).Elem("code", id).Text(" " + ev.Plan + ", " + secondsText(ev.At) + ": ").Open("strong")
		// The row keeps the room of the fate the replay will reach, at
		// every step, so that a longer one does not wrap the row as it
		// comes.
		holdTexts(h, 0, fate, end)
		h.Close("strong").Close("li")
	}
	h.Close("ol")
	h.Close("section")

	h.Open("section", "class", "w-panel", "role", "group", "aria-label", "The database")
	h.Elem("h3", "Database")
	shown := plan
	if shown == "" {
		shown = "none yet"
	}
	cls := "w-big"
	if step == r.Steps() && !r.res.Correct {
		cls += " bad-text"
	}
	h.Open("p", "class", cls).Text("plan = ").Elem("strong", shown).Close("p")
	switch r.p.Strategy {
	case ordering.VersionGuard:
		h.Open("p", "class", "w-note")
		holdTexts(h, 0, markText(mark), markText(endMark))
		h.Close("p")
	case ordering.Dedupe:
		h.Open("p", "class", "w-note")
		holdTexts(h, 0, idsText(seenIDs), idsText(endIDs))
		h.Close("p")
	default:
		h.Elem("p", "No guard: every delivery is applied.", "class", "w-note")
	}
	h.Close("section")
	h.Close("div")

	figures := []string{"data-plan", plan, "data-skipped", Itoa(countSkipped(fates))}
	if step == r.Steps() {
		figures = append(figures, "data-correct", strconv.FormatBool(r.res.Correct))
	}
	outcome := outcomeAttrs(step, r.Steps(), r.res.Correct, figures...)
	now := r.verdict()
	if step < r.Steps() {
		now = "Replaying: the plan is " + shown + " so far."
	}
	holdOutcome(h, outcome, now, r.verdict(), "Replaying: the plan is "+r.res.Plan+" so far.")
	events(h, r.res.Trace, step, nil, false)
}

// fateText is what the i-th delivery's row says of it, given the fates of
// those delivered so far, and the row's class.
func fateText(fates []string, i int) (text, class string) {
	if i >= len(fates) {
		return "waiting", "pending"
	}
	switch fates[i] {
	case "applied":
		return "applied", "ok"
	case "stale":
		return "applied over a newer plan", "bad"
	case "skipped":
		return "skipped", "skip"
	}
	return "arriving", "now"
}

// state is the plan, each delivery's fate ("", "applied", "stale" for one
// applied over a newer plan, or "skipped"),
// the high-water mark (-1 before any) and the ids applied after step events.
func (r *orderingRun) state(step int) (plan string, fates []string, mark time.Duration, seenIDs []string) {
	mark = -1
	seen := map[string]bool{}
	for _, e := range r.res.Trace[:step] {
		switch e.Kind {
		case ordering.Deliver:
			fates = append(fates, "")
		case ordering.Apply:
			ev := eventOf(e.Ref)
			plan = ev.Plan
			// An event older than one already applied puts an older
			// plan back: applied, and the step that makes the run wrong.
			fates[len(fates)-1] = "applied"
			if ev.At < mark {
				fates[len(fates)-1] = "stale"
			}
			mark = max(mark, ev.At)
			if !seen[ev.ID] {
				seen[ev.ID] = true
				seenIDs = append(seenIDs, ev.ID)
			}
		case ordering.Skip:
			fates[len(fates)-1] = "skipped"
		}
	}
	return plan, fates, mark, seenIDs
}

func markText(mark time.Duration) string {
	if mark < 0 {
		return "Newest applied: none yet"
	}
	return "Newest applied: " + secondsText(mark)
}

func idsText(ids []string) string {
	if len(ids) == 0 {
		return "Ids applied: none yet"
	}
	return "Ids applied: " + strings.Join(ids, ", ")
}

func countSkipped(fates []string) int {
	n := 0
	for _, f := range fates {
		if f == "skipped" {
			n++
		}
	}
	return n
}

func (r *orderingRun) verdict() string {
	s := r.res.Summary
	newest := ordering.Event{At: -1}
	for _, id := range r.p.Arrival {
		if e := eventOf(id); e.At > newest.At {
			newest = e
		}
	}
	text := "The consumer ends on " + s.Plan + ", after applying " + Count(len(s.Applied), "delivery") + " and skipping " + Figure(s.Skipped) + ". "
	if s.Correct {
		return text + "Right: that is the plan of the newest event, " + newest.ID + "."
	}
	text += "Wrong: the newest event is " + newest.ID + " (" + newest.Plan + ")"
	if r.p.Strategy == ordering.Dedupe {
		text += "; deduping by id stopped the repeat but not the older event arriving late."
	} else {
		text += "; an older event arriving late overwrote it."
	}
	return text
}
