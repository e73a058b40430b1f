package widget

import (
	"strconv"
	"strings"
)

// A Control is one form element of a widget's controls (render.go writes
// them) as the page reads it back: the page turns its elements into
// Controls, and the schema turns those into parameters, so that how a
// form is read lives beside how it is written, as Request.ParseForm sits
// beside the request.
type Control struct {
	Name     string // the element's name: a parameter's
	Value    string // its value
	Checkbox bool   // a checkbox, whose value is Checked
	Checked  bool
	// List marks a list parameter's fieldset, read before its items
	// (ListControl writes one select per item in use), so that a list of
	// no items still says that it is there, and empty.
	List bool
}

// ItemsShown says, for each list parameter whose count comes from another
// (one fault per attempt), how many of its items the controls offer: the
// count's value as the form holds it. A count that is not a whole number
// leaves the list as it is (ReadForm's parse reports it).
func (s Schema) ItemsShown(cs []Control) map[string]int {
	out := map[string]int{}
	for _, p := range s {
		if p.Kind != EnumList || p.CountFrom == "" {
			continue
		}
		for _, c := range cs {
			if c.Name == p.CountFrom {
				if n, err := strconv.Atoi(strings.TrimSpace(c.Value)); err == nil {
					out[p.Name] = max(0, min(n, p.MaxItems))
				}
			}
		}
	}
	return out
}

// ReadForm collects the parameters from a widget's controls, in document
// order. A checkbox is on or off; the items of a list parameter give a
// comma-separated list of the non-empty ones, but for those past the count
// (ItemsShown), which are offered only when it grows. Controls that name
// no parameter (the scrubber) are skipped.
func (s Schema) ReadForm(cs []Control) map[string]string {
	shown := s.ItemsShown(cs)
	raw := map[string]string{}
	lists := map[string][]string{}
	items := map[string]int{}
	for _, c := range cs {
		p, ok := s.Param(c.Name)
		if !ok {
			continue
		}
		switch {
		case p.Kind == EnumList && c.List:
			if _, seen := lists[c.Name]; !seen {
				lists[c.Name] = nil
			}
		case p.Kind == EnumList:
			i := items[c.Name]
			items[c.Name]++
			if n, counted := shown[c.Name]; counted && i >= n {
				continue
			}
			if _, seen := lists[c.Name]; !seen {
				lists[c.Name] = nil
			}
			if c.Value != "" {
				lists[c.Name] = append(lists[c.Name], c.Value)
			}
		case c.Checkbox:
			raw[c.Name] = "off"
			if c.Checked {
				raw[c.Name] = "on"
			}
		default:
			raw[c.Name] = c.Value
		}
	}
	for name, list := range lists {
		raw[name] = strings.Join(list, ",")
	}
	return raw
}

// FillForm is ReadForm's inverse: the controls cs (a widget's form, in
// document order, as the page reads it) set to the values v, as control
// would have written them. A list whose fieldset is among cs (Control.List)
// gets one item per value of v, in place of those it had; the page draws
// the list with v's items (ListControl) before it fills the rest. A link
// in the prose sets a widget's form in place with it; ReadForm of the
// result gives v back. Controls that name no parameter are returned as
// they are.
func (s Schema) FillForm(cs []Control, v Values) []Control {
	out := make([]Control, 0, len(cs))
	items := map[string]int{}
	drawn := map[string]bool{} // lists given v's items at their fieldset
	for _, c := range cs {
		p, ok := s.Param(c.Name)
		switch {
		case !ok:
		case p.Kind == EnumList && c.List:
			out = append(out, c)
			for _, it := range v.List(p.Name) {
				out = append(out, Control{Name: p.Name, Value: it})
			}
			drawn[p.Name] = true
			continue
		case p.Kind == EnumList && drawn[p.Name]:
			continue
		case p.Kind == EnumList:
			n := items[c.Name]
			items[c.Name]++
			c.Value = p.Pad
			if list := v.List(p.Name); n < len(list) {
				c.Value = list[n]
			}
		case c.Checkbox:
			c.Checked = v.Bool(p.Name)
		default:
			c.Value = v.Text(p.Name)
		}
		out = append(out, c)
	}
	return out
}
