package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/retrylab/retrylab/engine/idem/idemhttp"
)

// conns is the listener of retrylab api: it serves at most max
// connections at once, and when a new one comes at the cap it makes room
// by closing the connection that does the least, rather than leaving the
// newcomer in the kernel's backlog behind clients that hold a slot and
// do nothing with it. It closes, first to last:
//
//  1. a kept-alive connection that sends nothing (idle), idle the
//     longest first: one tiny request a minute holds no slot;
//  2. a connection still sending its request's head, the longest at it
//     first: nothing of its request has been read;
//  3. a connection whose handler still waits for its body, the longest
//     at it first: the API reads the whole body before it claims the key,
//     and the body of a connection closed so fails (watchedBody), so
//     nothing has been done;
//
// and never one whose request runs (its body read, or none to read): a
// payment under way is not cut off. When every connection runs a
// request, the newcomer waits for one to finish; a request runs at most
// writeTimeout.
//
// Every connection is one client as far as conns knows: behind one
// address (a NAT, a proxy, the loopback) are many, so it caps none.
type conns struct {
	net.Listener
	max int

	mu   sync.Mutex
	open map[*conn]struct{} // counted against max: not yet closed by us or the server
	// wake has a send when a connection closes or stops running a
	// request, for an Accept waiting for room.
	wake chan struct{}
}

// connPhase is where a connection's current request stands.
type connPhase uint8

const (
	phaseIdle    connPhase = iota // between requests, nothing sent yet
	phaseHead                     // its request's head is being sent
	phaseBody                     // in the handler, the body not yet read
	phaseRunning                  // in the handler, the request's work running
	phaseGone                     // taken over (hijacked) or closed
)

// conn is one served connection.
type conn struct {
	net.Conn
	l     *conns
	phase connPhase // under l.mu
	since time.Time // when phase began, under l.mu
	once  sync.Once
}

func newConns(ln net.Listener, max int) *conns {
	return &conns{Listener: ln, max: max, open: map[*conn]struct{}{}, wake: make(chan struct{}, 1)}
}

// Accept takes the next connection in, making room for it first.
func (l *conns) Accept() (net.Conn, error) {
	nc, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	for {
		l.mu.Lock()
		if len(l.open) < l.max {
			c := &conn{Conn: nc, l: l, phase: phaseHead, since: time.Now()}
			l.open[c] = struct{}{}
			l.mu.Unlock()
			return c, nil
		}
		victim := l.victim()
		if victim != nil {
			l.drop(victim)
		}
		l.mu.Unlock()
		if victim != nil {
			victim.Conn.Close()
			continue
		}
		<-l.wake // every connection runs a request: wait for one to end
	}
}

// victim is the connection to close for a newcomer, nil if every one
// runs a request. Under l.mu.
func (l *conns) victim() *conn {
	var best *conn
	for c := range l.open {
		if c.phase >= phaseRunning {
			continue
		}
		if best == nil || c.phase < best.phase || c.phase == best.phase && c.since.Before(best.since) {
			best = c
		}
	}
	return best
}

// drop stops counting c, under l.mu.
func (l *conns) drop(c *conn) {
	if _, ok := l.open[c]; !ok {
		return
	}
	delete(l.open, c)
	c.phase = phaseGone
	l.signal()
}

// signal wakes an Accept waiting for room, under l.mu.
func (l *conns) signal() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// set moves c to phase p (unless it is gone).
func (c *conn) set(p connPhase) {
	c.l.mu.Lock()
	if c.phase != phaseGone && c.phase != p {
		if c.phase == phaseRunning {
			c.l.signal() // it may now make room
		}
		c.phase, c.since = p, time.Now()
	}
	c.l.mu.Unlock()
}

// Read notes that an idle connection began sending its next request.
func (c *conn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 {
		c.l.mu.Lock()
		if c.phase == phaseIdle {
			c.phase, c.since = phaseHead, time.Now()
		}
		c.l.mu.Unlock()
	}
	return n, err
}

// Close frees c's slot, once.
func (c *conn) Close() error {
	c.l.mu.Lock()
	c.l.drop(c)
	c.l.mu.Unlock()
	var err error
	c.once.Do(func() { err = c.Conn.Close() })
	return err
}

