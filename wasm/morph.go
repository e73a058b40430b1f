//go:build js && wasm

package main

import "syscall/js"

// morph makes the children of target those of the markup html, as setting
// its innerHTML would, but keeps the shapes a figure moves, so that the
// stylesheet's transitions take them from the old state to the new: a bar
// whose path changes is the same bar, grown.
//
// A view marks what it moves with a data-key, unique among its siblings
// (site/chart keys its bars, lines, bands and markers). A node equal to
// its counterpart stays as it is. An element with a data-key stays, as
// the sibling of the same tag and key wherever it was, and is patched
// whole: its changed attributes and text are written, and of its
// descendants each element of the same tag at the same place stays. An
// element that holds keyed ones is patched the same way, its own children
// by the same rule. Any other element that changed is swapped whole for
// the new one, as innerHTML would (a <details> the reader opened stays
// open): each step of a walk is a call from the
// module into JavaScript, a few microseconds, where the browser parses
// markup natively, so walking a large subtree node by node costs many
// times what replacing it does.
//
// The markup is parsed once, by the browser, into a <template>: its nodes
// are what is inserted, so nothing is parsed or copied twice.
func morph(target js.Value, html string) {
	if parser.IsUndefined() {
		parser = js.Global().Get("document").Call("createElement", "template")
	}
	parser.Set("innerHTML", html)
	morphChildren(target, parser.Get("content"), false)
}

// parser is the <template> that morph parses markup with, made on first use.
var parser js.Value

// morphChildren walks the children of old and of fresh side by side and
// makes old's the same as fresh's, which it empties on the way; keep says
// they are inside a keyed element, where every element that can stay
// does. Every js.Value read is a call into JavaScript, so each is read
// once.
func morphChildren(old, fresh js.Value, keep bool) {
	cur := old.Get("firstChild")
	for next := fresh.Get("firstChild"); !next.IsNull(); {
		n := next
		next = n.Get("nextSibling")
		element := n.Get("nodeType").Int() == elementNode
		key := js.Null()
		if element {
			key = n.Call("getAttribute", "data-key")
		}
		m := counterpart(old, cur, n, key)
		switch {
		case m.IsNull():
			old.Call("insertBefore", n, cur) // moves n out of fresh
			continue
		case m.Equal(cur):
			cur = cur.Get("nextSibling")
		default:
			old.Call("insertBefore", m, cur) // a keyed sibling, from further on
		}
		if m.Call("isEqualNode", n).Bool() {
			continue
		}
		if !element {
			m.Set("nodeValue", n.Get("nodeValue"))
			continue
		}
		if !keep && key.IsNull() && n.Call("querySelector", "[data-key]").IsNull() {
			// A disclosure the reader opened stays open.
			if n.Get("localName").String() == "details" && m.Get("open").Bool() {
				n.Set("open", true)
			}
			old.Call("replaceChild", n, m)
			continue
		}
		morphAttributes(m, n)
		morphChildren(m, n, keep || !key.IsNull())
	}
	// What is left from cur on has no counterpart: every kept node was
	// taken from cur's place or moved before it.
	for !cur.IsNull() {
		gone := cur
		cur = cur.Get("nextSibling")
		old.Call("removeChild", gone)
	}
}

// counterpart is the child of old that stays as fresh node n, whose
// data-key is key (null if it has none), or null: for a keyed element,
// old's child of the same tag and key wherever it is; otherwise cur, if it
// is a node of the same kind and tag without a key.
func counterpart(old, cur, n, key js.Value) js.Value {
	if !key.IsNull() {
		sel := ":scope > " + n.Get("localName").String() + `[data-key="` + cssString(key.String()) + `"]`
		return old.Call("querySelector", sel)
	}
	if cur.IsNull() || cur.Get("nodeName").String() != n.Get("nodeName").String() {
		return js.Null()
	}
	if cur.Get("nodeType").Int() == elementNode && cur.Call("hasAttribute", "data-key").Bool() {
		return js.Null()
	}
	return cur
}

// morphAttributes gives element m the attributes of n and no others. When
// they differ, each of n's is set on m as a copy of the attribute node:
// no value is read into the module, and one set to the value it had
// changes nothing the stylesheet sees.
func morphAttributes(m, n js.Value) {
	if m.Call("cloneNode", false).Call("isEqualNode", n.Call("cloneNode", false)).Bool() {
		return
	}
	attrs := n.Get("attributes")
	count := attrs.Length()
	for i := range count {
		m.Call("setAttributeNode", attrs.Index(i).Call("cloneNode"))
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
