package widget

import (
	"slices"

	"github.com/retrylab/retrylab/engine/param"
)

// Render writes a whole widget, already run with v and shown at its end
// state: the root element with data-widget, data-params and the id of
// at, the output region, the replay controls of a replayable run, the
// controls (one form element per parameter, named after it, with a
// visible label; under More parameters those the widget declares so, or
// those at.Shown does not name), and the toolbar (the permalink of that state, Reset) and the
// Embed panel with the snippet of that state.
func Render(h *HTML, w *Widget, v Values, at Place) error {
	id := at.ID
	run, err := w.Run(v)
	if err != nil {
		return err
	}
	steps := run.Steps()
	// The figure is named by its title alone, not by the whole caption,
	// which holds the toolbar's links and buttons too.
	h.Open("figure", "class", "widget", "id", id, string(AttrWidget), w.Name, "aria-labelledby", id+"-title",
		string(AttrParams), v.JSON(), string(AttrStep), Itoa(steps), string(AttrSteps), Itoa(steps))
	h.Open("figcaption", "class", "w-head")
	// A heading of the level of an article's sections, so that a screen
	// reader's list of headings finds the widget; the panels of its output
	// are h3s under it.
	h.Elem("span", w.Title, "class", "w-title", "id", id+"-title", "role", "heading", "aria-level", "2")
	toolbar(h, v, at)
	h.Elem("span", w.Summary, "class", "w-summary")
	h.Close("figcaption")

	// The figure comes first, under the caption, and the controls under
	// it: the figure and its outcome fit one screen, and a reader who
	// changes a control sees both. What changed, in a sentence, for screen readers: the output region is
	// redrawn as a whole, which a live region would read out in full.
	h.Elem("p", "", "class", "w-sr", "role", "status", "data-region", string(RegionStatus))
	h.Open("div", "class", "w-output", "data-region", string(RegionOutput))
	run.Output(h, steps)
	h.Close("div")
	if steps > 0 {
		Player(h, id, steps, steps)
	}

	form := id + "-form"
	// The page checks the values itself and says what is wrong beside the
	// control (FormValues), so the browser's own bubbles stay out of the way.
	h.Open("form", "class", "w-controls", "id", form, "data-region", string(RegionControls), "novalidate", "true")
	folded := func(p Param) bool {
		if at.Shown != nil {
			return !slices.Contains(at.Shown, p.Name)
		}
		return p.More
	}
	more, open := false, false
	for _, p := range w.Schema {
		if folded(p) {
			more = true
			open = open || !v.IsDefault(p.Name)
			continue
		}
		control(h, p, v, id)
	}
	if more {
		// Open when one of them is changed, so that the reader sees why
		// the figures differ from the defaults'.
		h.Open("details", "class", "w-more", "open", boolAttr(open))
		h.Elem("summary", "More parameters")
		h.Open("div", "class", "w-more-fields")
		for _, p := range w.Schema {
			if folded(p) {
				control(h, p, v, id)
			}
		}
		h.Close("div").Close("details")
	}
	if steps == 0 {
		// Changes re-run at once; the button is for Enter in a number
		// field, and for whoever looks for one.
		h.Open("div", "class", "w-actions")
		h.Elem("button", "Run", "type", "submit", "class", "w-replay", "data-action", string(ActionRun))
		h.Close("div")
	}
	h.Close("form")
	// Without JavaScript (noscript.css) and in print the controls are
	// hidden: a caption says which settings produced the run shown (the
	// controls already say it to the search index, which leaves it out),
	// and a note that trying others needs JavaScript.
	h.Open("p", "class", "w-settings", "data-pagefind-ignore", "all", "data-region", string(RegionSettings))
	SettingsCaption(h, v)
	h.Close("p")
	try := "To try other settings, turn JavaScript on."
	if steps > 0 {
		try = "To try other settings, and to replay the run step by step, turn JavaScript on."
	}
	h.Elem("p", try, "class", "w-nojs")
	embedPanel(h, w, v, at)
	h.Close("figure")
	return nil
}

