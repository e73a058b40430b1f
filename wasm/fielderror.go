//go:build js && wasm

package main

import (
	"syscall/js"

	"github.com/retrylab/retrylab/site/widget"
)

// showFieldError puts e's message beside the control at fault (after it,
// or after the list it belongs to), marks the control aria-invalid and
// described by the message, and dims the output, which still shows the
// last values that ran, until the values are valid again. A message that
// blames no control sits above the output.
func (in *instance) showFieldError(e *widget.FieldError) {
	in.clearFieldError()
	id := widget.ErrorID(in.root.ID())
	msg := wrap(js.Global().Get("document").Call("createElement", "p"))
	msg.SetAttribute("id", id)
	msg.SetAttribute("class", widget.ClassFieldError)
	msg.SetAttribute("role", "alert")
	msg.SetTextContent(e.Message)
	var anchor element
	if e.Param != "" {
		for _, el := range queryAll(in.form.Value, "[name=\""+e.Param+"\"]") {
			el.SetAttribute("aria-invalid", "true")
			el.SetAttribute("aria-describedby", id)
			anchor = el
		}
		if anchor != nil {
			if list := closest(anchor.Value, "fieldset"); list != nil {
				anchor = list
			}
		}
	}
	if anchor != nil {
		if more := closest(anchor.Value, "details"); more != nil {
			more.SetAttribute("open", "")
		}
		anchor.Call("after", msg.Value)
	} else {
		in.root.Call("insertBefore", msg.Value, in.out.Value)
	}
	in.out.SetAttribute("data-stale", "true")
	in.root.SetAttribute(string(widget.AttrError), e.Message)
}

// clearFieldError takes the message and the marks away and undims the
// output.
func (in *instance) clearFieldError() {
	if msg := query(in.root.Value, ".w-field-error"); msg != nil {
		msg.Call("remove")
	}
	for _, el := range queryAll(in.form.Value, "[aria-invalid]") {
		el.RemoveAttribute("aria-invalid")
		el.RemoveAttribute("aria-describedby")
	}
	in.out.RemoveAttribute("data-stale")
	in.root.RemoveAttribute(string(widget.AttrError))
}

// showBounds sets each number control's min and max to what its
// parameter can take beside the others' values.
func (in *instance) showBounds() {
	for _, b := range in.values.Bounds() {
		if el := query(in.form.Value, "input[name=\""+b.Name+"\"]"); el != nil {
			el.SetAttribute("min", b.Min)
			el.SetAttribute("max", b.Max)
		}
	}
}
