package check

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Header names the checker reads and writes.
const (
	keyHeader      = "Idempotency-Key"
	replayedHeader = "Idempotent-Replayed"
)

// client sends the checks' requests to one endpoint.
type client struct {
	cfg     Config
	url     string
	addr    string // host:port, the only address ever dialed
	hdrAuth bool   // Config.Header sets Authorization
	http    *http.Client
	dial    *dialer
	sent    atomic.Int64
}

func newClient(cfg Config) (*client, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q is not an http or https URL", cfg.URL)
	}
	if u.User != nil {
		return nil, fmt.Errorf("%q has a user name in it: send credentials with a token or a header instead", cfg.URL)
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	d := &dialer{addr: net.JoinHostPort(u.Hostname(), port)}
	if u.Scheme == "https" {
		d.tls = &tls.Config{ServerName: u.Hostname(), NextProtos: []string{"http/1.1"}, MinVersion: tls.VersionTLS12}
	}
	t := &http.Transport{
		Proxy: nil, // straight to the URL's host, whatever HTTPS_PROXY says
		// One connection per request: no request is ever resent by the
		// transport on a new connection, which it does for a keyed POST
		// whose kept-alive connection closed under it.
		DisableKeepAlives: true,
		// No Accept-Encoding: each answer's body is compared as the
		// server wrote it, and the checker asks nothing of the server
		// that a plain client would not.
		DisableCompression: true,
		// HTTP/1.1 only, so that the concurrent check's requests are each
		// on a connection of their own, as separate clients' would be.
		ForceAttemptHTTP2: false,
	}
	if d.tls != nil {
		t.DialTLSContext = d.dialConn
		t.DialContext = d.refuse
	} else {
		t.DialContext = d.dialConn
	}
	hc := &http.Client{
		Transport: t,
		// A redirect is an answer to report, never an address to follow.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	for name := range cfg.Header {
		switch name = http.CanonicalHeaderKey(name); name {
		case keyHeader:
			return nil, errors.New("--header " + name + ": the checker sends it itself, a new key for every check")
		case "Content-Length", "Transfer-Encoding", "Connection":
			return nil, errors.New("--header " + name + ": the checker sets it itself")
		case "Content-Encoding":
			return nil, errors.New("--header " + name + ": the checker sends its bodies as they are, which a Content-Encoding would misdescribe")
		}
	}
	u.Fragment = ""
	return &client{cfg: cfg, url: u.String(), addr: d.addr, hdrAuth: cfg.Header.Get("Authorization") != "", http: hc, dial: d}, nil
}

func (c *client) close() {
	c.dial.drain()
	c.http.CloseIdleConnections()
}

// dialer connects to one address only, and can hold connections made
// ahead of time.
type dialer struct {
	addr  string
	tls   *tls.Config // nil for http
	net   net.Dialer
	mu    sync.Mutex
	ready []net.Conn // made by warm, not yet used
}

func (d *dialer) dialConn(ctx context.Context, _, addr string) (net.Conn, error) {
	if addr != d.addr {
		return d.refuse(ctx, "tcp", addr)
	}
	d.mu.Lock()
	if n := len(d.ready); n > 0 {
		conn := d.ready[n-1]
		d.ready = d.ready[:n-1]
		d.mu.Unlock()
		return conn, nil
	}
	d.mu.Unlock()
	return d.fresh(ctx)
}

func (d *dialer) refuse(_ context.Context, _, addr string) (net.Conn, error) {
	return nil, fmt.Errorf("not connecting to %s: the checker connects to %s only", addr, d.addr)
}

func (d *dialer) fresh(ctx context.Context) (net.Conn, error) {
	conn, err := d.net.DialContext(ctx, "tcp", d.addr)
	if err != nil || d.tls == nil {
		return conn, err
	}
	tc := tls.Client(conn, d.tls)
	if err := tc.HandshakeContext(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	return tc, nil
}

// warm makes n connections at once, TLS handshakes done, for the next n
// requests to use, so that requests released together reach the server
// together rather than one connection set-up apart.
func (d *dialer) warm(ctx context.Context, n int) error {
	conns := make([]net.Conn, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { conns[i], errs[i] = d.fresh(ctx) })
	}
	wg.Wait()
	d.mu.Lock()
	defer d.mu.Unlock()
	for i, conn := range conns {
		if errs[i] == nil {
			d.ready = append(d.ready, conn)
		}
	}
	return errors.Join(errs...)
}

// drain closes the connections warm made that no request used.
func (d *dialer) drain() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, conn := range d.ready {
		conn.Close()
	}
	d.ready = nil
}

// An answer is what one request got.
type answer struct {
	Status     int
	Replayed   bool   // Idempotent-Replayed: true
	RetryAfter string // the Retry-After field
	Location   string
	Body       []byte
	ID         string // the new resource's id, from a 2xx body
	Err        error  // no answer at all
}

// ok reports whether the answer is a 2xx.
func (a answer) ok() bool { return a.Err == nil && a.Status >= 200 && a.Status < 300 }

