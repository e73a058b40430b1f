package widget

// A list parameter (payment's faults, ordering's arrivals) is drawn as
// the items in use, one select each with a Remove button, and an Add
// button after them: never a row of blanks for the items not in use. The
// module (wasm/lists.go) answers the buttons by drawing the list again
// with ListControl, so the markup of a list has one source, here.

// ListLimit is how many items of p the controls offer when the values are
// v: the count p's length comes from (one fault per attempt), else its
// MaxItems.
func ListLimit(p Param, v Values) int {
	if p.CountFrom != "" {
		return min(v.Int(p.CountFrom), p.MaxItems)
	}
	return p.MaxItems
}

// NewItem is the value an Add appends to items: the list's Pad, which
// changes nothing until the reader picks another (after the faults, ok);
// else a repeat of the last item (an event delivered again); else the
// first allowed value.
func NewItem(p Param, items []string) string {
	switch {
	case p.Pad != "":
		return p.Pad
	case len(items) > 0:
		return items[len(items)-1]
	}
	return p.Allowed[0]
}

// ListControl writes the control of the list parameter p holding items:
// a fieldset whose legend is p's label, an item per value (its number, a
// select named p.Name and a Remove button), what the items past the list
// stand for (p's Pad), and an Add button. Items from limit on stay in the
// markup, hidden, so that a count raised again offers them back (ReadForm
// skips them meanwhile); Add is disabled once the list reaches limit, and
// Remove while it holds no more than MinItems. Every button's name says
// which item and which list it acts on, for keyboards and screen readers.
func ListControl(h *HTML, p Param, items []string, limit int) {
	h.Open("fieldset", "class", "w-field w-list", "title", p.Help, "data-param", p.Name)
	h.Elem("legend", p.Label)
	h.Open("ol", "class", "w-items")
	for i, cur := range items {
		n := Itoa(i + 1)
		h.Open("li", "class", "w-item", "hidden", boolAttr(i >= limit))
		h.Elem("span", n, "class", "w-itemno", "aria-hidden", "true")
		h.Open("select", "name", p.Name, "aria-label", p.Label+" "+n)
		for _, a := range p.Allowed {
			h.Elem("option", p.Word(a), "value", a, "selected", boolAttr(cur == a))
		}
		h.Close("select")
		h.Open("button", "type", "button", "class", "w-remove", "data-action", string(ActionRemoveItem),
			"aria-label", "Remove "+p.Label+" "+n, "disabled", boolAttr(len(items) <= p.MinItems))
		h.Elem("span", "✕", "aria-hidden", "true")
		h.Close("button")
		h.Close("li")
	}
	h.Close("ol")
	h.Open("div", "class", "w-list-end")
	if p.Pad != "" {
		rest := "After these: "
		if len(items) == 0 {
			rest = "All: "
		}
		h.Elem("p", rest+p.Word(p.Pad), "class", "w-item-rest", "hidden", boolAttr(len(items) >= limit))
	}
	h.Open("button", "type", "button", "class", "w-add", "data-action", string(ActionAddItem),
		"aria-label", "Add to "+p.Label, "disabled", boolAttr(len(items) >= limit))
	h.Elem("span", "+", "aria-hidden", "true").Text(" Add")
	h.Close("button")
	h.Close("div").Close("fieldset")
}
