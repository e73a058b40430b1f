//go:build js && wasm

package main

import (
	"syscall/js"

	"github.com/retrylab/retrylab/site/widget"
)

// highlightFor is how long, in milliseconds, the controls a link changed
// stay marked.
const highlightFor = 1600

// listenLinks answers the prose's widget links (site/markdown,
// widgetlink.go): each is a permalink to a widget of the page in some
// state, and a click on one sets that widget's controls to the state in
// place, re-runs it through its form's change event, as if the reader had
// set them, brings it into view if its title is not, and marks the
// controls that changed for a moment. The page neither reloads nor
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
		root := wrap(doc.Call("getElementById", id))
		if root == nil || root.GetAttribute("data-hydrated") != "true" {
			return
		}
		w, err := widget.Find(root.GetAttribute("data-widget"))
		if err != nil {
			return
		}
		v, err := w.Schema.ParseQuery(query)
		if err != nil {
			return // the permalink's restore says what is wrong
		}
		ev.Call("preventDefault")
		setWidget(root, w.Schema, v)
		bringIntoView(root)
	})
}

// setWidget sets root's controls to v (Schema.FillForm), re-runs the
// widget if any changed, and marks those that did.
func setWidget(root element, s widget.Schema, v widget.Values) {
	form := query(root.Value, "[data-region=controls]")
	if form == nil {
		return
	}
	els := queryAll(form.Value, "select[name], input[name]")
	cs := make([]widget.Control, len(els))
	for i, el := range els {
		cs[i] = widget.Control{Name: el.Get("name").String(), Value: el.Get("value").String()}
		if el.Get("type").String() == "checkbox" {
			cs[i].Checkbox, cs[i].Checked = true, el.Get("checked").Bool()
		}
	}
	var changed []element
	for i, c := range s.FillForm(cs, v) {
		if c == cs[i] {
			continue
		}
		if c.Checkbox {
			els[i].Set("checked", c.Checked)
		} else {
			els[i].Set("value", c.Value)
		}
		changed = append(changed, els[i])
	}
	if len(changed) == 0 {
		return
	}
	// The widget's own listener re-reads the whole form, once.
	ev := js.Global().Get("Event").New("change", map[string]any{"bubbles": true})
	changed[0].Call("dispatchEvent", ev)
	highlight(root, changed)
}

// highlight marks the changed controls, and the label or list item each
// belongs to, with the class w-changed (widget.css fades it in and out,
// without motion under prefers-reduced-motion) for highlightFor, opening
// "More parameters" if one of them is in it.
func highlight(root element, changed []element) {
	if cancel := unmark[root.ID()]; cancel != nil {
		cancel()
	}
	var marked []element
	for _, el := range changed {
		marked = append(marked, el)
		if item := closest(el.Value, ".w-item"); item != nil {
			marked = append(marked, item)
		} else if id := el.ID(); id != "" {
			if label := query(root.Value, `label[for="`+id+`"]`); label != nil {
				marked = append(marked, label)
			}
		}
		if more := closest(el.Value, "details.w-more"); more != nil {
			more.Set("open", true)
		}
	}
	for _, el := range marked {
		el.Get("classList").Call("add", "w-changed")
	}
	id := root.ID()
	unmark[id] = later(highlightFor, func() {
		delete(unmark, id)
		for _, el := range marked {
			el.Get("classList").Call("remove", "w-changed")
		}
	})
}

// unmark ends a widget's pending highlight, by the widget's id, so that a
// second link clicked meanwhile starts a highlight of its own.
var unmark = map[string]func(){}

// bringIntoView scrolls root to the top of the window unless its title
// is already in view: smoothly, or at once for a reader who asks for
// reduced motion.
func bringIntoView(root element) {
	win := js.Global()
	title := query(root.Value, ".w-title")
	if title == nil {
		title = root
	}
	r := title.Call("getBoundingClientRect")
	if r.Get("top").Float() >= 0 && r.Get("bottom").Float() <= win.Get("innerHeight").Float() {
		return
	}
	behavior := "smooth"
	if win.Call("matchMedia", "(prefers-reduced-motion: reduce)").Get("matches").Bool() {
		behavior = "auto"
	}
	root.Call("scrollIntoView", map[string]any{"block": "start", "behavior": behavior})
}
