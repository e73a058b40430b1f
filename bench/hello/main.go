//go:build js && wasm

// Command hello is the smallest Go WebAssembly module that does something
// in a page: it touches only syscall/js. The bench builds it with the same
// flags as the page's module, so its size is the floor every standard Go
// module starts from: the runtime, the garbage collector and syscall/js.
package main

import "syscall/js"

func main() {
	js.Global().Get("document").Get("body").Call("setAttribute", "data-hello", "true")
	select {} // stay alive to answer events, as the page's module does
}
