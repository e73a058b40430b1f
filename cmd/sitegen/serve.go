package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/retrylab/retrylab/engine/idem/idemhttp"
	"github.com/retrylab/retrylab/engine/idem/ledger"
)

// server serves a built site the way Netlify does: the [[headers]] rules of
// netlify.toml on every response, pretty URLs, compressed answers and
// 404.html. With live reload on it also serves /_live/ and puts the reload
// script into every page.
type server struct {
	dir        string
	headers    atomic.Pointer[[]HeaderRule]
	live       *broker      // nil without live reload
	api        http.Handler // the sandbox API at /v1/, under serve; nil otherwise
	compressed compressCache
}

// newServer returns a handler for the site built at dir, applying rules to
// every response. live turns on the reload script and /_live/; only `serve`
// uses it.
func newServer(dir string, rules []HeaderRule, live bool) *server {
	s := &server{dir: dir}
	s.setHeaders(rules)
	if live {
		s.live = newBroker()
		s.live.ready = s.built
	}
	return s
}

// built reports whether dir holds a site: a build writes 404.html last
// but for the feeds, and a site without it could not answer a missing
// page.
func (s *server) built() bool {
	_, err := os.Stat(filepath.Join(s.dir, notFoundFile))
	return err == nil
}

// setHeaders replaces the rules, for a changed netlify.toml.
func (s *server) setHeaders(rules []HeaderRule) { s.headers.Store(&rules) }

// netlifyCacheControl is what Netlify sends when no rule sets Cache-Control:
// any cache may keep the response but must revalidate it before each use.
const netlifyCacheControl = "public, max-age=0, must-revalidate"

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	if s.api != nil && (p == "/v1" || strings.HasPrefix(p, "/v1/")) {
		// The API's answers, as the API sends them: none of the pages'
		// headers apply to them in production either.
		s.api.ServeHTTP(w, r)
		return
	}
	h := w.Header()
	h.Set("Cache-Control", netlifyCacheControl)
	applyHeaders(h, *s.headers.Load(), p)

	if s.live != nil && strings.HasPrefix(p, livePrefix) && s.live.serveLive(w, r, p) {
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if s.live != nil && !s.built() {
		s.live.serveWaiting(w, r)
		return
	}

	name := path.Clean(p)
	// path.Clean keeps a backslash, which is a separator on Windows: only a
	// name local to the site may be opened (as http.Dir does).
	if rel := strings.TrimPrefix(name, "/"); rel != "" && !filepath.IsLocal(filepath.FromSlash(rel)) {
		s.serveFile(w, r, filepath.Join(s.dir, "404.html"), http.StatusNotFound)
		return
	}
	file := filepath.Join(s.dir, filepath.FromSlash(name))
	info, err := os.Stat(file)
	if err == nil && info.IsDir() {
		if !strings.HasSuffix(p, "/") {
			// Pretty URLs: /retries -> /retries/, as Netlify does.
			target := p + "/"
			if r.URL.RawQuery != "" {
				target += "?" + r.URL.RawQuery
			}
			http.Redirect(w, r, target, http.StatusMovedPermanently)
			return
		}
		file = filepath.Join(file, "index.html")
		info, err = os.Stat(file)
	}
	if err != nil || !info.Mode().IsRegular() {
		// Whatever the rules say for the path (immutable under /static/,
		// application/wasm for *.wasm), a 404 is a page, not to be cached:
		// the name may exist after the next build.
		h.Set("Cache-Control", netlifyCacheControl)
		h.Set("Content-Type", contentTypes[".html"])
		s.serveFile(w, r, filepath.Join(s.dir, "404.html"), http.StatusNotFound)
		return
	}
	s.serveFile(w, r, file, http.StatusOK)
}

