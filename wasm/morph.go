//go:build js && wasm

package main

import "syscall/js"

// morph makes the children of target those of the markup html, as setting
// its innerHTML would, but keeps every element that is still there: an
// element of the same tag at the same place (or, among siblings that carry
// a data-key, the sibling of the same tag and key) stays, and only its
// changed attributes and text are written. A bar whose transform changes is
// the same bar, so the stylesheet's transitions move it from the old state
// to the new; the rest is inserted or removed.
//
// The markup is parsed once, by the browser, into a <template>: its nodes
// are what is inserted, so nothing is parsed or copied twice.
func morph(target js.Value, html string) {
	if parser.IsUndefined() {
		parser = js.Global().Get("document").Call("createElement", "template")
	}
	parser.Set("innerHTML", html)
	morphChildren(target, parser.Get("content"))
}

// parser is the <template> that morph parses markup with, made on first use.
var parser js.Value

// morphChildren walks the children of old and of fresh side by side and
// makes old's the same as fresh's, which it empties on the way.
func morphChildren(old, fresh js.Value) {
	cur := old.Get("firstChild")
	for next := fresh.Get("firstChild"); !next.IsNull(); {
		n := next
		next = n.Get("nextSibling")
		m := counterpart(old, cur, n)
		switch {
		case m.IsNull():
			old.Call("insertBefore", n, cur) // moves n out of fresh
			continue
		case m.Equal(cur):
			cur = cur.Get("nextSibling")
		default:
			old.Call("insertBefore", m, cur) // a keyed sibling, from further on
		}
		morphNode(m, n)
	}
	// What is left from cur on has no counterpart: every kept node was
	// taken from cur's place or moved before it.
	for !cur.IsNull() {
		gone := cur
		cur = cur.Get("nextSibling")
		old.Call("removeChild", gone)
	}
}

// counterpart is the child of old that stays as fresh node n, or null: for
// an element with a data-key, old's child of the same tag and key wherever
// it is; otherwise cur, if it is a node of the same kind and tag without a
// key.
func counterpart(old, cur, n js.Value) js.Value {
	if n.Get("nodeType").Int() == elementNode {
		if key := n.Call("getAttribute", "data-key"); !key.IsNull() {
			sel := ":scope > " + n.Get("localName").String() + `[data-key="` + cssString(key.String()) + `"]`
			return old.Call("querySelector", sel)
		}
	}
	if cur.IsNull() || cur.Get("nodeName").String() != n.Get("nodeName").String() {
		return js.Null()
	}
	if cur.Get("nodeType").Int() == elementNode && cur.Call("hasAttribute", "data-key").Bool() {
		return js.Null()
	}
	return cur
}

// morphNode makes kept node m the same as fresh node n, of the same kind
// and tag: its text, or its attributes and then its children.
func morphNode(m, n js.Value) {
	if m.Call("isEqualNode", n).Bool() {
		return
	}
	if n.Get("nodeType").Int() != elementNode {
		m.Set("nodeValue", n.Get("nodeValue"))
		return
	}
	morphAttributes(m, n)
	morphChildren(m, n)
}

// morphAttributes gives element m the attributes of n and no others,
// writing only those that changed.
func morphAttributes(m, n js.Value) {
	attrs := n.Get("attributes")
	count := attrs.Length()
	for i := range count {
		a := attrs.Index(i)
		name, value := a.Get("name").String(), a.Get("value").String()
		if was := m.Call("getAttribute", name); was.IsNull() || was.String() != value {
			m.Call("setAttribute", name, value)
		}
	}
	// m now has every attribute of n: if it has as many, it has no other.
	old := m.Get("attributes")
	for i := old.Length() - 1; i >= 0 && old.Length() > count; i-- {
		if name := old.Index(i).Get("name").String(); !n.Call("hasAttribute", name).Bool() {
			m.Call("removeAttribute", name)
		}
	}
}

const elementNode = 1 // Node.ELEMENT_NODE

// cssString escapes s for a double-quoted CSS string: a key is our own
// text, but a quote or a backslash in it must not end the selector.
func cssString(s string) string {
	var out []byte
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' {
			out = append(out, '\\', c)
		} else {
			out = append(out, c)
		}
	}
	return string(out)
}
