package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// dial opens a raw connection to the API at base.
func dial(t *testing.T, base string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedWithin reports whether the server closed c (a read gives EOF or a
// reset) within d, reading and dropping whatever it sends before that.
func closedWithin(c net.Conn, d time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return false
	}
	return true
}

// A client that sends its body one byte at a time is cut off when the
// deadline for the whole request passes, however much it still sends.
func TestAPICutsSlowBodies(t *testing.T) {
	base, _, _, _ := startAPIWith(t, apiConfig{addr: "127.0.0.1:0", db: "memory", lease: time.Minute, ttl: time.Hour,
		read: time.Second})
	c := dial(t, base)
	io.WriteString(c, "POST /v1/payments HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\nIdempotency-Key: k\r\n"+
		"Content-Type: application/json\r\nContent-Length: 65536\r\n\r\n")
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
				if _, err := c.Write([]byte(" ")); err != nil {
					return
				}
			}
		}
	}()
	if !closedWithin(c, 10*time.Second) {
		t.Fatal("a body sent a byte every 100 ms still held its connection 10 s after a 1 s read deadline")
	}
}

// A kept-alive connection that sends no further request is closed after
// the idle timeout.
func TestAPIClosesIdleConnections(t *testing.T) {
	base, _, _, _ := startAPIWith(t, apiConfig{addr: "127.0.0.1:0", db: "memory", lease: time.Minute, ttl: time.Hour,
		idle: time.Second})
	c := dial(t, base)
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /: %v %v", resp, err)
	}
	resp.Body.Close()
	if !closedWithin(c, 10*time.Second) {
		t.Fatal("an idle kept-alive connection was still open 10 s after a 1 s idle timeout")
	}
}

// Connections beyond the cap wait: the third of three with a cap of two
// is answered only once one of the first two closes.
func TestAPICapsConnections(t *testing.T) {
	base, _, _, _ := startAPIWith(t, apiConfig{addr: "127.0.0.1:0", db: "memory", lease: time.Minute, ttl: time.Hour,
		maxConns: 2, readHeader: time.Minute, read: time.Minute})
	first, second := dial(t, base), dial(t, base)
	// Both are accepted and say nothing: they hold the two slots.
	io.WriteString(first, "GET / HTTP/1.1\r\n")
	io.WriteString(second, "GET / HTTP/1.1\r\n")
	third := dial(t, base)
	io.WriteString(third, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	third.SetReadDeadline(time.Now().Add(time.Second))
	if n, err := third.Read(make([]byte, 1)); n > 0 || err == nil {
		t.Fatal("a third connection was served while two held the cap of two")
	}
	first.Close()
	third.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(third), nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("the third connection, once a slot was free: %v %v", resp, err)
	}
	resp.Body.Close()
}