// contentTypes are the types this site's files are served with; others
// come from the mime package, then application/octet-stream.
var contentTypes = map[string]string{
	".html":  "text/html; charset=utf-8",
	".css":   "text/css; charset=utf-8",
	".js":    "text/javascript; charset=utf-8",
	".mjs":   "text/javascript; charset=utf-8",
	".json":  "application/json",
	".svg":   "image/svg+xml",
	".wasm":  "application/wasm",
	".txt":   "text/plain; charset=utf-8",
	".xml":   "application/xml",
	".png":   "image/png",
	".ico":   "image/x-icon",
	".woff2": "font/woff2",
}

func contentType(file string) string {
	ext := strings.ToLower(filepath.Ext(file))
	if t, ok := contentTypes[ext]; ok {
		return t
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	return "application/octet-stream"
}

// serveFile sends file with status: compressed when the request accepts
// it (the precompressed sibling of the module, else a copy made here once:
// compressCache), the reload script put in when it is a page served live.
func (s *server) serveFile(w http.ResponseWriter, r *http.Request, file string, status int) {
	h := w.Header()
	ext := strings.ToLower(filepath.Ext(file))
	if h.Get("Content-Type") == "" {
		h.Set("Content-Type", contentType(file))
	}
	if compressible[ext] {
		h.Add("Vary", "Accept-Encoding")
	}

	if ext == ".html" && s.live != nil {
		data, err := os.ReadFile(file)
		if err != nil {
			s.fail(w, file, err)
			return
		}
		data = injectLive(data)
		// No Last-Modified: a rebuild within the same second must not be
		// answered 304 Not Modified.
		writeBody(w, r, status, bytes.NewReader(data), int64(len(data)), time.Time{})
		return
	}

	info, err := os.Stat(file)
	if err != nil {
		s.fail(w, file, err)
		return
	}
	send := file
	if compressible[ext] {
		for _, enc := range acceptedEncodings(r.Header.Get("Accept-Encoding")) {
			suffix := encodingSuffix[enc]
			if _, err := os.Stat(file + suffix); err == nil {
				send = file + suffix
				h.Set("Content-Encoding", enc)
				break
			}
			if precompressed[ext] {
				// No sibling of the module (a quick build has no .br):
				// the next encoding's, or the file as it is.
				continue
			}
			data, err := s.compressed.get(file, info, suffix)
			if err != nil {
				s.fail(w, file, err)
				return
			}
			h.Set("Content-Encoding", enc)
			writeBody(w, r, status, bytes.NewReader(data), int64(len(data)), info.ModTime())
			return
		}
	}
	f, err := os.Open(send)
	if err != nil {
		s.fail(w, file, err)
		return
	}
	defer f.Close()
	sent, err := f.Stat()
	if err != nil {
		s.fail(w, file, err)
		return
	}
	writeBody(w, r, status, f, sent.Size(), info.ModTime())
}

// writeBody sends body: through http.ServeContent for 200 (conditional and
// range requests), as is for another status.
func writeBody(w http.ResponseWriter, r *http.Request, status int, body io.ReadSeeker, size int64, mod time.Time) {
	if status == http.StatusOK {
		http.ServeContent(w, r, "", mod, body)
		return
	}
	w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		io.Copy(w, body)
	}
}

func (s *server) fail(w http.ResponseWriter, file string, err error) {
	if errors.Is(err, fs.ErrNotExist) {
		// Only when 404.html itself is missing, say before the first build.
		http.Error(w, "404 page not found (and no 404.html in "+s.dir+")", http.StatusNotFound)
		return
	}
	http.Error(w, "reading "+file+": "+err.Error(), http.StatusInternalServerError)
}

// encodingSuffix maps a Content-Encoding to its sibling's suffix.
var encodingSuffix = map[string]string{"br": ".br", "gzip": ".gz"}

// acceptedEncodings lists the encodings of encodingSuffix an
// Accept-Encoding header allows, brotli first (smaller).
func acceptedEncodings(header string) []string {
	ok := map[string]bool{}
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.ToLower(strings.TrimSpace(name))
		if q, found := strings.CutPrefix(strings.TrimSpace(params), "q="); found {
			if v, err := strconv.ParseFloat(q, 64); err == nil && v == 0 {
				ok[name] = false
				continue
			}
		}
		if name == "*" {
			for enc := range encodingSuffix {
				if _, named := ok[enc]; !named {
					ok[enc] = true
				}
			}
			continue
		}
		ok[name] = true
	}
	var out []string
	for _, enc := range []string{"br", "gzip"} {
		if ok[enc] {
			out = append(out, enc)
		}
	}
	return out
}

