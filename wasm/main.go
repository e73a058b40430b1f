//go:build js && wasm

// Command wasm is the page's WebAssembly module: it hydrates every widget
// on the page. Each widget's root already holds its first state, rendered
// by the site generator with the same view code; this module wires the
// controls (one delegated listener per event type on the root), has the
// engine re-run on every change, in the simulator worker (worker.go), and
// re-renders the output region with its answer. What it does
// on an event lives in site/widget, which has tests natively and under
// WebAssembly: reading the form (Schema.ReadForm), the replay (Replay);
// this module only binds events to them and the DOM.
//
// Keep imports small: every package here is downloaded by every reader.
package main

import (
	"runtime"
	"strconv"
	"strings"
	"syscall/js"

	"github.com/retrylab/retrylab/site/widget"
)

// collectDelay is how long the page must be still, in milliseconds, before
// the module collects its garbage (see collectLater).
const collectDelay = 400

func main() {
	doc := js.Global().Get("document")
	if doc.IsUndefined() {
		serveRuns() // in the simulator worker (worker.go)
		return
	}
	runs = newRunner()
	// A permalink names one widget of the page and its state in the query
	// (?w=payment-1&keys=per-intent#w-payment-1); an embed page's query
	// is its one widget's state (/embed/payment/?keys=per-intent).
	target, params := widget.SplitPermalink(js.Global().Get("location").Get("search").String())
	embed := doc.Get("documentElement").Call("hasAttribute", string(widget.AttrEmbed)).Bool()
	for _, root := range queryAll(doc, widget.Simulators) {
		yield() // one widget per task
		// Reset goes back to the values the page was built with: the
		// article's, not a permalink's; on an embed page, the snippet's.
		initial := root.GetAttribute(string(widget.AttrParams))
		if (target != "" && target == root.ID()) || (target == "" && embed && params != "") {
			if v, ok := restore(root, params, embed && target == ""); ok && embed {
				initial = v.JSON()
			}
		}
		if err := hydrate(root, initial); err != nil {
			showError(root, err.Error())
		}
	}
	listenLinks(doc)
	// A page that draws widgets after it loads (the playground's preview)
	// sends widget.EventWidgets on the document after each drawing; those
	// drawn while the first were hydrated are hydrated now.
	listen(doc, widget.EventWidgets, func(js.Value) { hydrateNew(doc) })
	hydrateNew(doc)
	select {} // keep the module alive to answer events
}

// hydrateNew hydrates every widget of the page not hydrated yet (the live
// API panel is live.js's).
func hydrateNew(doc js.Value) {
	for _, root := range queryAll(doc, widget.Simulators+":not(["+string(widget.AttrHydrated)+"])") {
		if err := hydrate(root, root.GetAttribute(string(widget.AttrParams))); err != nil {
			showError(root, err.Error())
		}
	}
}

// restore sets root's controls to the state a query asks for, as a
// prose link sets them, and reports the values it set: hydrate then finds
// the form changed and runs the widget in that state, in the simulator
// worker, as if the reader had set the controls while the module loaded
// (a permalink may ask for the heaviest run there is, and drawing the
// whole widget afresh here would also link the controls' markup into the
// module for what the controls already are). A query the widget's schema
// refuses leaves root as it was, with a message that names the parameter,
// the value and the values allowed, in the words of the snippet's
// attributes when embedded is set and embed.js made the frame, else of
// the page's address; the message is text, never markup, whatever the
// query holds.
func restore(root element, state string, embedded bool) (widget.Values, bool) {
	w, err := widget.Find(root.GetAttribute(string(widget.AttrWidget)))
	if err != nil {
		return widget.Values{}, false // hydrate reports it
	}
	v, err := w.Schema.ParseQuery(state)
	if err != nil {
		if embedded && js.Global().Get("name").String() == widget.SnippetFrame {
			showError(root, w.Schema.SnippetError(err)+".")
		} else {
			showError(root, "The settings in this page's address were not applied: "+err.Error()+".")
		}
		return widget.Values{}, false
	}
	setWidget(root, w.Schema, v)
	return v, true
}

// runs computes the widgets' runs: in the simulator worker, or here.
var runs *runner

