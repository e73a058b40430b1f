//go:build js && wasm

package main

import (
	"syscall/js"

	"github.com/retrylab/retrylab/site/widget"
)

// listenLists answers the Add and Remove buttons of the widget's list
// parameters (widget.ListControl): the list is drawn again with the item
// added or removed, the widget re-runs as for any change, and the focus
// goes where a keyboard reader expects it (focusItem).
func (in *instance) listenLists() {
	listen(in.form.Value, "click", func(ev js.Value) {
		btn := closest(ev.Get("target"), "button[data-action]")
		if btn == nil {
			return
		}
		action := widget.Action(btn.GetAttribute("data-action"))
		if action != widget.ActionAddItem && action != widget.ActionRemoveItem {
			return
		}
		set := closest(btn.Value, "fieldset[data-param]")
		if set == nil {
			return
		}
		p, ok := in.w.Schema.Param(set.GetAttribute("data-param"))
		if !ok || p.Kind != widget.EnumList {
			return
		}
		selects := queryAll(set.Value, "select[name]")
		items := make([]string, len(selects))
		at := -1 // the item whose Remove was pressed
		pressed := closest(btn.Value, ".w-item")
		for i, s := range selects {
			items[i] = s.Get("value").String()
			if pressed != nil && pressed.Value.Equal(closest(s.Value, ".w-item").Value) {
				at = i
			}
		}
		switch {
		case action == widget.ActionAddItem:
			items = append(items, widget.NewItem(p, items))
			at = len(items) - 1
		case at >= 0:
			items = append(items[:at], items[at+1:]...)
			at = min(at, len(items)-1)
		default:
			return
		}
		fresh := in.drawList(set, p, items)
		in.focusItem(fresh, at, action == widget.ActionAddItem)
		in.changedParam = p.Name
		in.changed(false)
	})
}

// focusItem puts the focus on the item at of the list control set: on
// its select after Add, after Remove on its Remove button, or its select
// when the list may not get shorter; with no item left, on Add.
func (in *instance) focusItem(set element, at int, added bool) {
	items := queryAll(set.Value, ".w-item")
	if at < 0 || at >= len(items) || items[at].Get("hidden").Bool() {
		if add := query(set.Value, ".w-add"); add != nil {
			add.Call("focus")
		}
		return
	}
	target := query(items[at].Value, ".w-remove")
	if added || target == nil || target.Get("disabled").Bool() {
		target = query(items[at].Value, "select[name]")
	}
	target.Call("focus")
}

// drawList replaces the list control set of the parameter p with one
// holding items, as many offered as the count allows now, and returns it.
func (in *instance) drawList(set element, p widget.Param, items []string) element {
	limit := p.MaxItems
	if n, ok := in.w.Schema.ItemsShown(in.controls())[p.Name]; ok {
		limit = n
	}
	return drawList(in.form, set, p, items, limit)
}

// drawList replaces the list control set of p in form with one holding
// items, limit of them offered, and returns it.
func drawList(form, set element, p widget.Param, items []string, limit int) element {
	var h widget.HTML
	widget.ListControl(&h, p, items, limit)
	set.Set("outerHTML", h.String())
	return query(form.Value, listSelector(p.Name))
}

// listSelector is the selector of the list control of the parameter name.
func listSelector(name string) string { return `fieldset[data-param="` + name + `"]` }

// showItems shows as many items of each list control as the parameter
// its count comes from says (one fault per attempt), hiding the rest, and
// offers Add, and says what the rest stand for, while the list is
// shorter than that.
func (in *instance) showItems(controls []widget.Control) {
	for name, n := range in.w.Schema.ItemsShown(controls) {
		set := query(in.form.Value, listSelector(name))
		if set == nil {
			continue
		}
		items := queryAll(set.Value, ".w-item")
		for i, item := range items {
			item.Set("hidden", i >= n)
		}
		if add := query(set.Value, ".w-add"); add != nil {
			add.Set("disabled", len(items) >= n)
		}
		if rest := query(set.Value, ".w-item-rest"); rest != nil {
			rest.Set("hidden", len(items) >= n)
		}
	}
}

// formControls reads the form's controls, in document order, for
// Schema.ReadForm and FillForm: each named select and input, and each
// list's fieldset before its items (Control.List), so that a list of no
// items reads as empty; and the elements they were read from.
func formControls(form element) ([]element, []widget.Control) {
	els := queryAll(form.Value, "fieldset[data-param], select[name], input[name]")
	cs := make([]widget.Control, len(els))
	for i, el := range els {
		v := el.Value
		if v.Get("tagName").String() == "FIELDSET" {
			cs[i] = widget.Control{Name: el.GetAttribute("data-param"), List: true}
			continue
		}
		cs[i] = widget.Control{Name: v.Get("name").String(), Value: v.Get("value").String()}
		if v.Get("type").String() == "checkbox" {
			cs[i].Checkbox, cs[i].Checked = true, v.Get("checked").Bool()
		}
	}
	return els, cs
}
