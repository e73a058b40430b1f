package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/retrylab/retrylab/engine/idem/idemhttp"
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

// Connections beyond the cap wait while every connection runs a request:
// a running request is never cut off. The third of three with a cap of
// two is answered once one of the first two has its answer.
func TestAPICapsConnections(t *testing.T) {
	base, _, _, _ := startAPIWith(t, apiConfig{addr: "127.0.0.1:0", db: "memory", lease: time.Minute, ttl: time.Hour,
		maxConns: 2})
	var running []net.Conn
	for i := range 2 {
		c := dial(t, base)
		io.WriteString(c, "POST /v1/payments HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\nIdempotency-Key: k"+strconv.Itoa(i)+"\r\n"+
			"Retrylab-Fault: slow="+strconv.Itoa(1500*(i+1))+"\r\nContent-Length: 32\r\n\r\n"+`{"amount":2500,"currency":"usd"}`)
		running = append(running, c)
	}
	time.Sleep(500 * time.Millisecond) // both payments under way
	third := dial(t, base)
	io.WriteString(third, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	third.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
	if n, err := third.Read(make([]byte, 1)); n > 0 || err == nil {
		t.Fatal("a third connection was served while two running payments held the cap of two")
	}
	third.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(third), nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("the third connection, once a payment was done: %v %v", resp, err)
	}
	resp.Body.Close()
	for i, c := range running {
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err != nil || resp.StatusCode != 201 {
			t.Fatalf("running payment %d: %v %v, want its 201", i, resp, err)
		}
	}
}

