//go:build js && wasm

// Command wasm is the page's WebAssembly module: it hydrates every widget
// on the page. Each widget's root already holds its first state, rendered
// by the site generator with the same view code; this module wires the
// controls (one delegated listener per event type on the root), re-runs the
// engine on every change and re-renders the output region. What it does
// on an event lives in site/widget, which has tests natively and under
// WebAssembly: reading the form (Schema.ReadForm), the replay (Replay);
// this module only binds events to them and the DOM.
//
// Keep imports small: every package here is downloaded by every reader.
package main

import (
	"runtime"
	"strconv"
	"syscall/js"

	"github.com/retrylab/retrylab/site/widget"
)

// collectDelay is how long the page must be still, in milliseconds, before
// the module collects its garbage (see collectLater).
const collectDelay = 400

func main() {
	doc := js.Global().Get("document")
	// A permalink names one widget of the page and its state in the query
	// (?w=payment-1&keys=per-intent#w-payment-1); an embed page's query
	// is its one widget's state (/embed/payment/?keys=per-intent).
	target, params := widget.SplitPermalink(js.Global().Get("location").Get("search").String())
	embed := doc.Get("documentElement").Call("hasAttribute", "data-embed").Bool()
	for _, root := range queryAll(doc, "[data-widget]") {
		yield() // one widget per task
		if (target != "" && target == root.ID()) || (target == "" && embed && params != "") {
			root = restore(root, params)
			yield() // the redraw in one task, the binding in the next
		}
		if err := hydrate(root); err != nil {
			showError(root, err.Error())
		}
	}
	listenLinks(doc)
	// A page that draws widgets after it loads (the playground's preview)
	// sends "retrylab:widgets" on the document after each drawing; those
	// drawn while the first were hydrated are hydrated now.
	listen(doc, "retrylab:widgets", func(js.Value) { hydrateNew(doc) })
	hydrateNew(doc)
	select {} // keep the module alive to answer events
}

// hydrateNew hydrates every widget of the page not hydrated yet (the live
// API panel is live.js's).
func hydrateNew(doc js.Value) {
	for _, root := range queryAll(doc, "[data-widget]:not([data-widget=live]):not([data-hydrated])") {
		if err := hydrate(root); err != nil {
			showError(root, err.Error())
		}
	}
}

// restore draws root afresh in the state query asks for, controls and
// all, with the same view code as the build, and returns the new root. A
// query the widget's schema refuses leaves root as it was, with a message
// that names the parameter, the value and the values allowed; the message
// is text, never markup, whatever the query holds.
func restore(root element, query string) element {
	w, err := widget.Find(root.GetAttribute("data-widget"))
	if err != nil {
		return root // hydrate reports it
	}
	v, err := w.Schema.ParseQuery(query)
	if err == nil && v.JSON() == root.GetAttribute("data-params") {
		return root // already drawn in that state
	}
	var h widget.HTML
	if err == nil {
		err = widget.Render(&h, w, v, widget.Place{ID: root.ID(), Origin: origin()})
	}
	if err != nil {
		showError(root, "The settings in this page's address were not applied: "+err.Error()+".")
		return root
	}
	id := root.ID()
	root.Set("outerHTML", h.String())
	if fresh := wrap(js.Global().Get("document").Call("getElementById", id)); fresh != nil {
		return fresh
	}
	return root
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
	link    element // the permalink
	play    element // the play/pause button
	scrub   element // the scrubber
	w       *widget.Widget
	values  widget.Values
	run     widget.Run
	replay  widget.Replay
	// changedParam is the parameter whose control the reader changed
	// last: a message about values in conflict blames it.
	changedParam string
}

