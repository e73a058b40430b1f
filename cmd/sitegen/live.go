package main

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// The development server's own files, under /_live/.
var (
	//go:embed live/reload.js
	reloadJS []byte
	//go:embed live/overlay.css
	overlayCSS []byte
	//go:embed live/waiting.html
	waitingHTML string
	waitingPage = template.Must(template.New("waiting").Parse(waitingHTML))
)

const (
	livePrefix = "/_live/"
	// liveScript is what serve mode puts before </body> of every page.
	liveScript = `<script src="/_live/reload.js" defer></script>`
)

// liveEvent is one Server-Sent Event: "reload", or "error" with the build's
// error text.
type liveEvent struct{ Name, Data string }

// broker fans build outcomes out to every page open on /_live/events.
type broker struct {
	gen  string // names this run of the server; sent as "hello" on connect
	done chan struct{}
	// ready reports whether there is a site to serve; a waiting page
	// (see waitingPage) that connects when there is one is told to
	// reload at once, as it missed the build's "reload".
	ready func() bool

	mu      sync.Mutex
	subs    map[chan liveEvent]struct{}
	failure *liveEvent // the last build's error until a build succeeds
	closed  bool
}

func newBroker() *broker {
	return &broker{
		gen:  strconv.FormatInt(time.Now().UnixNano(), 36),
		done: make(chan struct{}),
		subs: map[chan liveEvent]struct{}{},
	}
}

// report publishes the outcome of a build: "reload" after a success,
// "error" with the error's text after a failure.
func (b *broker) report(err error) {
	if err != nil {
		b.publish(liveEvent{Name: "error", Data: err.Error()})
		return
	}
	b.publish(liveEvent{Name: "reload"})
}

// publish sends ev to every open stream. A page that connects while the
// last build has failed is sent its error at once.
func (b *broker) publish(ev liveEvent) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch ev.Name {
	case "error":
		b.failure = &ev
	case "reload":
		b.failure = nil
	}
	for ch := range b.subs {
		select {
		case ch <- ev:
		default: // a stream this far behind reloads on its next event anyway
		}
	}
}

// close ends every open stream, so that a graceful shutdown need not wait
// for pages to go away.
func (b *broker) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed {
		b.closed = true
		close(b.done)
	}
}

// ServeHTTP streams events to one page.
func (b *broker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	// Up to 8 events wait for a slow page; more are dropped (see publish).
	ch := make(chan liveEvent, 8)
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		http.Error(w, "shutting down", http.StatusServiceUnavailable)
		return
	}
	b.subs[ch] = struct{}{}
	failure := b.failure
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		delete(b.subs, ch)
		b.mu.Unlock()
	}()

	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	// retry: reconnect after 500 ms when the server restarts.
	io.WriteString(w, "retry: 500\n")
	writeEvent(w, liveEvent{Name: "hello", Data: b.gen})
	if failure != nil {
		writeEvent(w, *failure)
	} else if r.URL.Query().Get("waiting") != "" && b.ready != nil && b.ready() {
		writeEvent(w, liveEvent{Name: "reload"})
	}
	flusher.Flush()
	for {
		select {
		case ev := <-ch:
			writeEvent(w, ev)
			flusher.Flush()
		case <-r.Context().Done():
			return
		case <-b.done:
			return
		}
	}
}

// writeEvent writes ev in the text/event-stream format: one data line per
// line of text, so a multi-line error arrives whole.
func writeEvent(w io.Writer, ev liveEvent) {
	var sb strings.Builder
	sb.WriteString("event: " + ev.Name + "\n")
	for _, line := range strings.Split(ev.Data, "\n") {
		sb.WriteString("data: " + strings.TrimSuffix(line, "\r") + "\n")
	}
	sb.WriteString("\n")
	io.WriteString(w, sb.String())
}

// serveLive answers the /_live/ paths of serve mode and reports whether p
// was one of them.
func (b *broker) serveLive(w http.ResponseWriter, r *http.Request, p string) bool {
	switch p {
	case livePrefix + "events":
		b.ServeHTTP(w, r)
	case livePrefix + "reload.js":
		serveBytes(w, r, "text/javascript; charset=utf-8", reloadJS)
	case livePrefix + "overlay.css":
		serveBytes(w, r, "text/css; charset=utf-8", overlayCSS)
	default:
		return false
	}
	return true
}

func serveBytes(w http.ResponseWriter, r *http.Request, ctype string, data []byte) {
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
}

// serveWaiting answers a page request when there is no site to serve:
// before the first build is done, or after it failed. The page reloads
// itself when a build succeeds, and shows the overlay while the last
// build failed, like any page of the site.
func (b *broker) serveWaiting(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	failed := b.failure != nil
	b.mu.Unlock()
	data := struct{ Title, Text string }{"Building the site…",
		"The first build is under way: a cold start compiles the generator and the WebAssembly module, which can take minutes. This page reloads itself when the build is done."}
	if failed {
		data.Title, data.Text = "The build failed",
			"There is no site to show yet: the error is above. Fix it and save; this page reloads itself when a build succeeds."
	}
	var buf bytes.Buffer
	if err := waitingPage.Execute(&buf, data); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", contentTypes[".html"])
	h.Set("Cache-Control", "no-store")
	h.Set("Retry-After", "1")
	writeBody(w, r, http.StatusServiceUnavailable, bytes.NewReader(buf.Bytes()), int64(buf.Len()), time.Time{})
}

// rebuilder runs a build and reports its outcome to the terminal and to
// every open page.
type rebuilder struct {
	build func(context.Context) error
	// after, when set, runs once the pages have been told to reload: the
	// work they need not wait for (finish). Its failure is reported as
	// a build's.
	after  func(context.Context) error
	events *broker
	log    io.Writer
}

