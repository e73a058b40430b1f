package main

import (
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/site/markdown"
	"github.com/retrylab/retrylab/site/widget"
)

// Every widget has an embed page: the widget alone, at its defaults, with
// the loader; no site header; not for search engines; a credit linking to
// the article that explains the widget, which the site has and which
// holds the widget. embed.js is at the top of the site, unhashed.
func TestBuildEmbedPages(t *testing.T) {
	out := builtSite(t)
	rootRE := regexp.MustCompile(`data-widget="([a-z-]+)"`)
	loader := regexp.MustCompile(`<script src="/static/loader\.[0-9a-f]{8}\.js" data-wasm="/static/retrylab\.[0-9a-f]{8}\.wasm" data-exec="/static/wasm_exec\.[0-9a-f]{8}\.js" data-worker="/static/simworker\.[0-9a-f]{8}\.js" defer></script>`)
	for _, w := range widget.All() {
		page := readFile(t, filepath.Join(out, "embed", w.Name, "index.html"))
		if roots := rootRE.FindAllStringSubmatch(page, -1); len(roots) != 1 || roots[0][1] != w.Name {
			t.Errorf("embed/%s: widget roots %v, want just %s", w.Name, roots, w.Name)
		}
		params := `data-params="` + widget.Escape(w.Schema.Defaults().JSON()) + `"`
		if !strings.Contains(page, `id="w-`+w.Name+`-1"`) || !strings.Contains(page, params) {
			t.Errorf("embed/%s: the widget is not w-%s-1 at its defaults (%s)", w.Name, w.Name, params)
		}
		for _, want := range []string{`<html lang="en" class="embed" data-embed>`, `<meta name="robots" content="noindex">`,
			`<h1 class="visually-hidden">retrylab: ` + w.Title + `</h1>`,
			`<footer class="embed-credit">`,
			`<a href="` + w.Chapter + `" target="_blank" rel="noopener">retrylab: `,
			// The snippet of the defaults, naming the origin of the build.
			`&lt;div data-retrylab=&#34;` + w.Name + `&#34;&gt;&lt;/div&gt;&lt;script src=&#34;` + siteOrigin() + `/embed.js&#34; async&gt;`,
		} {
			if !strings.Contains(page, want) {
				t.Errorf("embed/%s lacks %s", w.Name, want)
			}
		}
		if !loader.MatchString(page) {
			t.Errorf("embed/%s does not load the module's loader", w.Name)
		}
		if strings.Contains(page, "site-header") || strings.Contains(page, "skip-link") {
			t.Errorf("embed/%s has the site's header", w.Name)
		}
		// The credit's article exists and shows the widget.
		chapter := readFile(t, filepath.Join(out, filepath.FromSlash(w.Chapter), "index.html"))
		if !strings.Contains(chapter, `data-widget="`+w.Name+`"`) {
			t.Errorf("embed/%s credits %s, which has no %s widget", w.Name, w.Chapter, w.Name)
		}
	}
	// Only the embed pages may be framed by other sites. ("/embed/*" covers
	// any path that starts with /embed, as Netlify reads it: no other page
	// may have such a name.)
	rules := productionRules(t)
	walkFiles(t, out, func(p string, _ []byte) {
		if filepath.Ext(p) != ".html" {
			return
		}
		rel, _ := filepath.Rel(out, p)
		url := "/" + strings.TrimSuffix(filepath.ToSlash(rel), "index.html")
		h := http.Header{}
		applyHeaders(h, rules, url)
		csp := h.Get("Content-Security-Policy")
		if embed := strings.HasPrefix(url, "/embed/"); embed != strings.Contains(csp, "frame-ancestors *") ||
			embed == strings.Contains(csp, "frame-ancestors 'self'") {
			t.Errorf("%s: CSP %q", url, csp)
		}
	})
	// embed.js is site/root's, with every widget's name where it lists
	// the simulators.
	src := readFile(t, filepath.Join(repoRoot(t), "site", "root", "embed.js"))
	list := `["` + strings.Join(widget.Names(), `", "`) + `"]`
	named, err := withNames("embed.js", []byte(strings.Replace(src, widgetsMark, list, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := readFile(t, filepath.Join(out, "embed.js")), string(named); got != want || !strings.Contains(got, `"payment"`) {
		t.Errorf("public/embed.js is not site/root/embed.js with the widgets' names %s and the shared names", list)
	}
}

// A site/root/embed.js with no place for the widgets' names, or two, is
// refused by the build, which names the file.
func TestEmbedScriptMark(t *testing.T) {
	for _, src := range []string{"var known = [];", "var a = " + widgetsMark + ", b = " + widgetsMark + ";"} {
		if _, err := embedScript([]byte(src)); err == nil || !strings.Contains(err.Error(), widgetsMark) {
			t.Errorf("embedScript(%q): %v", src, err)
		}
	}
}

// An embed page credits the home page when the site has no article of
// the widget's chapter (a site of test pages, say). Its widget's link
// opens the chapter in a new tab, at the chapter's first widget of that
// name, when the chapter has one; else it names the embed's own state.
func TestEmbedPageCredit(t *testing.T) {
	chapter := &article{Page: &markdown.Page{Title: "The double charge", Widgets: []string{"payment"}}, URL: widget.Payment.Chapter}
	other := &article{Page: &markdown.Page{Title: "Other"}, URL: "/other/"}
	d, err := embedPage(&widget.Payment, []*article{other, chapter}, "https://retrylab.example")
	if err != nil {
		t.Fatal(err)
	}
	if d.Credit != (link{URL: "/double-charge/", Title: "The double charge"}) {
		t.Errorf("credit %+v", d.Credit)
	}
	if want := `<a href="/double-charge/?w=payment-1#w-payment-1" class="w-permalink" target="_blank" rel="noopener" data-region="permalink">Open in retrylab`; !strings.Contains(string(d.Body), want) {
		t.Errorf("the embed's link is not %s", want)
	}
	chapter.Widgets = nil
	d, err = embedPage(&widget.Payment, []*article{other, chapter}, "https://retrylab.example")
	if err != nil {
		t.Fatal(err)
	}
	if want := `<a href="?w=payment-1#w-payment-1" class="w-permalink" data-region="permalink">`; !strings.Contains(string(d.Body), want) {
		t.Errorf("a chapter without the widget: the embed's link is not %s", want)
	}
	if !strings.Contains(string(d.Body), `src=&#34;https://retrylab.example/embed.js&#34;`) {
		t.Error("the snippet does not name the origin given")
	}
	d, err = embedPage(&widget.Payment, []*article{other}, "https://retrylab.example")
	if err != nil {
		t.Fatal(err)
	}
	if d.Credit != (link{URL: "/"}) {
		t.Errorf("without the chapter: credit %+v, want the home page", d.Credit)
	}
}

// The origin embed snippets name: Netlify's URL during its builds, the
// local server's otherwise.
func TestSiteOrigin(t *testing.T) {
	for env, want := range map[string]string{
		"https://retrylab.netlify.app":        "https://retrylab.netlify.app",
		"https://retrylab.example/some/path/": "https://retrylab.example",
		"http://localhost:9999":               "http://localhost:9999",
		"":                                    defaultOrigin,
		"ftp://retrylab.example":              defaultOrigin,
		"retrylab.example":                    defaultOrigin,
	} {
		t.Setenv("URL", env)
		if got := siteOrigin(); got != want {
			t.Errorf("URL=%q: origin %q, want %q", env, got, want)
		}
	}
}

// Served as deployed: an embed page, whatever its query, with the policy
// that lets any site frame it and no X-Frame-Options; embed.js under its
// own name with a five-minute cache.
func TestServeEmbed(t *testing.T) {
	srv := newServer(builtSite(t), productionRules(t), false)

	r := get(t, srv, "GET", "/embed/payment/?keys=%3Cscript%3E")
	if r.StatusCode != 200 || !strings.Contains(body(t, r), `data-widget="payment"`) {
		t.Fatalf("/embed/payment/: status %d", r.StatusCode)
	}
	if csp := r.Header.Get("Content-Security-Policy"); !strings.HasSuffix(csp, "frame-ancestors *") {
		t.Errorf("/embed/payment/: CSP %q", csp)
	}
	if xfo := r.Header.Values("X-Frame-Options"); len(xfo) > 0 {
		t.Errorf("/embed/payment/: X-Frame-Options %q", xfo)
	}
	// Without the slash, the query goes along to the page.
	r = get(t, srv, "GET", "/embed/payment?keys=per-intent")
	if loc := r.Header.Get("Location"); r.StatusCode != 301 || loc != "/embed/payment/?keys=per-intent" {
		t.Errorf("/embed/payment?keys=per-intent: %d to %q", r.StatusCode, loc)
	}

	r = get(t, srv, "GET", "/embed.js", "Accept-Encoding", "br")
	if r.StatusCode != 200 || r.Header.Get("Content-Type") != "text/javascript; charset=utf-8" ||
		r.Header.Get("Cache-Control") != "public, max-age=300" || r.Header.Get("Content-Encoding") != "br" {
		t.Errorf("/embed.js: %d %v", r.StatusCode, r.Header)
	}
}