// linkPage is the page a widget's permalink opens, as its href names it:
// "" for the page the widget is on, the chapter's path on an embed page
// (widget.Place.Article).
func linkPage(link element) string {
	if link == nil {
		return ""
	}
	page, _, _ := strings.Cut(link.GetAttribute("href"), "?")
	return page
}

// origin is the page's scheme and host, which embed snippets load
// embed.js from: the site the reader is on, deployed or local.
func origin() string { return js.Global().Get("location").Get("origin").String() }

type instance struct {
	root    element
	form    element
	out     element
	stepno  element // the step's number, in the replay controls
	status  element // a sentence for screen readers after each change
	snippet element // the embed snippet's text area
	caption element // the settings of the run shown, in words
	link    element // the permalink
	play    element // the play/pause button
	playAs  string  // what the play button shows (PlayLabel's markup)
	typing  func()  // cancels the re-run of a number being typed
	scrub   element // the scrubber
	w       *widget.Widget
	values  widget.Values
	initial widget.Values // what Reset goes back to
	replay  widget.Replay
	// asks orders the requests for this widget's output (runner.send):
	// only the newest one's answer is drawn.
	asks widget.Latest[ask]
	// changing is the newest change of the values not yet drawn, nil if
	// none: a step asked for meanwhile is a step of its run.
	changing *ask
	// showBusy cancels the pending "running…", nil if none.
	showBusy func()
	// changedParam is the parameter whose control the reader changed
	// last: a message about values in conflict blames it.
	changedParam string
	// reveal is set by a link in the prose that changed the values: the
	// run it asked for, once drawn, is scrolled into view (revealFigure).
	// scrolled says that the click scrolled already.
	reveal, scrolled bool
}