// run builds once. A failed build leaves the previous site served; its
// error goes to the terminal and to the pages' overlay.
func (r *rebuilder) run(ctx context.Context) error {
	start := time.Now()
	err := r.build(ctx)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		fmt.Fprintf(r.log, "sitegen: build failed, still serving the previous site:\n%s\n", err)
	} else {
		fmt.Fprintf(r.log, "sitegen: rebuilt in %.3fs, reloading pages\n", time.Since(start).Seconds())
	}
	r.events.report(err)
	if err != nil || r.after == nil {
		return err
	}
	if err := r.after(ctx); err != nil && ctx.Err() == nil {
		fmt.Fprintf(r.log, "sitegen: %v\n", err)
		r.events.report(err)
		return err
	}
	return ctx.Err()
}

// watchDirs are the folders whose changes trigger a rebuild: the articles,
// the site's Go code, templates and static files, the engine (compiled into
// both the generator and the modules), the modules' main packages and the
// generator itself.
var watchDirs = []string{"content", "site", "engine", "wasm", filepath.Join("cmd", "playground"), filepath.Join("cmd", "sitegen")}

// watchRootFiles are the files at the module root that matter.
var watchRootFiles = map[string]bool{"netlify.toml": true, "go.mod": true, "go.sum": true}

// defaultDebounce is how long the tree must stay quiet before a rebuild: an
// editor's save is often several events (write, chmod, rename) within a few
// milliseconds, which 50 ms gathers while leaving most of a markdown edit's
// 300 ms to the rebuild. A longer burst (`git checkout`) may start a second
// rebuild, which waits for the first.
const defaultDebounce = 50 * time.Millisecond

// watcher calls onChange, never twice at once, with the files changed under
// root and the extra folders it watches once changes have settled for
// debounce.
type watcher struct {
	debounce time.Duration // quiet time before onChange; defaultDebounce
	root     string
	fsw      *fsnotify.Watcher
	log      io.Writer
	onChange func(ctx context.Context, changed []string)
}

// newWatcher watches root's watchDirs and watchRootFiles, and every folder
// of extra (the -content folder, which may lie outside root).
func newWatcher(root string, log io.Writer, onChange func(context.Context, []string), extra ...string) (*watcher, error) {
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	w := &watcher{debounce: defaultDebounce, root: root, fsw: fsw, log: log, onChange: onChange}
	if err := fsw.Add(root); err != nil {
		fsw.Close()
		return nil, err
	}
	dirs := make([]string, 0, len(watchDirs)+len(extra))
	for _, d := range watchDirs {
		dirs = append(dirs, filepath.Join(root, d))
	}
	for _, d := range extra {
		abs, err := filepath.Abs(d)
		if err != nil {
			fsw.Close()
			return nil, err
		}
		dirs = append(dirs, abs)
	}
	for _, d := range dirs {
		if err := w.addTree(d); err != nil && !os.IsNotExist(err) {
			fsw.Close()
			return nil, err
		}
	}
	return w, nil
}

// addTree watches dir and every folder under it (fsnotify watches one level).
func (w *watcher) addTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if p != dir && skipName(d.Name()) {
			return filepath.SkipDir
		}
		return w.fsw.Add(p)
	})
}

// skipName is true for names no build reads: hidden files and editors'
// backup and swap files.
func skipName(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "#") ||
		strings.HasSuffix(name, "~") || strings.HasSuffix(name, ".swp") ||
		strings.HasSuffix(name, ".swx") || name == "node_modules"
}

// relevant reports whether an event on p should trigger onChange.
func (w *watcher) relevant(ev fsnotify.Event) bool {
	if ev.Op == fsnotify.Chmod || skipName(filepath.Base(ev.Name)) {
		return false
	}
	if filepath.Dir(ev.Name) == w.root {
		return watchRootFiles[filepath.Base(ev.Name)]
	}
	// Tests do not change the site.
	return !strings.HasSuffix(ev.Name, "_test.go")
}

// run watches until ctx is done.
func (w *watcher) run(ctx context.Context) {
	defer w.fsw.Close()
	var (
		changed = map[string]bool{}
		timer   = time.NewTimer(time.Hour)
		settled bool                  // the quiet period has passed since the last change
		busy    bool                  // onChange is running
		done    = make(chan struct{}) // onChange returned
	)
	timer.Stop()
	start := func() {
		names := make([]string, 0, len(changed))
		for n := range changed {
			names = append(names, n)
		}
		sort.Strings(names)
		clear(changed)
		settled, busy = false, true
		go func() {
			w.onChange(ctx, names)
			done <- struct{}{}
		}()
	}
	for {
		select {
		case <-ctx.Done():
			if busy {
				<-done
			}
			return
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			if ev.Has(fsnotify.Create) && filepath.Dir(ev.Name) != w.root {
				if info, err := os.Stat(ev.Name); err == nil && info.IsDir() {
					// A new folder: watch it and what is already inside.
					if err := w.addTree(ev.Name); err != nil {
						fmt.Fprintf(w.log, "sitegen: watching %s: %v\n", ev.Name, err)
					}
				}
			}
			if !w.relevant(ev) {
				continue
			}
			changed[ev.Name] = true
			settled = false
			timer.Reset(w.debounce)
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
			fmt.Fprintf(w.log, "sitegen: watch: %v\n", err)
		case <-timer.C:
			settled = true
			if !busy && len(changed) > 0 {
				start()
			}
		case <-done:
			busy = false
			if settled && len(changed) > 0 {
				start()
			}
		}
	}
}