// Player writes the replay controls of a replayable widget, at step of
// steps: one button that plays and pauses, and at the run's end replays it
// from the start, a step back and forward, a scrubber, the step's number
// and the keyboard shortcuts, which the page's module wires. The play
// button submits the parameters' form (id + "-form"), which is how a
// replay asked for before the module runs is kept (loader.js); the module
// takes the press as play or pause until the run's end.
func Player(h *HTML, id string, step, steps int) {
	h.Open("div", "class", "w-player", "role", "group", "aria-label", "Replay", "data-region", string(RegionPlayer))
	h.Open("div", "class", "w-buttons")
	h.Open("button", "type", "submit", "form", id+"-form", "class", "w-play w-replay", "data-action", string(ActionPlay), "aria-keyshortcuts", "k Space")
	PlayLabel(h, false, step >= steps)
	h.Close("button")
	h.Elem("button", "◀ Back", "type", "button", "data-action", string(ActionBack), "aria-label", "Step back", "aria-keyshortcuts", "ArrowLeft")
	h.Elem("button", "Forward ▶", "type", "button", "data-action", string(ActionForward), "aria-label", "Step forward", "aria-keyshortcuts", "ArrowRight")
	h.Close("div")
	sid := id + "-step"
	h.Open("div", "class", "w-scrub")
	h.Elem("label", "Step", "for", sid, "class", "w-label")
	h.Void("input", "type", "range", "id", sid, "class", "w-scrubber", "data-action", string(ActionScrub),
		"min", "0", "max", Itoa(steps), "step", "1", "value", Itoa(step),
		"aria-valuetext", StepText(step, steps), "aria-keyshortcuts", "Home End")
	h.Open("output", "class", "w-stepno", "for", sid, "data-region", string(RegionStepNo))
	h.Text(StepNo(step, steps))
	h.Close("output")
	h.Close("div")
	h.Open("p", "class", "w-keys")
	h.Text("Keys: ").Elem("kbd", "K").Text(" or ").Elem("kbd", "Space").Text(" play/pause, ")
	h.Elem("kbd", "←").Text(" ").Elem("kbd", "→").Text(" step, ")
	h.Elem("kbd", "Home").Text(" ").Elem("kbd", "End").Text(" first/last")
	h.Close("p")
	h.Close("div")
}

// PlayLabel writes the play button's content: "❚❚ Pause" while a replay
// runs, "↺ Replay" at the run's end, where a press replays it from the
// start, and "▶ Play" elsewhere. The symbol is decoration; the word is the
// name.
func PlayLabel(h *HTML, playing, atEnd bool) {
	switch {
	case playing:
		h.Elem("span", "❚❚", "aria-hidden", "true").Text(" Pause")
	case atEnd:
		h.Elem("span", "↺", "aria-hidden", "true").Text(" Replay")
	default:
		h.Elem("span", "▶", "aria-hidden", "true").Text(" Play")
	}
}

// StepNo is the step's number beside the scrubber, whose label says
// "Step": "3 of 9".
func StepNo(step, steps int) string {
	return Itoa(step) + " of " + Itoa(steps)
}

// StepText is "Step 3 of 9".
func StepText(step, steps int) string {
	return "Step " + Itoa(step) + " of " + Itoa(steps)
}

func control(h *HTML, p Param, v Values, id string) {
	cid := id + "-" + p.Name
	if p.Kind == EnumList {
		ListControl(h, p, v.List(p.Name), ListLimit(p, v))
		return
	}
	h.Open("label", "class", "w-field", "for", cid, "title", p.Help)
	h.Elem("span", p.Label, "class", "w-label")
	h.Close("label")
	switch p.Kind {
	case Enum:
		h.Open("select", "id", cid, "name", p.Name)
		cur := v.String(p.Name)
		for _, a := range p.Allowed {
			h.Elem("option", p.Word(a), "value", a, "selected", boolAttr(cur == a))
		}
		h.Close("select")
	case Bool:
		h.Void("input", "id", cid, "name", p.Name, "type", "checkbox", "value", "on", "checked", boolAttr(v.Bool(p.Name)))
	case Int, Float:
		step := "1"
		if p.Kind == Float {
			step = "any"
			if p.Step > 0 {
				step = param.Number(p.Step)
			}
		}
		b := v.bound(p.Name)
		h.Void("input", "id", cid, "name", p.Name, "type", "number", "inputmode", "decimal",
			"min", b.Min, "max", b.Max, "step", step, "value", v.Text(p.Name))
	}
}

func boolAttr(b bool) string {
	if b {
		return "true"
	}
	return ""
}
