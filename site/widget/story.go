package widget

import "github.com/retrylab/retrylab/engine/sim"

// events writes a trace under the outcome, headed "Every event, in
// order": an ordered list of what happened, one item per event under the
// name of the actor it happened to (lanes maps a lane to that name; nil
// for a story with one actor, whose name would only repeat), and with the
// virtual time of each event first when timed (a widget whose point is
// when things happen: lease, the retry against the lease). It comes after
// the outcome so that the figure and the outcome stay together on one
// screen. The events from step on keep their place, hidden, so that the
// widget does not jump while it replays; the last one shown is marked
// while a replay is under way.
func events(h *HTML, trace sim.Trace, step int, lanes map[string]string, timed bool) {
	h.Elem("h3", "Every event, in order", "class", "w-storyhead")
	writeStory(h, trace, step, lanes, timed)
}

// foldedEvents writes the trace as events does, under a figure that draws
// each step itself: folded in a disclosure, "Every event", closed until
// the reader opens it, for those who want the steps in words.
func foldedEvents(h *HTML, trace sim.Trace, step int, lanes map[string]string, timed bool) {
	h.Open("details", "class", "w-events")
	h.Elem("summary", "Every event")
	writeStory(h, trace, step, lanes, timed)
	h.Close("details")
}

// storyRows is the most events a story lists at once. The lock's
// declaration allows 100 senders of 100 attempts each with no guard: a
// trace of 69,700 events, 12 MB of HTML written whole, which takes the
// page's main thread seconds to parse and lay out. 200 rows are about
// 35 KB, a few milliseconds; a longer trace is listed 200 events at a
// time, those up to the step shown.
const storyRows = 200

// storyWindow is the events a story of n events lists at step: from the
// first, until the step passes storyRows, then the storyRows up to it.
func storyWindow(n, step int) (from, to int) {
	if n <= storyRows {
		return 0, n
	}
	from = min(max(0, step-storyRows), n-storyRows)
	return from, from + storyRows
}

func writeStory(h *HTML, trace sim.Trace, step int, lanes map[string]string, timed bool) {
	cls := "w-story"
	if lanes == nil {
		cls += " solo"
	}
	if timed {
		cls += " timed"
	}
	attrs := []string{"class", cls, "aria-label", "What happened, in order"}
	from, to := storyWindow(len(trace), step)
	if to-from < len(trace) {
		h.Elem("p", "Events "+Figure(from+1)+" to "+Figure(to)+" of "+Figure(len(trace))+": the list shows "+Figure(storyRows)+" at a time.",
			"class", "w-story-range")
		attrs = append(attrs, "start", Itoa(from+1))
	}
	h.Open("ol", attrs...)
	for i := from; i < to; i++ {
		e := trace[i]
		cls := "k-" + e.Kind.String()
		switch {
		case i >= step:
			cls += " future"
		case i == step-1 && step < len(trace):
			cls += " current"
		}
		attrs := []string{"class", cls}
		if i >= step {
			attrs = append(attrs, "aria-hidden", "true")
		}
		h.Open("li", attrs...)
		if timed {
			h.Elem("span", secs(e.At), "class", "w-time")
		}
		if lanes != nil {
			name := lanes[e.Lane]
			if name == "" {
				name = e.Lane
			}
			h.Elem("span", name, "class", "w-actor")
		}
		h.Elem("span", e.Sentence(), "class", "w-text")
		h.Close("li")
	}
	h.Close("ol")
}

// clampStep keeps a step within a run of steps steps.
func clampStep(step, steps int) int { return max(0, min(step, steps)) }

// outcomeAttrs are the attributes of a replayable widget's outcome: its
// figures, the step, whether the replay is done and, once it is, the
// verdict (good tells data-verdict "good" from "bad", for the outcome's
// colour).
func outcomeAttrs(step, steps int, good bool, figures ...string) []string {
	attrs := append([]string{"class", ClassOutcome}, figures...)
	done := "false"
	if step == steps {
		done = "true"
		attrs = append(attrs, "data-verdict", verdict(good))
	}
	return append(attrs, "data-step", Itoa(step), "data-done", done)
}

func verdict(good bool) string {
	if good {
		return "good"
	}
	return "bad"
}