// hydrate wires root's controls; initial is the JSON of the values Reset
// goes back to.
func hydrate(root element, initial string) error {
	w, err := widget.Find(root.GetAttribute(string(widget.AttrWidget)))
	if err != nil {
		return err
	}
	values, err := w.Schema.ParseJSON(root.GetAttribute(string(widget.AttrParams)))
	if err != nil {
		return err
	}
	first, err := w.Schema.ParseJSON(initial)
	if err != nil {
		return err
	}
	in := &instance{
		root:    root,
		form:    query(root.Value, widget.RegionControls.Selector()),
		out:     query(root.Value, widget.RegionOutput.Selector()),
		stepno:  query(root.Value, widget.RegionStepNo.Selector()),
		status:  query(root.Value, widget.RegionStatus.Selector()),
		play:    query(root.Value, widget.ActionPlay.Selector()),
		scrub:   query(root.Value, widget.ActionScrub.Selector()),
		snippet: query(root.Value, widget.RegionSnippet.Selector()),
		caption: query(root.Value, widget.RegionSettings.Selector()),
		link:    query(root.Value, widget.RegionPermalink.Selector()),
		w:       w,
		values:  values,
		initial: first,
	}
	if in.form == nil || in.out == nil {
		return errorString("widget markup is missing its controls or output region")
	}
	// The page already shows the end state the build ran, and its number of
	// steps: the engine runs only when the reader first asks for something
	// else, so a page of many widgets costs no runs to become interactive.
	steps, err := strconv.Atoi(root.GetAttribute(string(widget.AttrSteps)))
	if err != nil {
		return errorString("widget markup has no number of steps (" + string(widget.AttrSteps) + ")")
	}
	in.replay = widget.Replay{Clock: pageClock{}, Show: in.show, Stopped: func(bool) {
		in.playingChanged()
		in.announce()
	}}
	in.replay.Load(steps, steps)
	in.asks.Send = func(seq int, a ask) {
		runs.send(in, request{seq: seq, id: root.ID(), widget: w.Name, params: a.values.JSON(), step: a.step})
	}
	runs.add(in)

	listen(root.Value, "change", func(ev js.Value) {
		// Only the parameters' controls: the scrubber has no name.
		name := ev.Get("target").Get("name")
		if name.Type() != js.TypeString {
			return
		}
		if _, ok := w.Schema.Param(name.String()); ok {
			if in.typing != nil {
				in.typing()
				in.typing = nil
			}
			// A number typed and already shown, as it was typed, is not
			// run again as the field is left.
			if in.shows(name.String()) {
				return
			}
			in.changedParam = name.String()
			in.changed(false)
		}
	})
	// A number re-runs the widget as it is typed, once the typing pauses
	// and the field holds a value the widget takes: "100" typed into a
	// field shows its run without leaving the field. A value on its way
	// ("1" of "100", below the field's least) waits for the change event,
	// at the field's blur or Enter, which says what is wrong with it.
	listen(root.Value, "input", func(ev js.Value) {
		t := ev.Get("target")
		name := t.Get("name")
		if t.Get("type").String() != "number" || name.Type() != js.TypeString {
			return
		}
		if _, ok := w.Schema.Param(name.String()); !ok {
			return
		}
		if in.typing != nil {
			in.typing()
		}
		in.typing = later(typingPause, func() {
			in.typing = nil
			if _, ferr := in.w.FormValues(in.controls(), name.String(), in.values); ferr != nil || in.shows(name.String()) {
				return
			}
			in.changedParam = name.String()
			in.changed(false)
		})
	})
	listen(in.form.Value, "submit", func(ev js.Value) {
		ev.Call("preventDefault")
		in.changed(true)
	})
	listen(root.Value, "click", func(ev js.Value) {
		btn := closest(ev.Get("target"), "button[data-action]")
		if btn == nil {
			return
		}
		switch widget.Action(btn.GetAttribute("data-action")) {
		case widget.ActionPlay:
			// At the run's end the press submits the form: the run is
			// made again from the controls, a value typed and not yet
			// committed included, and replayed from the start.
			if in.replay.Playing() || in.replay.Step() < in.replay.Steps() {
				ev.Call("preventDefault")
				in.toggle()
			}
		case widget.ActionBack:
			in.stepBy(-1)
		case widget.ActionForward:
			in.stepBy(1)
		case widget.ActionReset:
			in.reset()
		case widget.ActionToggle:
			in.toggleParam(btn.GetAttribute("data-param"))
		}
	})
	if in.scrub != nil {
		listen(in.scrub.Value, "input", func(js.Value) {
			if n, err := strconv.Atoi(in.scrub.Get("value").String()); err == nil {
				in.goTo(n)
			}
		})
	}
	listen(root.Value, "keydown", in.key)
	in.listenLists()

	// A reader may have changed a control, or pressed Replay, while the
	// module was loading: the loader notes a pending replay on the root.
	pending := root.GetAttribute(string(widget.AttrPending))
	root.RemoveAttribute(string(widget.AttrPending))
	// The build wrote the permalink and the caption for these values; the
	// snippet names the build's origin, and the reader may be on another.
	in.showSnippet()
	if shown, err := w.Schema.Parse(w.Schema.ReadForm(in.controls())); err != nil || shown.JSON() != values.JSON() || pending == widget.PendingReplay {
		in.changed(pending == widget.PendingReplay)
	}
	if !in.asks.Waiting() {
		in.idle() // the loader's "loading the simulator…", for a change undone meanwhile
	}
	root.SetAttribute(string(widget.AttrHydrated), "true")
	root.SetAttribute(string(widget.AttrHydratedAt), strconv.FormatFloat(now(), 'f', 1, 64))
	return nil
}

// key answers the replay's keyboard shortcuts while focus is inside the
// widget: K or Space play and pause, the arrows step, Home and End go to
// the first and last step. A key that means something where focus is (an
// arrow in a select, Space on a button or a checkbox) keeps its meaning.
func (in *instance) key(ev js.Value) {
	if in.play == nil || ev.Get("ctrlKey").Bool() || ev.Get("metaKey").Bool() || ev.Get("altKey").Bool() {
		return
	}
	target := ev.Get("target")
	tag := target.Get("tagName").String()
	scrubber := tag == "INPUT" && target.Get("type").String() == "range"
	if tag == "SELECT" || tag == "TEXTAREA" || (tag == "INPUT" && !scrubber) {
		return
	}
	// Inside the output (guard's timeline scrolls sideways from the
	// keyboard) the keys are the reader's; redrawing it would also take
	// the focus away.
	if closest(target, widget.RegionOutput.Selector()) != nil {
		return
	}
	if in.replay.Steps() == 0 {
		return
	}
	switch ev.Get("key").String() {
	case "k", "K":
		in.toggle()
	case " ":
		if tag == "BUTTON" || tag == "SUMMARY" {
			return // Space presses the button, opens the disclosure
		}
		in.toggle()
	case "ArrowLeft", "ArrowRight", "Home", "End":
		if scrubber {
			return // the scrubber moves itself, and says so with an input event
		}
		switch ev.Get("key").String() {
		case "ArrowLeft":
			in.stepBy(-1)
		case "ArrowRight":
			in.stepBy(1)
		case "Home":
			in.goTo(0)
		default:
			in.goTo(in.replay.Steps())
		}
	default:
		return
	}
	ev.Call("preventDefault")
}

