package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/andybalholm/brotli"

	"github.com/retrylab/retrylab/internal/precompress"
)

// fakeSite writes a small built site: two pages, a 404 page, a stylesheet
// with its siblings and a module.
func fakeSite(t *testing.T) string {
	t.Helper()
	parent := t.TempDir()
	dir := filepath.Join(parent, "public")
	css := bytes.Repeat([]byte("body { color: black; }\n"), 50)
	var br, gz bytes.Buffer
	if precompress.Brotli(&br, css) != nil || precompress.Gzip(&gz, css) != nil {
		t.Fatal("compressing the stylesheet")
	}
	files := map[string][]byte{
		"index.html":                       []byte("<!doctype html><html lang=\"en\"><body><h1>home</h1></body></html>"),
		"index.html.br":                    []byte("brotli page"),
		"guide/index.html":                 []byte("<!doctype html><html><body><h1>guide</h1></body></html>"),
		"404.html":                         []byte("<!doctype html><html><body><h1>Page not found</h1></body></html>"),
		"static/style.0123abcd.css":        css,
		"static/style.0123abcd.css.br":     br.Bytes(),
		"static/style.0123abcd.css.gz":     gz.Bytes(),
		"static/retrylab.89abcdef.wasm":    []byte("\x00asm\x01\x00\x00\x00"),
		"static/retrylab.89abcdef.wasm.gz": []byte("gzip module"),
	}
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Outside the site: must never be served.
	if err := os.WriteFile(filepath.Join(parent, "secret.txt"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func get(t *testing.T, h http.Handler, method, target string, header ...string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func body(t *testing.T, r *http.Response) string {
	t.Helper()
	data, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestServer(t *testing.T) {
	dir := fakeSite(t)
	srv := newServer(dir, productionRules(t), false)
	read := func(name string) string { return readFile(t, filepath.Join(dir, filepath.FromSlash(name))) }

	for _, c := range []struct {
		name, method, target, accept string
		status                       int
		ctype, encoding, body        string
		immutable                    bool
	}{
		{"page", "GET", "/", "", 200, "text/html; charset=utf-8", "", read("index.html"), false},
		{"page, brotli", "GET", "/", "br", 200, "text/html; charset=utf-8", "br", "brotli page", false},
		{"page, gzip made here", "GET", "/guide/", "gzip", 200, "text/html; charset=utf-8", "gzip", gzipped(t, read("guide/index.html")), false},
		{"folder", "GET", "/guide/", "", 200, "text/html; charset=utf-8", "", read("guide/index.html"), false},
		{"index.html", "GET", "/guide/index.html", "", 200, "text/html; charset=utf-8", "", read("guide/index.html"), false},
		{"css", "GET", "/static/style.0123abcd.css", "", 200, "text/css; charset=utf-8", "", read("static/style.0123abcd.css"), true},
		{"css, brotli", "GET", "/static/style.0123abcd.css", "gzip, deflate, br, zstd", 200, "text/css; charset=utf-8", "br", read("static/style.0123abcd.css.br"), true},
		{"css, gzip", "GET", "/static/style.0123abcd.css", "gzip", 200, "text/css; charset=utf-8", "gzip", read("static/style.0123abcd.css.gz"), true},
		{"css, brotli refused", "GET", "/static/style.0123abcd.css", "br;q=0, gzip;q=0.8", 200, "text/css; charset=utf-8", "gzip", read("static/style.0123abcd.css.gz"), true},
		{"css, any", "GET", "/static/style.0123abcd.css", "*", 200, "text/css; charset=utf-8", "br", read("static/style.0123abcd.css.br"), true},
		{"css, identity", "GET", "/static/style.0123abcd.css", "identity", 200, "text/css; charset=utf-8", "", read("static/style.0123abcd.css"), true},
		{"wasm", "GET", "/static/retrylab.89abcdef.wasm", "", 200, "application/wasm", "", read("static/retrylab.89abcdef.wasm"), true},
		{"wasm, br falls back to gzip", "GET", "/static/retrylab.89abcdef.wasm", "br, gzip", 200, "application/wasm", "gzip", "gzip module", true},
		{"unknown", "GET", "/nope/", "", 404, "text/html; charset=utf-8", "", read("404.html"), false},
		// Never an immutable 404: the name may exist after the next build.
		{"unknown asset", "GET", "/static/gone.00000000.css", "gzip", 404, "text/html; charset=utf-8", "gzip", gzipped(t, read("404.html")), false},
		{"unknown module", "GET", "/static/gone.00000000.wasm", "", 404, "text/html; charset=utf-8", "", read("404.html"), false},
		{"outside the site", "GET", "/../secret.txt", "", 404, "text/html; charset=utf-8", "", read("404.html"), false},
		{"head", "HEAD", "/", "", 200, "text/html; charset=utf-8", "", "", false},
		{"head 404", "HEAD", "/nope", "", 404, "text/html; charset=utf-8", "", "", false},
		{"no live reload", "GET", "/_live/reload.js", "", 404, "text/html; charset=utf-8", "", read("404.html"), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := get(t, srv, c.method, c.target, "Accept-Encoding", c.accept)
			if r.StatusCode != c.status {
				t.Errorf("status %d, want %d", r.StatusCode, c.status)
			}
			if got := r.Header.Get("Content-Type"); got != c.ctype {
				t.Errorf("Content-Type %q, want %q", got, c.ctype)
			}
			if got := r.Header.Get("Content-Encoding"); got != c.encoding {
				t.Errorf("Content-Encoding %q, want %q", got, c.encoding)
			}
			if got := body(t, r); got != c.body {
				t.Errorf("body %.60q, want %.60q", got, c.body)
			}
			// netlify.toml's headers on every response.
			if !strings.Contains(r.Header.Get("Content-Security-Policy"), "script-src 'self' 'wasm-unsafe-eval'") ||
				r.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("the site-wide headers are missing: %v", r.Header)
			}
			cc := r.Header.Get("Cache-Control")
			if c.immutable != strings.Contains(cc, "immutable") {
				t.Errorf("Cache-Control %q (immutable wanted: %v)", cc, c.immutable)
			}
			if !c.immutable && cc != netlifyCacheControl {
				t.Errorf("Cache-Control %q, want Netlify's default %q", cc, netlifyCacheControl)
			}
			if c.status == 200 && compressible[filepath.Ext(strings.TrimSuffix(c.target, "/"))] &&
				!strings.Contains(r.Header.Get("Vary"), "Accept-Encoding") {
				t.Errorf("no Vary: Accept-Encoding")
			}
		})
	}

	// Pretty URLs: a folder without its slash redirects, query kept.
	r := get(t, srv, "GET", "/guide?x=1")
	if r.StatusCode != http.StatusMovedPermanently || r.Header.Get("Location") != "/guide/?x=1" {
		t.Errorf("/guide: %d to %q, want 301 to /guide/?x=1", r.StatusCode, r.Header.Get("Location"))
	}
	if r := get(t, srv, "POST", "/"); r.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", r.StatusCode)
	}
	// A conditional request for an unchanged asset is answered 304.
	first := get(t, srv, "GET", "/static/style.0123abcd.css")
	if r := get(t, srv, "GET", "/static/style.0123abcd.css", "If-Modified-Since", first.Header.Get("Last-Modified")); r.StatusCode != http.StatusNotModified {
		t.Errorf("If-Modified-Since: %d, want 304", r.StatusCode)
	}
}

// gzipped is s compressed as the servers' copies are, and the siblings:
// internal/precompress.
func gzipped(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := precompress.Gzip(&b, []byte(s)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestServerCompressesOnce: a file without a sibling is compressed at the
// first request that accepts the encoding, the copy kept for the next,
// and made again when the file changes; the module is never compressed
// here (brotli's best level takes seconds on it), only its siblings sent.
func TestServerCompressesOnce(t *testing.T) {
	dir := fakeSite(t)
	srv := newServer(dir, productionRules(t), false)
	page := filepath.Join(dir, "guide", "index.html")
	decoded := func(r *http.Response) string {
		t.Helper()
		if r.Header.Get("Content-Encoding") != "br" {
			t.Fatalf("Content-Encoding %q, want br", r.Header.Get("Content-Encoding"))
		}
		data, err := io.ReadAll(brotli.NewReader(r.Body))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	if got := decoded(get(t, srv, "GET", "/guide/", "Accept-Encoding", "br")); got != readFile(t, page) {
		t.Fatalf("brotli page decodes to %q", got)
	}
	copyOf := func() *compressedCopy {
		srv.compressed.mu.Lock()
		defer srv.compressed.mu.Unlock()
		return srv.compressed.entries[compressKey{page, ".br"}]
	}
	made := copyOf()
	if made == nil {
		t.Fatal("no copy kept")
	}
	decoded(get(t, srv, "GET", "/guide/", "Accept-Encoding", "br"))
	if copyOf() != made {
		t.Error("the second request compressed the page again")
	}

	edited := "<!doctype html><html><body><h1>guide, edited</h1></body></html>"
	if err := os.WriteFile(page, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := decoded(get(t, srv, "GET", "/guide/", "Accept-Encoding", "br")); got != edited {
		t.Errorf("after an edit the page decodes to %q, want the edited page", got)
	}

	r := get(t, srv, "GET", "/static/retrylab.89abcdef.wasm", "Accept-Encoding", "br")
	if r.Header.Get("Content-Encoding") != "" || body(t, r) != readFile(t, filepath.Join(dir, "static", "retrylab.89abcdef.wasm")) {
		t.Errorf("a module with no .br sibling, brotli only accepted: %v, want it sent as it is", r.Header)
	}
	srv.compressed.mu.Lock()
	defer srv.compressed.mu.Unlock()
	for k := range srv.compressed.entries {
		if precompressed[filepath.Ext(k.file)] {
			t.Errorf("%s was compressed by the server", k.file)
		}
	}
}

// TestServerLive: in serve mode every page, the 404 page included, gets
// the reload script, served uncompressed; /_live/ answers.
func TestServerLive(t *testing.T) {
	dir := fakeSite(t)
	srv := newServer(dir, productionRules(t), true)
	for _, target := range []string{"/", "/guide/", "/nope"} {
		r := get(t, srv, "GET", target, "Accept-Encoding", "br")
		b := body(t, r)
		if !strings.HasSuffix(b, liveScript+"\n</body></html>") {
			t.Errorf("%s: the reload script is not before </body>: %q", target, b)
		}
		if r.Header.Get("Content-Encoding") != "" || r.Header.Get("Last-Modified") != "" {
			t.Errorf("%s: a live page is served as is and fresh: %v", target, r.Header)
		}
		if r.Header.Get("Content-Security-Policy") == "" {
			t.Errorf("%s: no CSP in serve mode", target)
		}
	}
	// Assets are untouched.
	if b := body(t, get(t, srv, "GET", "/static/style.0123abcd.css")); strings.Contains(b, "_live") {
		t.Error("the reload script went into a stylesheet")
	}
	for target, ctype := range map[string]string{
		"/_live/reload.js":   "text/javascript; charset=utf-8",
		"/_live/overlay.css": "text/css; charset=utf-8",
	} {
		r := get(t, srv, "GET", target)
		if r.StatusCode != 200 || r.Header.Get("Content-Type") != ctype {
			t.Errorf("%s: %d %q", target, r.StatusCode, r.Header.Get("Content-Type"))
		}
	}
	// Only serve mode has it: the built pages never do.
	if b := body(t, get(t, newServer(dir, nil, false), "GET", "/")); strings.Contains(b, "_live") {
		t.Error("the reload script is in a page served without live reload")
	}
}

// TestLiveScripts: the reload script and the overlay keep to the CSP: no
// inline style, no eval, no markup built from the error's text.
func TestLiveScripts(t *testing.T) {
	js := string(reloadJS)
	for _, bad := range []string{".style", "innerHTML", "eval(", `setAttribute("style"`, "cssText"} {
		if strings.Contains(js, bad) {
			t.Errorf("reload.js uses %s", bad)
		}
	}
	for _, want := range []string{`new EventSource("/_live/events"`, `"reload"`, `"error"`, "location.reload()",
		"textContent = text", "/_live/overlay.css"} {
		if !strings.Contains(js, want) {
			t.Errorf("reload.js lacks %s", want)
		}
	}
	if !regexp.MustCompile(`position:\s*fixed`).Match(overlayCSS) || !strings.Contains(string(overlayCSS), "monospace") {
		t.Error("the overlay is not a fixed, monospace panel")
	}
}

// TestServerRealSite serves the built site with the production headers.
func TestServerRealSite(t *testing.T) {
	out := productionSite(t)
	ts := serveSite(t, out)
	index := readFile(t, filepath.Join(out, "index.html"))
	page := fetch(t, ts.URL+"/", "br")
	if page.StatusCode != 200 || page.Header.Get("Content-Encoding") != "br" {
		t.Fatalf("/: %d, encoding %q", page.StatusCode, page.Header.Get("Content-Encoding"))
	}
	if got, err := io.ReadAll(brotli.NewReader(page.Body)); err != nil || string(got) != index {
		t.Errorf("/ with br does not decode to index.html (%v)", err)
	}
	urls := regexp.MustCompile(`(?:href|src|data-wasm|data-exec)="(/static/[^"]+)"`).FindAllStringSubmatch(index, -1)
	if len(urls) < 6 {
		t.Fatalf("the home page names %d assets", len(urls))
	}
	for _, m := range urls {
		r := fetch(t, ts.URL+m[1], "gzip, deflate, br")
		body(t, r)
		want := contentType(m[1])
		if r.StatusCode != 200 || r.Header.Get("Content-Type") != want || r.Header.Get("Content-Encoding") != "br" ||
			!strings.Contains(r.Header.Get("Cache-Control"), "immutable") || r.Header.Get("Content-Security-Policy") == "" {
			t.Errorf("%s: %d %v", m[1], r.StatusCode, r.Header)
		}
	}
	r := fetch(t, ts.URL+"/no/such/page/", "")
	if b := body(t, r); r.StatusCode != 404 || !strings.Contains(b, "Page not found") {
		t.Errorf("unknown page: %d", r.StatusCode)
	}
}

// fetch GETs url over the network, with Accept-Encoding as given (so the
// transport decompresses nothing).
func fetch(t *testing.T, url, accept string) *http.Response {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept-Encoding", accept)
	} else {
		req.Header.Set("Accept-Encoding", "identity")
	}
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Body.Close() })
	return r
}

// lockedBuffer is a bytes.Buffer for one writer and one reader at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// `sitegen serve` answers at once, before its first build is done, with a
// page that says so and reloads itself; once built it serves the site;
// and it watches the -content folder it was given, outside the module.
func TestServeFirstStartAndContentFolder(t *testing.T) {
	root := repoRoot(t)
	parent := t.TempDir()
	content := filepath.Join(parent, "articles")
	if err := os.CopyFS(content, os.DirFS(filepath.Join(root, "content"))); err != nil {
		t.Fatal(err)
	}
	cfg := serveConfig{buildConfig: buildConfig{Root: root, Content: content, Out: filepath.Join(parent, "public"), Quick: true}, Addr: "localhost:0"}
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr lockedBuffer
	done := make(chan error, 1)
	go func() { done <- serve(ctx, cfg, &stdout, &stderr) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})

	urlRe := regexp.MustCompile(`at (http://\S+)/ with live reload`)
	var base string
	for deadline := time.Now().Add(10 * time.Second); base == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := urlRe.FindStringSubmatch(stdout.String()); m != nil {
			base = m[1]
		}
	}
	if base == "" {
		t.Fatalf("serve printed no address within 10 s: %q %q", stdout.String(), stderr.String())
	}
	r := fetch(t, base+"/double-charge/", "")
	page := body(t, r)
	if r.StatusCode != http.StatusServiceUnavailable || !strings.Contains(page, "<h1>Building the site…</h1>") || !strings.Contains(page, liveScript) {
		t.Fatalf("before the first build: %d %q, want 503 and the building page with the reload script", r.StatusCode, page)
	}
	events := openEventsAt(t, base+"/_live/events?waiting=1")
	if ev := events.next(); ev.Name != "hello" {
		t.Fatalf("first event %+v, want hello", ev)
	}
	if ev := events.within(3 * time.Minute); ev.Name != "reload" {
		t.Fatalf("after the first build: %+v, want reload (stderr: %s)", ev, stderr.String())
	}
	if r := fetch(t, base+"/double-charge/", ""); r.StatusCode != http.StatusOK || !strings.Contains(body(t, r), "<h1>The double charge</h1>") {
		t.Fatalf("after the first build /double-charge/ is %d", r.StatusCode)
	}
	// A waiting page that connects only now is told to reload at once.
	late := openEventsAt(t, base+"/_live/events?waiting=1")
	if ev := late.next(); ev.Name != "hello" {
		t.Fatalf("first event %+v, want hello", ev)
	}
	if ev := late.next(); ev.Name != "reload" {
		t.Fatalf("a waiting page connecting after the build got %+v, want reload", ev)
	}

	// An edit in the -content folder rebuilds, here into a failure.
	bad := filepath.Join(content, "bad.md")
	if err := os.WriteFile(bad, []byte("---\ntitle: Bad\n---\n\nSee [it](/nope/).\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ev := events.within(3 * time.Minute)
	if want := bad + ":5: link to /nope/: no such page"; ev.Name != "error" || !strings.Contains(ev.Data, want) {
		t.Fatalf("after an edit of %s: %+v, want an error with %q", bad, ev, want)
	}
	if r := fetch(t, base+"/double-charge/", ""); r.StatusCode != http.StatusOK || !strings.Contains(body(t, r), "<h1>The double charge</h1>") {
		t.Fatalf("after the failed build /double-charge/ is %d, want the previous site", r.StatusCode)
	}

	// The fix, then an edit of one article: rebuilt in this process,
	// converting that article alone, and the search index follows.
	if err := os.Remove(bad); err != nil {
		t.Fatal(err)
	}
	if ev := events.within(3 * time.Minute); ev.Name != "reload" {
		t.Fatalf("after the fix: %+v, want reload (stderr: %s)", ev, stderr.String())
	}
	article := filepath.Join(content, "double-charge.md")
	src, err := os.ReadFile(article)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(article, append(src, "\n\nquickedit\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if ev := events.within(3 * time.Minute); ev.Name != "reload" {
		t.Fatalf("after an edit of %s: %+v, want reload (stderr: %s)", article, ev, stderr.String())
	}
	if r := fetch(t, base+"/double-charge/", ""); !strings.Contains(body(t, r), "<p>quickedit</p>") {
		t.Fatal("the reloaded /double-charge/ does not show the edit")
	}
	if out := stdout.String(); !strings.Contains(out, "; 1 of the markdown files converted") {
		t.Errorf("the rebuild after one edit did not convert that file alone: %s", out)
	}
	for deadline := time.Now().Add(time.Minute); !strings.Contains(stdout.String(), "sitegen: search index and compressed copies updated"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no search index after the edit within a minute: %s %s", stdout.String(), stderr.String())
		}
	}
}

// `make serve ADDR=HOST:PORT` serves on that address; without ADDR, on
// localhost:8080.
func TestMakeServeAddr(t *testing.T) {
	for addr, want := range map[string]string{
		"ADDR=localhost:9000": "/sitegen serve -addr localhost:9000\n",
		"":                    "/sitegen serve -addr localhost:8080\n",
	} {
		args := []string{"-n", "--no-print-directory", "serve"}
		if addr != "" {
			args = append(args, addr)
		}
		cmd := exec.Command("make", args...)
		cmd.Dir = repoRoot(t)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make %v: %v\n%s", args, err, out)
		}
		if !strings.Contains(string(out), want) {
			t.Errorf("make %v runs:\n%s\nwant a line ending %q", args, out, want)
		}
	}
}
