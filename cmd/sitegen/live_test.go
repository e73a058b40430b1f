package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// eventStream reads Server-Sent Events from /_live/events.
type eventStream struct {
	t      *testing.T
	events chan liveEvent
}

func openEvents(t *testing.T, baseURL string) *eventStream {
	t.Helper()
	return openEventsAt(t, baseURL+"/_live/events")
}

// openEventsAt opens the event stream at url, a query string included.
func openEventsAt(t *testing.T, url string) *eventStream {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("Content-Type %q", ct)
	}
	s := &eventStream{t: t, events: make(chan liveEvent, 16)}
	go func() {
		defer close(s.events)
		sc := bufio.NewScanner(resp.Body)
		var ev liveEvent
		var data []string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.Name != "" {
					ev.Data = strings.Join(data, "\n")
					s.events <- ev
				}
				ev, data = liveEvent{}, nil
			case strings.HasPrefix(line, "event: "):
				ev.Name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				data = append(data, strings.TrimPrefix(line, "data: "))
			}
		}
	}()
	return s
}

// next returns the next event, failing the test after 5 s.
func (s *eventStream) next() liveEvent {
	s.t.Helper()
	return s.within(5 * time.Second)
}

// within returns the next event, failing the test after d.
func (s *eventStream) within(d time.Duration) liveEvent {
	s.t.Helper()
	select {
	case ev, ok := <-s.events:
		if !ok {
			s.t.Fatal("the event stream ended")
		}
		return ev
	case <-time.After(d):
		s.t.Fatalf("no event within %v", d)
	}
	return liveEvent{}
}

// TestLiveEvents drives the rebuilder with a fake build and reads what the
// pages receive.
func TestLiveEvents(t *testing.T) {
	srv := newServer(fakeSite(t), nil, true)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	ctx := context.Background()

	var buildErr error
	rb := &rebuilder{
		build:  func(context.Context) error { return buildErr },
		events: srv.live,
		log:    io.Discard,
	}

	page := openEvents(t, ts.URL)
	hello := page.next()
	if hello.Name != "hello" || hello.Data == "" {
		t.Fatalf("first event %+v, want hello with the server's generation", hello)
	}

	// A successful rebuild reloads the page.
	if err := rb.run(ctx); err != nil {
		t.Fatal(err)
	}
	if ev := page.next(); ev.Name != "reload" {
		t.Fatalf("after a good build: %+v, want reload", ev)
	}

	// A failed one sends its whole error, every line.
	buildErr = errors.New("content/a.md:7: widget \"paymnt\": unknown widget (known: payment)\ncontent/b.md:5: widget \"pament\": unknown widget (known: payment)")
	if err := rb.run(ctx); err == nil {
		t.Fatal("run hid the build's error")
	}
	if ev := page.next(); ev.Name != "error" || ev.Data != buildErr.Error() {
		t.Fatalf("after a failed build: %+v", ev)
	}

	// A page opened while the build is broken is told at once.
	late := openEvents(t, ts.URL)
	if ev := late.next(); ev.Name != "hello" || ev.Data != hello.Data {
		t.Fatalf("late page: %+v, want the same hello", ev)
	}
	if ev := late.next(); ev.Name != "error" || ev.Data != buildErr.Error() {
		t.Fatalf("late page after a failed build: %+v", ev)
	}

	// The fix reloads every page, and the error is forgotten.
	buildErr = nil
	rb.run(ctx)
	for _, s := range []*eventStream{page, late} {
		if ev := s.next(); ev.Name != "reload" {
			t.Fatalf("after the fix: %+v, want reload", ev)
		}
	}
	fresh := openEvents(t, ts.URL)
	fresh.next() // hello
	rb.run(ctx)
	if ev := fresh.next(); ev.Name != "reload" {
		t.Fatalf("a page opened after the fix got %+v first, want the next reload", ev)
	}
	page.next()

	// Shutting down ends the streams.
	srv.live.close()
	select {
	case _, ok := <-page.events:
		if ok {
			t.Error("an event after close")
		}
	case <-time.After(5 * time.Second):
		t.Error("the stream is still open after close")
	}
}

// TestWatcher: a burst of changes makes one call with every changed file;
// new folders are watched; files no build reads are ignored.
func TestWatcher(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"content", "site/templates", "engine/sim"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var (
		mu    sync.Mutex
		calls [][]string
		got   = make(chan []string, 16)
	)
	w, err := newWatcher(root, io.Discard, func(_ context.Context, changed []string) {
		mu.Lock()
		calls = append(calls, changed)
		mu.Unlock()
		got <- changed
	})
	if err != nil {
		t.Fatal(err)
	}
	// A longer quiet time than serve's: on a busy machine a pause between
	// two writes of one burst must not split it in two.
	w.debounce = time.Second
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	write := func(rel string) string {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.WriteFile(p, []byte(rel), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	wait := func() []string {
		t.Helper()
		select {
		case c := <-got:
			return c
		case <-time.After(5 * time.Second):
			t.Fatal("no rebuild within 5 s")
		}
		return nil
	}

	// A burst, as an editor's save or a checkout makes.
	burst := []string{write("content/a.md"), write("site/templates/base.html"), write("engine/sim/sim.go"), write("netlify.toml")}
	write("content/.a.md.swp")    // editor swap file
	write("README.md")            // a root file no build reads
	write("engine/sim/x_test.go") // tests do not change the site
	changed := wait()
	slices.Sort(burst)
	if !slices.Equal(changed, burst) {
		t.Errorf("changed %v, want %v", changed, burst)
	}

	// A new folder, and a file in it after it is watched.
	if err := os.Mkdir(filepath.Join(root, "content", "img"), 0o755); err != nil {
		t.Fatal(err)
	}
	wait() // the folder's creation
	p := write("content/img/figure.svg")
	if changed := wait(); !slices.Contains(changed, p) {
		t.Errorf("changed %v, want %s in it", changed, p)
	}

	// Quiet: no further calls.
	time.Sleep(3 * w.debounce)
	mu.Lock()
	defer mu.Unlock()
	if len(calls) != 3 {
		t.Errorf("%d calls, want 3 (burst, folder, file in it): %v", len(calls), calls)
	}
}