// An ask is what a request for the widget's output was made for.
type ask struct {
	values widget.Values
	step   int // the step to draw, or end
	// change is set for a change of the values: their run's answer sets
	// the widget to them, controls, links and replay.
	change bool
	replay bool    // with change: replay the new run from its first step
	start  float64 // with change: when it was made (now)
}

// changed re-reads the controls and asks for the new values' run: the end
// state, or the first step to replay from when replay is set. The answer
// comes later (answered), from the simulator worker.
func (in *instance) changed(replay bool) {
	in.replay.Stop()
	in.playingChanged()
	controls := in.controls()
	in.showItems(controls)
	start := now()
	values, ferr := in.w.FormValues(controls, in.changedParam, in.values)
	if ferr != nil {
		in.asks.Drop()
		in.changing = nil
		in.idle()
		in.showFieldError(ferr)
		return
	}
	step := end
	if replay {
		step = 0
	}
	a := ask{values: values, step: step, change: true, replay: replay, start: start}
	in.changing = &a
	in.ask(a)
}

// ask requests the output for a. A change of the values shows the widget
// busy until it is answered; a step of a replay does not: the run is
// kept in the worker and a step is drawn in a frame or two, and a replay
// whose ticks come faster than the worker answers would otherwise keep
// the whole figure greyed out under "running…" until it stopped.
func (in *instance) ask(a ask) {
	if a.change {
		in.busy()
	}
	in.asks.Ask(a)
}

// answered takes an answer from the runner. One to a request made before
// the newest is dropped: the reader has moved on.
func (in *instance) answered(a answer) {
	q, ok := in.asks.Answered(a.seq)
	if !ok {
		return
	}
	in.idle()
	in.changing = nil
	if a.err != "" {
		in.reveal, in.scrolled = false, false
		in.showFieldError(in.w.RunFailed(errorString(a.err), in.changedParam))
		return
	}
	if !q.change {
		in.draw(a.html, a.step, a.steps) // a step of the replay
		if !in.replay.Playing() {
			in.announce()
		}
		return
	}
	in.clearFieldError()
	clearError(in.root)
	in.values = q.values
	in.showBounds()
	in.root.SetAttribute(string(widget.AttrParams), q.values.JSON())
	in.root.SetAttribute(string(widget.AttrSteps), widget.Itoa(a.steps))
	in.showValues()
	in.replay.Load(a.steps, a.step)
	in.draw(a.html, a.step, a.steps)
	if in.reveal {
		// The new run's figure may be taller than the one the click
		// scrolled to.
		if in.scrolled || !figureInView(in.root) {
			revealFigure(in.root)
		}
		in.reveal, in.scrolled = false, false
	}
	if q.replay && a.steps > 0 {
		in.replay.Play()
		in.playingChanged()
	} else {
		in.announce()
	}
	// From the change to its result drawn, for the record and the tests.
	in.root.SetAttribute(string(widget.AttrMS), strconv.FormatFloat(now()-q.start, 'f', 1, 64))
}

// shows reports whether the widget shows the run of its controls' values
// as they stand, changed last at name, with no error and no run under way.
func (in *instance) shows(name string) bool {
	if in.changing != nil || in.root.GetAttribute(string(widget.AttrError)) != "" {
		return false
	}
	values, ferr := in.w.FormValues(in.controls(), name, in.values)
	return ferr == nil && values.JSON() == in.values.JSON()
}