// injectLive puts the reload script before the page's last </body>, or at
// the end of a page without one.
func injectLive(page []byte) []byte {
	i := bytes.LastIndex(bytes.ToLower(page), []byte("</body>"))
	if i < 0 {
		return append(page, liveScript...)
	}
	out := make([]byte, 0, len(page)+len(liveScript)+1)
	out = append(out, page[:i]...)
	out = append(out, liveScript...)
	out = append(out, '\n')
	return append(out, page[i:]...)
}

// devAPI is the sandbox API as `serve` answers it at /v1/: the handler of
// `retrylab api`, kept in memory, with its default lease and expiry.
func devAPI() http.Handler { return &idemhttp.Sandbox{Store: ledger.NewMemoryStore()} }

// serveConfig is what `sitegen serve` needs.
type serveConfig struct {
	buildConfig
	Addr string
}

// serve serves cfg.Out at cfg.Addr with live reload, builds the site, and
// rebuilds on every change until ctx is done. It answers at once: until
// the first build is done, a page request gets the previous site if
// cfg.Out holds one, else a page that says the site is being built (or
// why the build failed) and reloads itself when a build succeeds.
func serve(ctx context.Context, cfg serveConfig, stdout, stderr io.Writer) error {
	// The rebuilds run in the module root (startWorker) and the watcher
	// must find the folders as the first build does: make both absolute.
	for _, p := range []*string{&cfg.Content, &cfg.Out} {
		abs, err := filepath.Abs(*p)
		if err != nil {
			return err
		}
		*p = abs
	}
	tomlPath := filepath.Join(cfg.Root, "netlify.toml")
	rules, err := loadHeaders(tomlPath)
	if err != nil {
		return err
	}
	srv := newServer(cfg.Out, rules, true)
	// The sandbox API answers /v1/ on this origin, kept in memory, so that
	// the API page's live panel, which asks its own origin first, works
	// with no set-up.
	srv.api = devAPI()

	binDir, err := os.MkdirTemp("", "sitegen-serve-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(binDir)
	db := &devBuilds{cfg: cfg, tomlPath: tomlPath, srv: srv, stdout: stdout, stderr: stderr}
	db.local = cfg.buildConfig
	db.local.Cache = &buildCache{}
	db.workers = newWorkerBuilds(cfg.buildConfig, binDir, stderr)
	defer db.workers.close()
	db.rb = &rebuilder{events: srv.live, log: stderr, build: db.build, after: db.finish}
	// The watcher starts before the first build, so that an edit made
	// while it runs is not missed, and reads its events after it.
	w, err := newWatcher(cfg.Root, stderr, db.changed, cfg.Content)
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		w.fsw.Close()
		return err
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	hs.RegisterOnShutdown(srv.live.close)
	fmt.Fprintf(stdout, "sitegen: serving %s at %s with live reload; Ctrl-C stops\n", cfg.Out, siteURL(cfg.Addr, ln.Addr()))
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()

	// The first build runs in this process: its code is the code just
	// compiled.
	watchCtx, stopWatch := context.WithCancel(ctx)
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		fmt.Fprintln(stdout, "sitegen: building")
		stats, err := build(watchCtx, db.local)
		if watchCtx.Err() != nil {
			w.fsw.Close()
			return
		}
		if err != nil {
			fmt.Fprintf(stderr, "sitegen: build failed:\n%s\n", err)
		} else {
			fmt.Fprintf(stdout, "sitegen: %s\n", stats)
		}
		srv.live.report(err)
		w.run(watchCtx)
	}()

	select {
	case err = <-served:
	case <-ctx.Done():
		fmt.Fprintln(stdout, "\nsitegen: stopping")
		// Five seconds for requests under way; the event streams are
		// closed at once by RegisterOnShutdown.
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = hs.Shutdown(sctx)
		cancel()
	}
	stopWatch()
	<-watchDone
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// devBuilds are make serve's rebuilds. Until a Go file changes, this
// process's code is the site's: it builds in process, keeping what the
// last build made (buildCache). After, a worker of the generator
// compiled afresh does, keeping its own (worker.go). The rebuilder runs
// one build at a time, so the fields below are never read and written at
// once.
type devBuilds struct {
	cfg            serveConfig
	tomlPath       string
	srv            *server
	stdout, stderr io.Writer
	rb             *rebuilder
	local          buildConfig   // the in-process builds' configuration
	workers        *workerBuilds // the compiled workers' builds

	stale       bool // a Go file changed since this process was compiled
	code        bool // the latest change is to Go code
	contentOnly bool // the latest change is to files of the content folder alone
	pending     bool // the last build left work to finish
}

// changed takes the watcher's batch of changed files: netlify.toml is
// reloaded in place, anything else rebuilds.
func (d *devBuilds) changed(ctx context.Context, names []string) {
	rebuild := false
	d.code, d.contentOnly = false, true
	for _, name := range names {
		if name == d.tomlPath {
			d.reloadHeaders()
			continue
		}
		rebuild = true
		if !inside(d.cfg.Content, name) {
			d.contentOnly = false
		}
		if codeChange(d.cfg.Root, name) {
			d.code = true
			if !d.stale {
				d.stale = true
				fmt.Fprintf(d.stderr, "sitegen: %s changed: the generator is compiled afresh, and builds in a process of its own from now on\n", displayPath(d.cfg.Root, name))
			}
		}
	}
	if rebuild {
		d.rb.run(ctx)
	}
}

// reloadHeaders reads netlify.toml again: headers change what is served,
// not what is built.
func (d *devBuilds) reloadHeaders() {
	rules, err := loadHeaders(d.tomlPath)
	if err != nil {
		fmt.Fprintf(d.stderr, "sitegen: %v (keeping the previous headers)\n", err)
		d.srv.live.report(err)
		return
	}
	d.srv.setHeaders(rules)
	fmt.Fprintln(d.stderr, "sitegen: netlify.toml reloaded")
	d.srv.live.report(nil)
}

// build rebuilds the site after a change, in this process or a worker.
func (d *devBuilds) build(ctx context.Context) error {
	d.pending = false
	if d.stale {
		rep, err := d.workers.build(ctx, d.code, d.contentOnly)
		if err != nil {
			return err
		}
		d.pending = rep.Unfinished
		fmt.Fprintf(d.stdout, "sitegen: %s\n", rep.Summary)
		return nil
	}
	if !d.contentOnly {
		d.local.Cache.forget()
	}
	stats, err := build(ctx, d.local)
	if err != nil {
		return err
	}
	d.pending = stats.Unfinished
	fmt.Fprintf(d.stdout, "sitegen: %s; %d of the markdown files converted\n", stats, d.local.Cache.Converted)
	return nil
}

// finish does the work the last build left, once the page has reloaded:
// the search index and the compressed copies.
func (d *devBuilds) finish(ctx context.Context) error {
	if !d.pending {
		return nil
	}
	var err error
	if d.stale {
		err = d.workers.finish()
	} else {
		err = finish(ctx, d.local)
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(d.stdout, "sitegen: search index and compressed copies updated")
	return nil
}

// inside reports whether file lies in dir.
func inside(dir, file string) bool {
	rel, err := filepath.Rel(dir, file)
	return err == nil && filepath.IsLocal(rel)
}

// siteURL is the address to open: the host as given ("localhost"), the
// port as bound (for ":0").
func siteURL(addr string, bound net.Addr) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" || host == "0.0.0.0" || host == "::" {
		host = "localhost"
	}
	_, port, err := net.SplitHostPort(bound.String())
	if err != nil {
		return "http://" + bound.String() + "/"
	}
	return "http://" + net.JoinHostPort(host, port) + "/"
}