// rawAnswer sends raw on a new connection and reads the answer.
func rawAnswer(t *testing.T, base, raw string) (*http.Response, string) {
	t.Helper()
	c := dial(t, base)
	c.SetDeadline(time.Now().Add(10 * time.Second))
	io.WriteString(c, raw)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%.60q: %v", raw, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// The errors net/http answers itself, before the API sees the request,
// are problems like every other answer, not text/plain.
func TestAPIProtocolErrorsAreProblems(t *testing.T) {
	base, _, _, _ := startAPIWith(t, apiConfig{addr: "127.0.0.1:0", db: "memory", lease: time.Minute, ttl: time.Hour})
	for _, tc := range []struct {
		name, raw string
		status    int
	}{
		{"two Content-Lengths", "POST /v1/payments HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}", 400},
		{"a first field folded onto the request line", "GET / HTTP/1.1\r\n X-A: b\r\nHost: x\r\n\r\n", 400},
		{"a method that is no token", "G(T / HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"no Host", "GET / HTTP/1.1\r\n\r\n", 400},
		{"a transfer coding", "POST /v1/payments HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 501},
		{"HTTP/2.5", "GET / HTTP/2.5\r\nHost: x\r\n\r\n", 505},
		{"a head too large", "GET / HTTP/1.1\r\nHost: x\r\nX-Pad: " + strings.Repeat("p", 20_000) + "\r\n\r\n", 431},
	} {
		resp, body := rawAnswer(t, base, tc.raw)
		var p struct {
			Type   string
			Status int
			Detail string
		}
		err := json.Unmarshal([]byte(body), &p)
		if resp.StatusCode != tc.status || resp.Header.Get("Content-Type") != "application/problem+json" || err != nil ||
			p.Status != tc.status || !strings.HasPrefix(p.Type, "/v1/problems/") || !resp.Close {
			t.Errorf("%s: %s, %q, closing %v: %s; want a %d problem, the connection closed", tc.name, resp.Status, resp.Header.Get("Content-Type"), resp.Close, body, tc.status)
		}
	}
}

// A request's line and header fields may take idemhttp.MaxHeaderBytes,
// not a byte more.
func TestAPIHeaderBytes(t *testing.T) {
	base, _, _, _ := startAPIWith(t, apiConfig{addr: "127.0.0.1:0", db: "memory", lease: time.Minute, ttl: time.Hour})
	head := func(n int) string {
		h := "GET / HTTP/1.1\r\nHost: x\r\nX-Pad: \r\n\r\n"
		return strings.Replace(h, "X-Pad: ", "X-Pad: "+strings.Repeat("p", n-len(h)), 1)
	}
	if resp, body := rawAnswer(t, base, head(idemhttp.MaxHeaderBytes)); resp.StatusCode != 200 {
		t.Fatalf("a head of %d bytes: %s %s, want 200", idemhttp.MaxHeaderBytes, resp.Status, body)
	}
	if resp, _ := rawAnswer(t, base, head(idemhttp.MaxHeaderBytes+1)); resp.StatusCode != 431 {
		t.Fatalf("a head of %d bytes: %s, want 431", idemhttp.MaxHeaderBytes+1, resp.Status)
	}
}

// heapInUse is the live heap after a collection.
func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}

// manyHeaders writes a request head of as many distinct one-letter
// header fields as fit in size bytes, the costliest header section per
// byte to parse (a map entry each), then body bytes of a body one byte
// longer: the request waits in the handler, its headers parsed and its
// body read so far held.
func manyHeaders(c net.Conn, size, body int) {
	var b bytes.Buffer
	b.WriteString("POST /v1/payments HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\nIdempotency-Key: k\r\nContent-Length: " + strconv.Itoa(body+1) + "\r\n")
	for i := 0; b.Len() < size-16; i++ {
		b.WriteString("A" + strconv.Itoa(i) + ":\r\n")
	}
	b.WriteString("\r\n")
	b.WriteString(strings.Repeat(" ", body))
	c.SetWriteDeadline(time.Now().Add(10 * time.Second))
	c.Write(b.Bytes()) // a server that refuses it early may reset the connection meanwhile
}

// What a connection may cost the server's memory is bounded: requests
// with the costliest header sections the server takes, held in the
// handler, each keep at most maxConnBytes of heap; and one that sends a
// megabyte of header fields is refused having cost no more.
func TestAPIMemoryPerConnection(t *testing.T) {
	base, _, _, _ := startAPIWith(t, apiConfig{addr: "127.0.0.1:0", db: "memory", lease: time.Minute, ttl: time.Hour,
		readHeader: time.Minute, read: time.Minute})
	for _, tc := range []struct {
		name       string
		conns      int
		size, body int
	}{
		{"a megabyte of header fields", 8, 1 << 20, 0},
		{"the largest head taken", 64, idemhttp.MaxHeaderBytes, 0},
		{"the largest head and all of the largest body but a byte", 64, idemhttp.MaxHeaderBytes, idemhttp.MaxBody - 1},
	} {
		before := heapInUse()
		var conns []net.Conn
		for range tc.conns {
			c := dial(t, base)
			manyHeaders(c, tc.size, tc.body)
			conns = append(conns, c)
		}
		time.Sleep(3 * time.Second) // for the server to read and parse them all
		per := (heapInUse() - before) / int64(tc.conns)
		t.Logf("%s, on %d connections: %d KB of heap each", tc.name, tc.conns, per>>10)
		for _, c := range conns {
			c.Close()
		}
		time.Sleep(time.Second) // for the server to let them go before the next baseline
		if per > maxConnBytes {
			t.Errorf("%s, on %d connections: %d KB of heap each, want at most %d KB", tc.name, tc.conns, per>>10, maxConnBytes>>10)
		}
	}
}

// At the cap, a new connection is taken in by closing the connection
// idle the longest: kept-alive connections that send nothing more cannot
// lock the next client out.
func TestAPIClosesIdleConnectionsFirstAtTheCap(t *testing.T) {
	base, _, _, _ := startAPIWith(t, apiConfig{addr: "127.0.0.1:0", db: "memory", lease: time.Minute, ttl: time.Hour,
		maxConns: 2, idle: time.Hour})
	get := func(c net.Conn) error {
		c.SetDeadline(time.Now().Add(5 * time.Second))
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		return err
	}
	first, second := dial(t, base), dial(t, base)
	for _, c := range []net.Conn{first, second} {
		if err := get(c); err != nil {
			t.Fatal(err)
		}
	}
	// Both idle, kept alive; first the longer.
	third := dial(t, base)
	if err := get(third); err != nil {
		t.Fatalf("a third connection while two idle ones held the cap of two: %v", err)
	}
	if !closedWithin(first, 5*time.Second) {
		t.Fatal("the connection idle the longest was not closed for the third")
	}
	if err := get(second); err != nil {
		t.Fatalf("the other idle connection was closed too: %v", err)
	}
}

// A connection still sending its request's head goes before one whose
// request runs: at the cap, the half-sent head is closed for the new
// connection, and the running request is not.
func TestAPIKeepsRunningRequestsAtTheCap(t *testing.T) {
	base, _, _, _ := startAPIWith(t, apiConfig{addr: "127.0.0.1:0", db: "memory", lease: time.Minute, ttl: time.Hour,
		maxConns: 2, readHeader: time.Minute, read: time.Minute})
	slow := dial(t, base)
	io.WriteString(slow, "POST /v1/payments HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\nIdempotency-Key: k\r\n"+
		"Retrylab-Fault: slow=3000\r\nContent-Length: 32\r\n\r\n"+`{"amount":2500,"currency":"usd"}`)
	time.Sleep(500 * time.Millisecond) // the payment is under way
	half := dial(t, base)
	io.WriteString(half, "GET / HTTP/1.1\r\n")
	time.Sleep(100 * time.Millisecond)
	third := dial(t, base)
	third.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(third, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	if resp, err := http.ReadResponse(bufio.NewReader(third), nil); err != nil || resp.StatusCode != 200 {
		t.Fatalf("a third connection while a half-sent head held a slot: %v %v", resp, err)
	}
	if !closedWithin(half, 5*time.Second) {
		t.Fatal("the half-sent head kept its connection")
	}
	slow.SetDeadline(time.Now().Add(10 * time.Second))
	if resp, err := http.ReadResponse(bufio.NewReader(slow), nil); err != nil || resp.StatusCode != 201 {
		t.Fatalf("the running payment: %v %v, want its 201", resp, err)
	}
}