// typingPause is how long, in milliseconds, a number's typing pauses
// before the widget re-runs with it: 150 ms is shorter than the pause a
// reader makes to look at the result, and longer than the gap between
// two keys of one number.
const typingPause = 150

// busyDelay is how long, in milliseconds, a widget computes before it
// says "running…": 50 ms is three frames at 60 Hz, half the 100 ms within
// which a reader expects a change to show. Runs at the defaults (3 to
// 25 ms) are drawn before it and never flash the word; aria-busy is set
// at once, for assistive technology.
const busyDelay = 50

// busy marks the widget busy (aria-busy), and visibly so (data-busy,
// widget.css) after busyDelay.
func (in *instance) busy() {
	in.root.SetAttribute("aria-busy", "true")
	if in.showBusy == nil {
		in.showBusy = later(busyDelay, func() {
			in.showBusy = nil
			in.root.SetAttribute(string(widget.AttrBusy), widget.BusyRunning)
		})
	}
}

// idle takes the busy state away, the loader's "loading the simulator…"
// included.
func (in *instance) idle() {
	if in.showBusy != nil {
		in.showBusy()
		in.showBusy = nil
	}
	in.root.RemoveAttribute("aria-busy")
	in.root.RemoveAttribute(string(widget.AttrBusy))
}

// showSnippet points the embed snippet at the widget's current parameters
// and at this site's embed.js.
func (in *instance) showSnippet() {
	if in.snippet != nil {
		in.snippet.Set("value", widget.Snippet(in.w.Name, in.values, origin()))
	}
}

// showValues writes what says the widget's current parameters: the embed
// snippet (pointed at this site's embed.js), the permalink and the
// settings caption (which a printed page shows for the controls). A "Link
// copied." said of the last state goes.
func (in *instance) showValues() {
	in.showSnippet()
	if in.link != nil {
		in.link.SetAttribute("href", linkPage(in.link)+widget.Permalink(in.root.ID(), in.values))
	}
	if said := query(in.root.Value, widget.RegionLinkCopied.Selector()); said != nil {
		said.SetTextContent("")
	}
	if in.caption != nil {
		var h widget.HTML
		widget.SettingsCaption(&h, in.values)
		in.caption.Set("innerHTML", h.String())
	}
}

// reset sets the controls back to the values the page was built with, as
// a prose link sets them (the widget re-runs if any changed, and they are
// marked), and takes a permalink to this widget out of the page's
// address, which no longer describes what the reader sees.
func (in *instance) reset() {
	highlight(in.root, in.set(in.initial), false)
	loc := js.Global().Get("location")
	if id, _ := widget.SplitPermalink(loc.Get("search").String()); id == in.root.ID() {
		js.Global().Get("history").Call("replaceState", js.Null(), "", loc.Get("pathname").String()+loc.Get("hash").String())
	}
}

// toggle plays or pauses the replay. Playing from the last step starts
// over.
func (in *instance) toggle() {
	in.replay.Toggle()
	in.playingChanged()
}

// stepBy moves d steps from the one shown.
func (in *instance) stepBy(d int) {
	in.goTo(in.replay.Step() + d)
}

// goTo stops any replay and shows step.
func (in *instance) goTo(step int) {
	in.replay.GoTo(step)
	in.playingChanged()
	in.announce()
}

// playingChanged shows on the root and the play button whether a replay
// runs.
func (in *instance) playingChanged() {
	if in.replay.Playing() == (in.root.GetAttribute(string(widget.AttrPlaying)) == "true") {
		return
	}
	if in.replay.Playing() {
		in.root.SetAttribute(string(widget.AttrPlaying), "true")
	} else {
		in.root.RemoveAttribute(string(widget.AttrPlaying))
	}
	in.label()
}

// label shows Play, Pause or, at the run's end, Replay on the play button.
func (in *instance) label() {
	if in.play == nil {
		return
	}
	var h widget.HTML
	widget.PlayLabel(&h, in.replay.Playing(), in.replay.Step() >= in.replay.Steps())
	if s := h.String(); s != in.playAs {
		in.playAs = s
		in.play.SetInnerHTML(s)
	}
}