func hydrate(root element) error {
	w, err := widget.Find(root.GetAttribute("data-widget"))
	if err != nil {
		return err
	}
	values, err := w.Schema.ParseJSON(root.GetAttribute("data-params"))
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
		link:    query(root.Value, widget.RegionPermalink.Selector()),
		w:       w,
		values:  values,
	}
	if in.form == nil || in.out == nil {
		return errorString("widget markup is missing its controls or output region")
	}
	// The page already shows the end state the build ran: the engine runs
	// here only when the reader first asks for something else (ensure), so
	// a page of many widgets costs no runs to become interactive.
	in.replay = widget.Replay{Clock: pageClock{}, Show: in.show, Stopped: func(bool) {
		in.playingChanged()
		in.announce()
	}}

	listen(root.Value, "change", func(ev js.Value) {
		// Only the parameters' controls: the scrubber has no name.
		name := ev.Get("target").Get("name")
		if name.Type() != js.TypeString {
			return
		}
		if _, ok := w.Schema.Param(name.String()); ok {
			in.changedParam = name.String()
			in.changed(false)
		}
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
			in.toggle()
		case widget.ActionBack:
			in.stepBy(-1)
		case widget.ActionForward:
			in.stepBy(1)
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

	// A reader may have changed a control, or pressed Replay, while the
	// module was loading: the loader notes a pending replay on the root.
	pending := root.GetAttribute("data-pending")
	root.RemoveAttribute("data-pending")
	in.showEmbed()
	if shown, err := w.Schema.Parse(w.Schema.ReadForm(in.controls())); err != nil || shown.JSON() != values.JSON() || pending == "replay" {
		in.changed(pending == "replay")
	}
	root.SetAttribute("data-hydrated", "true")
	root.SetAttribute("data-hydrated-at", strconv.FormatFloat(now(), 'f', 1, 64))
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
	if !in.ensure() || in.run.Steps() == 0 {
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

// ensure runs the engine for the values the page shows, the first time a
// step, a replay or a key needs the run, and reports whether it has one.
func (in *instance) ensure() bool {
	if in.run != nil {
		return true
	}
	run, err := in.w.Run(in.values)
	if err != nil {
		showError(in.root, err.Error())
		return false
	}
	in.run = run
	in.replay.Load(run.Steps(), run.Steps()) // the end state, as drawn
	return true
}

// changed re-reads the controls, re-runs the engine and shows the end
// state, or replays from the first step when replay is set.
func (in *instance) changed(replay bool) {
	in.replay.Stop()
	in.playingChanged()
	controls := in.controls()
	in.showItems(controls)
	start := now()
	values, run, ferr := in.w.RunForm(controls, in.changedParam, in.values)
	if ferr != nil {
		in.showFieldError(ferr)
		return
	}
	in.clearFieldError()
	clearError(in.root)
	in.values, in.run = values, run
	in.showBounds()
	in.root.SetAttribute("data-params", values.JSON())
	in.root.SetAttribute("data-steps", widget.Itoa(run.Steps()))
	in.showEmbed()
	in.replay.Load(run.Steps(), run.Steps())
	if replay && run.Steps() > 0 {
		in.replay.GoTo(0)
		in.replay.Play()
		in.playingChanged()
	} else {
		in.show(run.Steps())
		in.announce()
	}
	// How long the run and its drawing took, for the record and the tests.
	in.root.SetAttribute("data-ms", strconv.FormatFloat(now()-start, 'f', 1, 64))
}

// showEmbed points the embed snippet and the permalink at the widget's
// current parameters, and the snippet at this site's embed.js.
func (in *instance) showEmbed() {
	if in.snippet != nil {
		in.snippet.Set("value", widget.Snippet(in.w.Name, in.values, origin()))
	}
	if in.link != nil {
		in.link.SetAttribute("href", widget.Permalink(in.root.ID(), in.values))
	}
}

// toggle plays or pauses the replay. Playing from the last step starts
// over.
func (in *instance) toggle() {
	if !in.ensure() {
		return
	}
	in.replay.Toggle()
	in.playingChanged()
}

// stepBy moves d steps from the one shown.
func (in *instance) stepBy(d int) {
	if in.ensure() {
		in.goTo(in.replay.Step() + d)
	}
}

// goTo stops any replay and shows step.
func (in *instance) goTo(step int) {
	if !in.ensure() {
		return
	}
	in.replay.GoTo(step)
	in.playingChanged()
	in.announce()
}

// playingChanged shows on the root and the play button whether a replay
// runs.
func (in *instance) playingChanged() {
	if in.replay.Playing() == (in.root.GetAttribute("data-playing") == "true") {
		return
	}
	if in.replay.Playing() {
		in.root.SetAttribute("data-playing", "true")
	} else {
		in.root.RemoveAttribute("data-playing")
	}
	in.label()
}

// label shows Play or Pause on the play button.
func (in *instance) label() {
	if in.play == nil {
		return
	}
	var h widget.HTML
	widget.PlayLabel(&h, in.replay.Playing())
	in.play.SetInnerHTML(h.String())
}

// show renders the output region at step, clamped to the run's steps, and
// moves the scrubber and the step's number along.
func (in *instance) show(step int) {
	steps := in.run.Steps()
	step = max(0, min(step, steps))
	var h widget.HTML
	in.run.Output(&h, step)
	in.out.SetInnerHTML(h.String())
	in.root.SetAttribute("data-step", widget.Itoa(step))
	if in.stepno != nil {
		in.stepno.SetTextContent(widget.StepText(step, steps))
	}
	collectLater()
	if in.scrub != nil {
		in.scrub.SetAttribute("max", widget.Itoa(steps))
		in.scrub.Set("value", widget.Itoa(step))
		in.scrub.SetAttribute("aria-valuetext", widget.StepText(step, steps))
	}
}

// announce puts the outcome's sentence (and the step, for a replay) in the
// status line, which screen readers read out.
func (in *instance) announce() {
	if in.status == nil {
		return
	}
	text := ""
	if o := query(in.out.Value, ".w-outcome"); o != nil {
		text = o.TextContent()
	}
	if steps := in.run.Steps(); steps > 0 {
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

// showItems shows as many items of each list control as the parameter
// its count comes from says (one fault per attempt), hiding the rest.
func (in *instance) showItems(controls []widget.Control) {
	for name, n := range in.w.Schema.ItemsShown(controls) {
		for i, item := range queryAll(in.form.Value, "[data-param=\""+name+"\"] .w-item") {
			item.Set("hidden", i >= n)
		}
	}
}

// controls reads the form's named elements, in document order, for
// Schema.ReadForm.
func (in *instance) controls() []widget.Control {
	var out []widget.Control
	for _, el := range queryAll(in.form.Value, "select[name], input[name]") {
		v := el.Value
		c := widget.Control{Name: v.Get("name").String(), Value: v.Get("value").String()}
		if v.Get("type").String() == "checkbox" {
			c.Checkbox, c.Checked = true, v.Get("checked").Bool()
		}
		out = append(out, c)
	}
	return out
}

// showError puts a message in the widget's error line (role=alert), made on
// first use, and keeps the last good output on screen.
func showError(root element, msg string) {
	box := query(root.Value, ".w-error")
	if box == nil {
		box = wrap(js.Global().Get("document").Call("createElement", "p"))
		box.SetAttribute("class", "w-error")
		box.SetAttribute("role", "alert")
		if out := query(root.Value, widget.RegionOutput.Selector()); out != nil {
			root.Call("insertBefore", box.Value, out.Value)
		} else {
			root.Call("appendChild", box.Value)
		}
	}
	box.SetTextContent(msg)
	root.SetAttribute("data-error", msg)
}

func clearError(root element) {
	if box := query(root.Value, ".w-error"); box != nil {
		box.Call("remove")
	}
	root.RemoveAttribute("data-error")
}

type errorString string

func (e errorString) Error() string { return string(e) }