// String says the answer in a few words: `201 with id "pay_1"`, `409`,
// `no answer (...)`.
func (a answer) String() string {
	switch {
	case a.Err != nil:
		return "no answer (" + a.Err.Error() + ")"
	case a.ok() && a.ID != "":
		return fmt.Sprintf("%d with id %q", a.Status, a.ID)
	case a.ok():
		return fmt.Sprintf("%d with no id", a.Status)
	}
	return strconv.Itoa(a.Status)
}

// A request is one POST's parts.
type request struct {
	key     string // "" sends no Idempotency-Key
	body    []byte
	account int // 0: Config.Token's; 1: Config.OtherToken's
}

// do sends r and reads its answer.
func (c *client) do(ctx context.Context, r request) answer {
	req, err := c.newRequest(ctx, r)
	if err != nil {
		return answer{Err: err}
	}
	return c.send(req)
}

func (c *client) newRequest(ctx context.Context, r request) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(r.body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if !c.hdrAuth {
		token := c.cfg.Token
		if r.account == 1 {
			token = c.cfg.OtherToken
		}
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for name, vs := range c.cfg.Header {
		if strings.EqualFold(name, "Host") {
			req.Host = vs[0]
			continue
		}
		req.Header[http.CanonicalHeaderKey(name)] = vs
	}
	if r.key != "" {
		req.Header.Set(keyHeader, r.key)
	}
	return req, nil
}

// send sends a request made by newRequest, within RequestTimeout.
func (c *client) send(req *http.Request) answer {
	ctx, cancel := context.WithTimeout(req.Context(), RequestTimeout)
	defer cancel()
	c.sent.Add(1)
	resp, err := c.http.Do(req.WithContext(ctx))
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return answer{Err: err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return answer{Err: fmt.Errorf("reading the %d answer: %w", resp.StatusCode, err)}
	}
	a := answer{Status: resp.StatusCode, Body: body, Replayed: strings.EqualFold(resp.Header.Get(replayedHeader), "true"),
		RetryAfter: resp.Header.Get("Retry-After"), Location: resp.Header.Get("Location")}
	if a.ok() {
		a.ID = idOf(body, c.cfg.IDField)
	}
	return a
}

// idOf finds the member at field (names joined by dots) in a JSON body:
// a string, or a number as written; "" when there is none.
func idOf(body []byte, field string) string {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return ""
	}
	for name := range strings.SplitSeq(field, ".") {
		obj, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = obj[name]
	}
	switch id := v.(type) {
	case string:
		return id
	case json.Number:
		return id.String()
	}
	return ""
}

// newKey returns a new random key: a version 4 UUID, the form the draft
// recommends, which any server's key syntax accepts.
func newKey() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // the RFC 9562 variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// preflight sends one ordinary request, to learn that the URL answers and
// that the flags make a request the server carries out, with an id where
// Config.IDField says. Without that no check could tell anything.
func (c *client) preflight(ctx context.Context) error {
	a := c.do(ctx, request{key: newKey(), body: c.cfg.Body})
	switch {
	case a.Err != nil:
		return &SetupError{fmt.Sprintf("POST %s: %v", c.url, a.Err)}
	case a.Status >= 300 && a.Status < 400:
		where := ""
		if a.Location != "" {
			where = " to " + a.Location
		}
		return &SetupError{fmt.Sprintf("POST %s answered %d%s; the checker follows no redirect: give it the URL the API answers on", c.url, a.Status, where)}
	case !a.ok():
		return &SetupError{fmt.Sprintf("POST %s answered %d, so no check can run: the checks need a request the server carries out (see --token, --header and --body): %s",
			c.url, a.Status, excerpt(a.Body))}
	case a.ID == "":
		return &SetupError{fmt.Sprintf("POST %s answered %d, with no id at %q in its body (name the field with --id-field): %s",
			c.url, a.Status, c.cfg.IDField, excerpt(a.Body))}
	}
	return nil
}

// excerpt is the start of a body, on one line, for a message.
func excerpt(b []byte) string {
	const max = 200 // enough to show a problem's title and detail
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > max {
		s = s[:max] + "..."
	}
	if s == "" {
		return "(an empty body)"
	}
	return s
}

// burst sends n copies of r at the same instant, on connections made
// beforehand, and returns their answers in no particular order.
func (c *client) burst(ctx context.Context, r request, n int) []answer {
	reqs := make([]*http.Request, n)
	for i := range reqs {
		req, err := c.newRequest(ctx, r)
		if err != nil {
			return []answer{{Err: err}}
		}
		reqs[i] = req
	}
	wctx, cancel := context.WithTimeout(ctx, RequestTimeout)
	c.dial.warm(wctx, n) // a connection that failed is made again by the request
	cancel()
	answers := make([]answer, n)
	release := make(chan struct{})
	var ready, done sync.WaitGroup
	ready.Add(n)
	for i, req := range reqs {
		done.Go(func() {
			ready.Done()
			<-release
			answers[i] = c.send(req)
		})
	}
	ready.Wait()
	close(release)
	done.Wait()
	c.dial.drain()
	return answers
}