// show asks for the output region at step of the values shown (the
// replay's Show); draw puts it in place.
func (in *instance) show(step int) {
	a := ask{values: in.values, step: step}
	if in.changing != nil {
		a = *in.changing
		a.step, a.replay = step, false
	}
	in.ask(a)
}

// toggleParam turns the on/off parameter name on or off, as a click on
// its checkbox does: a button on the figure (widget.ActionToggle) sets
// the checkbox, which is marked for a moment, and the widget re-runs.
func (in *instance) toggleParam(name string) {
	if p, ok := in.w.Schema.Param(name); !ok || p.Kind != widget.Bool {
		return
	}
	box := query(in.form.Value, `input[type="checkbox"][name="`+name+`"]`)
	if box == nil {
		return
	}
	box.Set("checked", !box.Get("checked").Bool())
	in.changedParam = name
	in.changed(false)
	highlight(in.root, []element{box}, false)
}

// draw puts html, the output region at step of steps, in place, and
// moves the scrubber and the step's number along. A button of the figure
// that had the focus has it again once drawn (the figure's markup is
// new), so that a keyboard reader stays where they were.
func (in *instance) draw(html string, step, steps int) {
	focused := ""
	if active := js.Global().Get("document").Get("activeElement"); !active.IsNull() && active.Get("dataset").Get("param").Type() == js.TypeString &&
		in.out.Value.Call("contains", active).Bool() {
		focused = `button[data-param="` + active.Get("dataset").Get("param").String() + `"]`
	}
	morph(in.out.Value, html)
	if focused != "" {
		if el := query(in.out.Value, focused); el != nil {
			el.Call("focus")
		}
	}
	in.root.SetAttribute(string(widget.AttrStep), widget.Itoa(step))
	if in.stepno != nil {
		in.stepno.SetTextContent(widget.StepNo(step, steps))
	}
	in.label()
	collectLater()
	if in.scrub != nil {
		in.scrub.SetAttribute("max", widget.Itoa(steps))
		in.scrub.Set("value", widget.Itoa(step))
		in.scrub.SetAttribute("aria-valuetext", widget.StepText(step, steps))
	}
}

// announce puts the outcome's sentence (and the step, for a replay) in the
// status line, which screen readers read out; while an answer is awaited,
// its drawing announces it instead.
func (in *instance) announce() {
	if in.status == nil || in.asks.Waiting() {
		return
	}
	text := ""
	if o := query(in.out.Value, "."+widget.ClassOutcome); o != nil {
		text = o.TextContent()
	}
	if steps := in.replay.Steps(); steps > 0 {
		text = widget.StepText(in.replay.Step(), steps) + ". " + text
	}
	in.status.SetTextContent(text)
}

// now is performance.now(): milliseconds since the page started loading.
func now() float64 { return js.Global().Get("performance").Call("now").Float() }

// collectLater collects the module's garbage once the page has been still
// for collectDelay. The loader starts the module with the collector off
// (GOGC=off) and a ceiling on its heap (GOMEMLIMIT), because collecting
// while a large run allocates took half its time: in Chromium, 100,000
// clients with full jitter ran in about 1 s with the collector on and in
// 0.4 s with it off. What a run leaves behind is collected here instead,
// while the reader looks at the result; the ceiling makes the collector run
// anyway before a run could take the tab's memory. (runtime/debug could
// hold the collector off around each run instead, but it brings fmt and
// reflection into the module: 110 KB.)
func collectLater() {
	if collecting != nil {
		collecting()
	}
	collecting = later(collectDelay, func() {
		collecting = nil
		runtime.GC()
	})
}

// collecting cancels the pending collection, nil if none.
var collecting func()

// controls reads the form's controls, in document order, for
// Schema.ReadForm (formControls).
func (in *instance) controls() []widget.Control {
	_, cs := formControls(in.form)
	return cs
}

// showError puts msg in the widget's error box, which the loader draws
// (site/static/loader.js, showError) above the output, keeping the last
// run drawn on screen; "" takes it away.
func showError(root element, msg string) {
	ev := js.Global().Get("CustomEvent").New(widget.EventError, map[string]any{"bubbles": true, "detail": msg})
	root.Call("dispatchEvent", ev)
}

func clearError(root element) { showError(root, "") }

type errorString string

func (e errorString) Error() string { return string(e) }
