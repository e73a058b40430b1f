//go:build js && wasm

// Command playground is the playground page's WebAssembly module: it
// renders an author's draft with the site's own markdown converter
// (site/playground) for the page's script, playground.js, which calls
// retrylabPlayground.render(text) and draws the result. Only
// /playground/ loads it. The page holds the site's pages and their ids
// as the build's link check knows them (linkcheck.Data, as JSON in its
// attribute data-pg-site), so that a draft's links are checked as the
// build checks an article's. The widgets of the preview are hydrated by the
// handbook's module, as in any article (see playground.js).
package main

import (
	"errors"
	"syscall/js"

	"github.com/retrylab/retrylab/site/linkcheck"
	"github.com/retrylab/retrylab/site/playground"
)

func main() {
	var opts []playground.Option
	// Without the site's pages, say so with every draft rather than take
	// links the build would refuse.
	siteErr := "the page lacks the list of the site's pages that links are checked against"
	if el := js.Global().Get("document").Call("querySelector", "[data-pg-site]"); el.Truthy() {
		if d, err := readSite(el.Call("getAttribute", "data-pg-site")); err != nil {
			siteErr = "the page's list of the site's pages cannot be read: " + err.Error()
		} else {
			opts = append(opts, playground.WithSite(d.Site()))
			siteErr = ""
		}
	}
	r := playground.New(js.Global().Get("location").Get("origin").String(), opts...)
	render := js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) != 1 || args[0].Type() != js.TypeString {
			return js.ValueOf(map[string]any{"problems": []any{map[string]any{"line": 0, "message": "render takes the draft's text"}}})
		}
		if siteErr != "" {
			return js.ValueOf(map[string]any{"problems": []any{map[string]any{"line": 0, "message": siteErr}}})
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

// readSite reads the site's linkcheck.Data from its JSON text, parsed by
// the browser's JSON.parse: encoding/json would add some 40 KB to the
// module, which every visitor of the playground downloads.
func readSite(text js.Value) (d linkcheck.Data, err error) {
	defer func() {
		// A js.Value of the wrong type panics (a js.ValueError), as does
		// JSON.parse of text that is not JSON (a js.Error).
		if r := recover(); r != nil {
			err = errors.New("not the JSON the build writes")
		}
	}()
	v := js.Global().Get("JSON").Call("parse", text)
	d.Paths = strings(v.Get("paths"))
	d.Pages = strings(v.Get("pages"))
	d.IDs = map[string][]string{}
	ids := v.Get("ids")
	for _, k := range strings(js.Global().Get("Object").Call("keys", ids)) {
		d.IDs[k] = strings(ids.Get(k))
	}
	if csp := v.Get("csp"); csp.Type() == js.TypeString {
		d.CSP = csp.String()
	}
	return d, nil
}

// strings is the JavaScript array of strings a, or nil for null.
func strings(a js.Value) []string {
	if a.IsNull() {
		return nil
	}
	out := make([]string, a.Length())
	for i := range out {
		out[i] = a.Index(i).String()
	}
	return out
}
