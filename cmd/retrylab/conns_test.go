package main

import (
	"errors"
	"io"
	"net"
	"strings"
	"testing"
)

// A connection closed for a newcomer while its handler reads the body
// ends that body short, even when the rest of it was read from the
// network already: the handler never gets a whole body, so it never
// claims the key of a request whose client was cut off.
func TestPreemptedBodyEndsShort(t *testing.T) {
	server, client := net.Pipe()
	defer client.Close()
	l := newConns(nil, 1)
	c := &conn{Conn: server, l: l, phase: phaseBody}
	l.open[c] = struct{}{}
	body := &watchedBody{ReadCloser: io.NopCloser(strings.NewReader(`{"amount":2500,"currency":"usd"}`)), c: c}
	if _, err := body.Read(make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	l.mu.Lock()
	if v := l.victim(); v != c {
		t.Fatalf("victim %v, want the connection reading its body", v)
	}
	l.drop(c)
	l.mu.Unlock()
	rest, err := io.ReadAll(body)
	if err == nil || errors.Is(err, io.EOF) {
		t.Fatalf("after the connection was closed for another: read %q, %v; want an error, not the body's end", rest, err)
	}
}
