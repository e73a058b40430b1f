//go:build js && wasm

// Command wasm is the page's WebAssembly module: it hydrates every widget
// on the page. Each widget's root already holds its first state, rendered
// by the site generator with the same view code; this module wires the
// controls (one delegated listener per event type on the root), re-runs the
// engine on every change and re-renders the output region.
//
// Keep imports small: every package here is downloaded by every reader.
package main

import (
	"strconv"
	"strings"
	"syscall/js"

	"github.com/retrylab/retrylab/site/widget"
)

// stepDelay is the pause between two steps of a replay, in milliseconds: a
// row of the sequence diagram is about eight words, which a reader takes in
// at a glance with the row highlighted; the step buttons are there to read
// at leisure.
const stepDelay = 700

func main() {
	doc := js.Global().Get("document")
	for _, root := range queryAll(doc, "[data-widget]") {
		if err := hydrate(root); err != nil {
			showError(root, err.Error())
		}
	}
	select {} // keep the module alive to answer events
}

type instance struct {
	root    element
	form    element
	out     element
	stepno  element
	w       *widget.Widget
	values  widget.Values
	run     widget.Run
	step    int
	timer   int // pending replay timer, 0 if none
	playing bool
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
		root:   root,
		form:   query(root.Value, "[data-region=controls]"),
		out:    query(root.Value, "[data-region=output]"),
		stepno: query(root.Value, "[data-region=stepno]"),
		w:      w,
		values: values,
	}
	if in.form == nil || in.out == nil {
		return errorString("widget markup is missing its controls or output region")
	}
	run, err := w.Run(values)
	if err != nil {
		return err
	}
	in.run, in.step = run, run.Steps()

	listen(root.Value, "change", func(js.Value) { in.changed(false) })
	listen(in.form.Value, "submit", func(ev js.Value) {
		ev.Call("preventDefault")
		in.changed(true)
	})
	listen(root.Value, "click", func(ev js.Value) {
		btn := closest(ev.Get("target"), "[data-action]")
		if btn == nil {
			return
		}
		switch btn.GetAttribute("data-action") {
		case "back":
			in.stop()
			in.show(in.step - 1)
		case "forward":
			in.stop()
			in.show(in.step + 1)
		}
	})

	// A reader may have changed a control, or pressed Replay, while the
	// module was loading: the loader notes a pending replay on the root.
	pending := root.GetAttribute("data-pending")
	root.RemoveAttribute("data-pending")
	if raw := in.read(); !sameValues(raw, values.Raw()) || pending == "replay" {
		in.changed(pending == "replay")
	}
	root.SetAttribute("data-hydrated", "true")
	now := js.Global().Get("performance").Call("now").Float()
	root.SetAttribute("data-hydrated-at", strconv.FormatFloat(now, 'f', 1, 64))
	return nil
}

// changed re-reads the controls, re-runs the engine and shows the end
// state, or replays from the first step when replay is set.
func (in *instance) changed(replay bool) {
	in.stop()
	in.showItems()
	values, err := in.w.Schema.Parse(in.read())
	if err != nil {
		showError(in.root, err.Error())
		return
	}
	run, err := in.w.Run(values)
	if err != nil {
		showError(in.root, err.Error())
		return
	}
	clearError(in.root)
	in.values, in.run = values, run
	in.root.SetAttribute("data-params", values.JSON())
	in.root.SetAttribute("data-steps", widget.Itoa(run.Steps()))
	if replay && run.Steps() > 0 {
		in.show(0)
		in.playing = true
		in.root.SetAttribute("data-playing", "true")
		in.schedule()
		return
	}
	in.show(run.Steps())
}

func (in *instance) schedule() {
	in.timer = later(stepDelay, func() {
		in.timer = 0
		if !in.playing {
			return
		}
		in.show(in.step + 1)
		if in.step < in.run.Steps() {
			in.schedule()
		} else {
			in.stop()
		}
	})
}

func (in *instance) stop() {
	if in.timer != 0 {
		cancel(in.timer)
		in.timer = 0
	}
	in.playing = false
	in.root.RemoveAttribute("data-playing")
}

// show renders the output region at step, clamped to the run's steps.
func (in *instance) show(step int) {
	steps := in.run.Steps()
	step = max(0, min(step, steps))
	in.step = step
	var h widget.HTML
	in.run.Output(&h, step)
	in.out.SetInnerHTML(h.String())
	in.root.SetAttribute("data-step", widget.Itoa(step))
	if in.stepno != nil {
		var s widget.HTML
		widget.StepLabel(&s, step, steps)
		in.stepno.SetInnerHTML(s.String())
	}
}

// showItems shows as many items of each list control as the parameter
// its count comes from says (one fault per attempt), hiding the rest.
func (in *instance) showItems() {
	for _, p := range in.w.Schema {
		if p.Kind != widget.EnumList || p.CountFrom == "" {
			continue
		}
		src := query(in.form.Value, "[name=\""+p.CountFrom+"\"]")
		if src == nil {
			continue
		}
		n, err := strconv.Atoi(src.Get("value").String())
		if err != nil {
			continue // an invalid count is reported by Parse
		}
		for i, item := range queryAll(in.form.Value, "[data-param=\""+p.Name+"\"] .w-item") {
			item.Set("hidden", i >= n)
		}
	}
}

// read collects the form's values by control name. Several controls with
// one name (a list parameter) give a comma-separated list of the non-empty
// ones, in document order.
func (in *instance) read() map[string]string {
	raw := map[string]string{}
	lists := map[string][]string{}
	for _, el := range queryAll(in.form.Value, "select[name], input[name]") {
		v := el.Value
		name := v.Get("name").String()
		p, ok := in.w.Schema.Param(name)
		if !ok {
			continue
		}
		switch {
		case p.Kind == widget.EnumList:
			if item := closest(v, ".w-item"); item != nil && item.Get("hidden").Bool() {
				continue // offered only when its count grows
			}
			if _, seen := lists[name]; !seen {
				lists[name] = nil
			}
			if s := v.Get("value").String(); s != "" {
				lists[name] = append(lists[name], s)
			}
		case v.Get("type").String() == "checkbox":
			raw[name] = "off"
			if v.Get("checked").Bool() {
				raw[name] = "on"
			}
		default:
			raw[name] = v.Get("value").String()
		}
	}
	for name, items := range lists {
		raw[name] = strings.Join(items, ",")
	}
	return raw
}

func sameValues(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if norm(v) != norm(b[k]) {
			return false
		}
	}
	return true
}

func norm(s string) string { return strings.ReplaceAll(s, ", ", ",") }

// showError puts a message in the widget's error line (role=alert), made on
// first use, and keeps the last good output on screen.
func showError(root element, msg string) {
	box := query(root.Value, ".w-error")
	if box == nil {
		box = wrap(js.Global().Get("document").Call("createElement", "p"))
		box.SetAttribute("class", "w-error")
		box.SetAttribute("role", "alert")
		if out := query(root.Value, "[data-region=output]"); out != nil {
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
