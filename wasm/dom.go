//go:build js && wasm

package main

import (
	"syscall/js"

	"honnef.co/go/js/dom/v2"
)

// The module uses dom/v2's concrete element type, never its Element and
// Event interfaces. dom/v2 wraps a node into an interface through a switch
// over every HTML element and event type; once that switch is linked, every
// method of some seventy types is kept, about 2 MB of the module (measured:
// 5.0 MB raw and 742 KB brotli with the interfaces, against 1.9 MB and
// 438 KB for a module that only uses syscall/js). Wrapping js.Values in
// *dom.BasicHTMLElement directly keeps just the methods called here.
type element = *dom.BasicHTMLElement

// wrap returns the element for v, or nil for null or undefined.
func wrap(v js.Value) element {
	if v.IsNull() || v.IsUndefined() {
		return nil
	}
	return &dom.BasicHTMLElement{BasicElement: &dom.BasicElement{BasicNode: &dom.BasicNode{Value: v}}}
}

func query(root js.Value, sel string) element { return wrap(root.Call("querySelector", sel)) }

func queryAll(root js.Value, sel string) []element {
	list := root.Call("querySelectorAll", sel)
	out := make([]element, list.Length())
	for i := range out {
		out[i] = wrap(list.Index(i))
	}
	return out
}

// closest is Element.closest: the nearest ancestor (or el itself) matching sel.
func closest(v js.Value, sel string) element {
	if v.IsNull() || v.IsUndefined() || v.Get("closest").IsUndefined() {
		return nil
	}
	return wrap(v.Call("closest", sel))
}

// listen adds a listener that receives the raw event. The js.Func lives as
// long as the page: widgets are never torn down.
func listen(target js.Value, typ string, fn func(ev js.Value)) {
	target.Call("addEventListener", typ, js.FuncOf(func(_ js.Value, args []js.Value) any {
		fn(args[0])
		return nil
	}))
}

// later runs fn after ms milliseconds and returns what cancels it. The
// js.Func is released once it has run or been cancelled, whichever comes
// first, so a replay that is stepped (each step cancels the pending
// collection) leaks none.
func later(ms int, fn func()) (cancel func()) {
	var f js.Func
	done := false
	f = js.FuncOf(func(js.Value, []js.Value) any {
		if !done {
			done = true
			f.Release()
			fn()
		}
		return nil
	})
	id := js.Global().Call("setTimeout", f, ms)
	return func() {
		if !done {
			done = true
			js.Global().Call("clearTimeout", id)
			f.Release()
		}
	}
}

// yield lets the page run what it has queued (the reader's input, a frame
// to draw) before the module goes on: it returns in a task of the page's
// own, from setTimeout. The module's start is cut this way into short
// tasks, one per widget, instead of one that holds the main thread.
func yield() {
	done := make(chan struct{})
	later(0, func() { close(done) })
	<-done
}

// pageClock is the replay's clock in the page: setTimeout.
type pageClock struct{}

func (pageClock) After(ms int, fn func()) func() { return later(ms, fn) }
