//go:build js && wasm

package main

import (
	"syscall/js"

	"github.com/retrylab/retrylab/site/widget"
)

// highlightFor is how long, in milliseconds, the controls a link changed
// stay marked; scrollWait, the longest the marks wait for a smooth scroll
// to the widget to end before that time starts.
const (
	highlightFor = 1600
	scrollWait   = 1500
)

// listenLinks answers the prose's widget links (site/markdown,
// widgetlink.go): each is a permalink to a widget of the page in some
// state, and a click on one sets that widget's controls to the state in
// place and re-runs it, as if the reader had set them, brings its figure
// and outcome into view if they are not, and marks the controls that changed for a
// moment. The page neither reloads nor
// navigates. Until the module runs, and for a widget it could not
// hydrate, the link is what its href says: the permalink, which the
// module restores on load.
func listenLinks(doc js.Value) {
	listen(doc, "click", func(ev js.Value) {
		// A click that opens a tab or a window keeps its meaning.
		if ev.Get("defaultPrevented").Bool() || ev.Get("button").Int() != 0 ||
			ev.Get("ctrlKey").Bool() || ev.Get("metaKey").Bool() || ev.Get("shiftKey").Bool() || ev.Get("altKey").Bool() {
			return
		}
		link := closest(ev.Get("target"), "a[data-widget-link]")
		if link == nil {
			return
		}
		id, query := widget.SplitPermalink(link.Get("search").String())
		in := runs.widgets[id] // hydrated
		if in == nil {
			return
		}
		v, err := in.w.Schema.ParseQuery(query)
		if err != nil {
			return // the permalink's restore says what is wrong
		}
		ev.Call("preventDefault")
		changed := in.set(v)
		smooth := false
		in.scrolled = !figureInView(in.root)
		if in.scrolled {
			smooth = revealFigure(in.root)
		}
		// A run asked for is scrolled to again once drawn (answered).
		in.reveal = in.changing != nil
		highlight(in.root, changed, smooth)
	})
}

// setWidget sets root's controls to v (Schema.FillForm, after drawing
// each list with v's items) and returns those that changed, and whether
// any did (a list drawn again to no item changes no control). It runs
// nothing: restore sets the controls of a widget not hydrated yet, which
// hydrate then finds changed; a hydrated widget re-runs with
// instance.set.
func setWidget(root element, s widget.Schema, v widget.Values) (changed []element, any bool) {
	form := query(root.Value, widget.RegionControls.Selector())
	if form == nil {
		return nil, false
	}
	// A list holds the items in use: drawn again with as many as v has,
	// its selects are among the changed controls.
	for _, p := range s {
		if p.Kind != widget.EnumList {
			continue
		}
		set := query(form.Value, listSelector(p.Name))
		want := v.List(p.Name)
		if set == nil || sameItems(set, want) {
			continue
		}
		fresh := drawList(form, set, p, want, widget.ListLimit(p, v))
		any = true
		changed = append(changed, queryAll(fresh.Value, "select[name]")...)
	}
	// Each list now holds as many items as v has: FillForm keeps the
	// controls in step with the elements.
	els, cs := formControls(form)
	for i, c := range s.FillForm(cs, v) {
		if c == cs[i] || c.List {
			continue
		}
		if c.Checkbox {
			els[i].Set("checked", c.Checked)
		} else {
			els[i].Set("value", c.Value)
		}
		changed = append(changed, els[i])
	}
	return changed, any || len(changed) > 0
}

// set sets the widget's controls to v, as the reader would, re-runs it if
// any changed, and returns the controls that did. A message about values
// in conflict blames the first of them.
func (in *instance) set(v widget.Values) []element {
	changed, any := setWidget(in.root, in.w.Schema, v)
	if any {
		in.changedParam = ""
		if len(changed) > 0 {
			in.changedParam = changed[0].GetAttribute("name")
		}
		in.changed(false)
	}
	return changed
}