// state is the server's ConnState hook.
func (l *conns) state(nc net.Conn, s http.ConnState) {
	c, ok := nc.(*conn)
	if !ok {
		return
	}
	switch s {
	case http.StateIdle:
		c.set(phaseIdle)
	case http.StateHijacked:
		// The handler took the connection (to drop it, for a lost
		// answer): it is the handler's to close, never a victim.
		c.set(phaseRunning)
	}
}

type connKey struct{}

// context is the server's ConnContext hook: the request's handler finds
// its connection in its context (track).
func (l *conns) context(ctx context.Context, nc net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, nc)
}

// track wraps the server's handler: while it runs, its connection is in
// phaseBody until the request's body has been read to its end, and in
// phaseRunning from then (at once for a request without a body).
func (l *conns) track(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, ok := r.Context().Value(connKey{}).(*conn)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
			c.set(phaseRunning)
		} else {
			c.set(phaseBody)
			r.Body = &watchedBody{ReadCloser: r.Body, c: c}
		}
		// It runs until its answer is sent: then the server makes it idle
		// (state), or closes it.
		next.ServeHTTP(w, r)
	})
}

// watchedBody moves its connection to phaseRunning once it is read to
// its end; and, if the connection was closed for a newcomer before then,
// fails from then on, though the rest of the body may have come already:
// the handler never sees the whole body, so it never claims a key for a
// client that will never hear the answer.
type watchedBody struct {
	io.ReadCloser
	c *conn
}

// errCutOff is a body's error once its connection was closed for another.
var errCutOff = errors.New("the connection was closed for another before the body was read")

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	c := b.c
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	switch {
	case c.phase == phaseGone:
		return 0, errCutOff
	case err == io.EOF && c.phase != phaseRunning:
		c.phase, c.since = phaseRunning, time.Now()
	}
	return n, err
}

// goErrorHeaders are the fields net/http writes after the status line of
// an answer it makes itself, for a request it could not read (a header
// section too large, a malformed request, an unknown transfer coding, an
// HTTP version it does not speak), in one write to the connection
// before it closes it.
var goErrorHeaders = []byte("\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n")

// Write sends b, except for an answer net/http makes itself, which it
// sends as the same status with an application/problem+json body, as
// every answer of the API is: net/http writes those text/plain, in one
// write of "HTTP/1.1 CODE REASON" and goErrorHeaders and a body of
// "CODE REASON: DETAIL" (or of "Unsupported transfer encoding"), while
// no handler runs on the connection.
func (c *conn) Write(b []byte) (int, error) {
	c.l.mu.Lock()
	phase := c.phase
	c.l.mu.Unlock()
	if phase >= phaseBody || !bytes.HasPrefix(b, []byte("HTTP/1.1 ")) {
		return c.Conn.Write(b)
	}
	status, text, ok := goError(b)
	if !ok {
		return c.Conn.Write(b)
	}
	body, ok := idemhttp.ProtocolProblem(status, text)
	if !ok {
		return c.Conn.Write(b)
	}
	head := "HTTP/1.1 " + strconv.Itoa(status) + " " + http.StatusText(status) +
		"\r\nContent-Type: application/problem+json\r\nContent-Length: " + strconv.Itoa(len(body)) +
		"\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n"
	if _, err := c.Conn.Write(append([]byte(head), body...)); err != nil {
		return 0, err
	}
	return len(b), nil
}

// goError reads an answer net/http made itself (see Write): its status
// and net/http's words for what was wrong ("" when there are none).
func goError(b []byte) (status int, text string, ok bool) {
	line, rest, found := bytes.Cut(b, goErrorHeaders)
	if !found || len(line) < len("HTTP/1.1 200") || bytes.ContainsAny(line, "\r\n") {
		return 0, "", false
	}
	status, err := strconv.Atoi(string(line[len("HTTP/1.1 "):][:3]))
	if err != nil {
		return 0, "", false
	}
	prefix := strconv.Itoa(status) + " " + http.StatusText(status)
	text = string(rest)
	switch {
	case text == prefix:
		text = ""
	case len(text) > len(prefix)+2 && text[:len(prefix)+2] == prefix+": ":
		text = text[len(prefix)+2:]
	}
	return status, text, true
}
