package main

import (
	"net/http"
	"strings"
	"testing"
)

// TestHeaderPatterns checks path matching against the rules Netlify's own
// header parser builds.
func TestHeaderPatterns(t *testing.T) {
	for _, c := range []struct {
		pattern string
		yes     []string
		no      []string
	}{
		{"/*", []string{"/", "/index.html", "/a/b/c", "/static/x.wasm"}, nil},
		{"/static/*", []string{"/static/", "/static", "/static/style.0123abcd.css", "/static/a/b.js", "/STATIC/x.css"},
			[]string{"/", "/index.html", "/other/static/x"}},
		{"/*.wasm", []string{"/a.wasm", "/static/retrylab.0123abcd.wasm"}, []string{"/a.wasm.br", "/wasm", "/a.js"}}, // Netlify leaves the "." raw, so it would match "/awasm" too: no rule here depends on it
		{"/static/*.wasm", []string{"/static/m.wasm"}, []string{"/m.wasm", "/static/m.js"}},
		{"/about", []string{"/about", "/about/", "/About"}, []string{"/about/x", "/aboutx", "/"}},
		{"/blog/:slug/edit", []string{"/blog/one/edit"}, []string{"/blog/edit", "/blog/a/b/edit"}},
		{"/", []string{"/"}, []string{"/a"}},
	} {
		re, err := compileFor(c.pattern)
		if err != nil {
			t.Fatalf("%s: %v", c.pattern, err)
		}
		r := HeaderRule{For: c.pattern, re: re}
		for _, p := range c.yes {
			if !r.Match(p) {
				t.Errorf("%s does not match %s", c.pattern, p)
			}
		}
		for _, p := range c.no {
			if r.Match(p) {
				t.Errorf("%s matches %s", c.pattern, p)
			}
		}
	}
}

func TestParseHeaders(t *testing.T) {
	rules, err := parseHeaders([]byte(`
[[headers]]
  for = "/*"
  [headers.values]
    x-one = "  a  "
    Cache-Control = '''
      max-age=0,
      no-cache,
      must-revalidate'''
    X-List = ["a", "b"]

[[headers]]
  for = "/static/*"
  [headers.values]
    X-One = "b"
`))
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	applyHeaders(h, rules, "/static/x.css")
	// Values are trimmed, multi-line values and lists joined with ", ", and
	// a later rule replaces a field of the same name (names canonical).
	want := map[string]string{"X-One": "b", "Cache-Control": "max-age=0, no-cache, must-revalidate", "X-List": "a, b"}
	for k, v := range want {
		if got := h.Values(k); len(got) != 1 || got[0] != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	h = http.Header{}
	applyHeaders(h, rules, "/index.html")
	if got := h.Get("X-One"); got != "a" {
		t.Errorf("X-One on a page = %q, want a", got)
	}

	for name, doc := range map[string]string{
		"no for":   "[[headers]]\n[headers.values]\nX = \"1\"\n",
		"relative": "[[headers]]\nfor = \"static/*\"\n",
		"number":   "[[headers]]\nfor = \"/*\"\n[headers.values]\nX = 1\n",
		"newline":  "[[headers]]\nfor = \"/*\"\n[headers.values]\nX = \"\"\"a\nb\"\"\"\n",
		"not toml": "[[headers]\n",
	} {
		if _, err := parseHeaders([]byte(doc)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestNetlifyToml checks the module's netlify.toml says what the site needs.
func TestNetlifyToml(t *testing.T) {
	rules := productionRules(t)
	at := func(p string) http.Header {
		h := http.Header{}
		applyHeaders(h, rules, p)
		return h
	}
	page := at("/double-charge/")
	csp := page.Get("Content-Security-Policy")
	// The module compiles under 'wasm-unsafe-eval'; scripts, the simulator
	// worker and styles come only from the site's own files, never inline.
	for _, want := range []string{"default-src 'self'", "script-src 'self' 'wasm-unsafe-eval';", "worker-src 'self';", "style-src 'self';",
		"object-src 'none'", "frame-ancestors 'self'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "'unsafe-eval'") {
		t.Errorf("CSP allows inline code or eval: %q", csp)
	}
	for k, v := range map[string]string{
		"X-Content-Type-Options":     "nosniff",
		"Referrer-Policy":            "strict-origin-when-cross-origin",
		"Cross-Origin-Opener-Policy": "same-origin",
		"Strict-Transport-Security":  "max-age=31536000",
	} {
		if got := page.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if page.Get("Cache-Control") != "" {
		t.Errorf("pages get Cache-Control %q; they must revalidate", page.Get("Cache-Control"))
	}
	if got := at("/static/style.0123abcd.css").Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
		t.Errorf("static Cache-Control = %q", got)
	}
	// Embed pages may be framed by any site: the same policy, but for
	// frame-ancestors. No path sends X-Frame-Options, which a later rule
	// could not take away from the embed pages.
	for _, p := range []string{"/embed/payment/", "/embed/storm/", "/embed/guard"} {
		h := at(p)
		if got, want := h.Get("Content-Security-Policy"), strings.Replace(csp, "frame-ancestors 'self'", "frame-ancestors *", 1); got != want {
			t.Errorf("%s: CSP\n%q, want\n%q", p, got, want)
		}
	}
	for _, p := range []string{"/", "/double-charge/", "/embed/payment/", "/embed.js", "/static/style.0123abcd.css", "/404.html"} {
		if xfo := at(p).Values("X-Frame-Options"); len(xfo) > 0 {
			t.Errorf("%s: X-Frame-Options %q", p, xfo)
		}
	}
	for _, p := range []string{"/", "/index.html", "/double-charge/", "/widgets/", "/404.html", "/static/retrylab.0123abcd.wasm"} {
		if got := at(p).Get("Content-Security-Policy"); got != csp {
			t.Errorf("%s: CSP %q, want the pages' own", p, got)
		}
	}
	// Other sites load embed.js by a name that never changes: a short cache.
	if got := at("/embed.js").Get("Cache-Control"); got != "public, max-age=300" {
		t.Errorf("/embed.js: Cache-Control %q, want public, max-age=300", got)
	}

	wasm := at("/static/retrylab.0123abcd.wasm")
	if wasm.Get("Content-Type") != "application/wasm" || !strings.Contains(wasm.Get("Cache-Control"), "immutable") ||
		wasm.Get("Content-Security-Policy") == "" {
		t.Errorf("the module's headers: %v", wasm)
	}
}