// highlight marks the changed controls, and the label or list item each
// belongs to, with the class w-changed (widget.css fades it in and out,
// without motion under prefers-reduced-motion), opening "More
// parameters" if one of them is in it. The marks stay for highlightFor,
// counted from the end of the scroll when scrolling, so that a reader
// brought from far down the page still sees them.
func highlight(root element, changed []element, scrolling bool) {
	id := root.ID()
	if cancel := unmark[id]; cancel != nil {
		cancel()
	}
	if len(changed) == 0 {
		return
	}
	var marked []element
	for _, el := range changed {
		marked = append(marked, el)
		if item := closest(el.Value, ".w-item"); item != nil {
			marked = append(marked, item)
		} else if cid := el.ID(); cid != "" {
			if label := query(root.Value, `label[for="`+cid+`"]`); label != nil {
				marked = append(marked, label)
			}
		}
		if more := closest(el.Value, "details.w-more"); more != nil {
			more.Set("open", true)
		}
	}
	for _, el := range marked {
		el.Get("classList").Call("add", widget.ClassChanged)
	}
	done := false
	var stop func() // cancels the timer, once started
	end := func() {
		if done {
			return
		}
		done = true
		delete(unmark, id)
		for _, el := range marked {
			el.Get("classList").Call("remove", widget.ClassChanged)
		}
	}
	unmark[id] = func() {
		if stop != nil {
			stop()
		}
		end()
	}
	start := func() {
		if !done && stop == nil {
			stop = later(highlightFor, end)
		}
	}
	if scrolling {
		whenScrolled(start)
		later(scrollWait, start) // in case the scroll's end is never told
	} else {
		start()
	}
}

// unmark ends a widget's pending highlight, by the widget's id, so that a
// second link clicked meanwhile starts a highlight of its own.
var unmark = map[string]func(){}

// figureSpan is where root's figure lies in the window, in CSS pixels:
// from the top of its output region to the bottom of its outcome (the
// region's own in a widget without one), and under that the height of the
// replay controls that follow the outcome, which stay at the window's
// bottom edge while their own place is below it (widget.css) and would
// cover the outcome there.
func figureSpan(root element) (top, bottom float64) {
	fig := query(root.Value, ".w-output")
	if fig == nil {
		fig = root
	}
	end := query(fig.Value, ".w-outcome")
	if end == nil {
		end = fig
	}
	top = fig.Call("getBoundingClientRect").Get("top").Float()
	bottom = end.Call("getBoundingClientRect").Get("bottom").Float()
	if player := query(root.Value, ".w-player"); player != nil {
		bottom += player.Call("getBoundingClientRect").Get("height").Float()
	}
	return top, bottom
}

// figureInView says whether root's figure, from its top to the bottom of
// the replay controls under its outcome, is all inside the window.
func figureInView(root element) bool {
	top, bottom := figureSpan(root)
	return top >= 0 && bottom <= js.Global().Get("innerHeight").Float()
}

// revealMargin is the room, in CSS pixels, left between the window's edge
// and a figure scrolled into view.
const revealMargin = 16

// revealFigure scrolls the window so that root's figure, from its top to
// the replay controls under its outcome, is in its middle, or, when it is
// taller than the window, so that they sit at the window's bottom edge
// with the outcome just above them: what a
// link changed, and how the run ends, are in view. It scrolls smoothly, or
// at once for a reader who asks for reduced motion, and reports whether a
// smooth scroll has begun.
func revealFigure(root element) bool {
	win := js.Global()
	y := win.Get("scrollY").Float()
	height := win.Get("innerHeight").Float()
	top, bottom := figureSpan(root)
	top, bottom = top+y, bottom+y
	target := top - (height-(bottom-top))/2
	if bottom-top > height-2*revealMargin {
		target = bottom - height + revealMargin
	}
	target = max(0, target)
	if abs(target-y) < 1 {
		return false
	}
	smooth := !win.Call("matchMedia", "(prefers-reduced-motion: reduce)").Get("matches").Bool()
	behavior := "instant"
	if smooth {
		behavior = "smooth"
	}
	win.Call("scrollTo", map[string]any{"top": target, "behavior": behavior})
	return smooth
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

// whenScrolled runs fn once the window's scroll ends, or at once in a
// browser that does not say when (no scrollend event).
func whenScrolled(fn func()) {
	win := js.Global()
	if win.Get("onscrollend").IsUndefined() {
		fn()
		return
	}
	var f js.Func
	f = js.FuncOf(func(js.Value, []js.Value) any {
		f.Release()
		fn()
		return nil
	})
	win.Call("addEventListener", "scrollend", f, map[string]any{"once": true})
}

// sameItems reports whether the list control set holds items, in order.
func sameItems(set element, items []string) bool {
	selects := queryAll(set.Value, "select[name]")
	if len(selects) != len(items) {
		return false
	}
	for i, sel := range selects {
		if sel.Get("value").String() != items[i] {
			return false
		}
	}
	return true
}
