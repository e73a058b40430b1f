//go:build js && wasm

// Command playground is the playground page's WebAssembly module: it
// renders an author's draft with the site's own markdown converter
// (site/playground) for the page's script, playground.js, which calls
// retrylabPlayground.render(text) and draws the result. Only
// /playground/ loads it. The widgets of the preview are hydrated by the
// handbook's module, as in any article (see playground.js).
package main

import (
	"syscall/js"

	"github.com/retrylab/retrylab/site/playground"
)

func main() {
	r := playground.New(js.Global().Get("location").Get("origin").String())
	render := js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) != 1 || args[0].Type() != js.TypeString {
			return js.ValueOf(map[string]any{"problems": []any{map[string]any{"line": 0, "message": "render takes the draft's text"}}})
		}
		p := r.Render([]byte(args[0].String()))
		problems := make([]any, len(p.Problems))
		for i, pr := range p.Problems {
			problems[i] = map[string]any{"line": pr.Line, "message": pr.Message}
		}
		return js.ValueOf(map[string]any{"title": p.Title, "description": p.Description, "html": p.HTML, "problems": problems})
	})
	js.Global().Set("retrylabPlayground", js.ValueOf(map[string]any{"render": render}))
	select {} // keep the module alive to answer render
}
