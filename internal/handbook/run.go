package handbook

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/retrylab/retrylab/engine/idem"
	"github.com/retrylab/retrylab/engine/idem/idemhttp"
	"github.com/retrylab/retrylab/engine/idem/ledger"
)

// Addresses the handbook's curls may name: where `retrylab api` listens
// unless told otherwise, and where `make serve` does, which answers the
// same API at /v1/.
const (
	APIAddr   = "localhost:8787"
	ServeAddr = "localhost:8080"
)

// Start is the time on the virtual clock when a chapter's sessions
// begin: the sessions are run on a clock that moves only with their
// sleep commands and the waits they imply, so that a Retry-After is the
// same on every run.
var Start = time.Date(2026, 11, 30, 1, 59, 21, 0, time.UTC)

// A Runner runs one chapter's sessions, in order, against the sandbox
// API as `retrylab api --db memory` and `make serve` serve it
// (idemhttp.Sandbox over a ledger.MemoryStore): the state one session
// leaves, another finds. A `retrylab api` command in a session starts
// the server afresh with its flags (--lease, --ttl, --addr; the store
// is always memory). Close it when done.
type Runner struct {
	clock *idem.ManualClock
	srv   *httptest.Server
	addr  string // the address the chapter's curls name, as --addr set it
	jobs  []chan struct{}
	// Curls counts the curls run.
	Curls int
}

// NewRunner starts the sandbox with its default lease and TTL.
func NewRunner() *Runner {
	r := &Runner{clock: idem.NewManualClock(Start)}
	r.start(idem.DefaultLease, idem.DefaultTTL, APIAddr)
	return r
}

// Close stops the server.
func (r *Runner) Close() {
	r.wait()
	r.srv.Close()
}

func (r *Runner) start(lease, ttl time.Duration, addr string) {
	if r.srv != nil {
		r.wait()
		r.srv.Close()
	}
	r.srv = httptest.NewServer(&idemhttp.Sandbox{Store: ledger.NewMemoryStore(), Clock: r.clock, Lease: lease, TTL: ttl})
	r.addr = addr
}

// Run runs a session and returns every way in which the API's answers
// differ from what the page shows, each error naming its line. Jobs a
// session starts in the background are waited for before the next
// session runs, the way a reader who goes on to the next block has
// waited for them.
func (r *Runner) Run(s Session) error {
	r.wait()
	var errs []error
	shown := s.Output
	next := func(c Command) (Shown, bool) {
		if s.Output == nil {
			return Shown{}, false
		}
		if len(shown) == 0 {
			errs = append(errs, fmt.Errorf("%d: %s: the page shows no output for it", c.Line, c))
			return Shown{}, false
		}
		sh := shown[0]
		shown = shown[1:]
		return sh, true
	}
	for _, c := range s.Commands {
		if args, ok := apiArgs(c); ok {
			if err := r.restart(c, args); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		switch {
		case c.Curl():
			cr, err := parseCurl(c)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if err := r.checkHost(c, cr); err != nil {
				errs = append(errs, err)
				continue
			}
			r.Curls++
			if c.Background {
				r.background(cr)
				continue
			}
			got := r.do(cr)
			if c.Redirect != "" {
				continue
			}
			if sh, ok := next(c); ok {
				errs = append(errs, compare(c, cr, sh, got)...)
			} else if s.Output == nil && got.err == nil && got.resp.StatusCode >= 400 {
				errs = append(errs, fmt.Errorf("%d: %s: the API answers %s%s, and the page shows no output to say so", c.Line, c, got.statusLine(), got.detail()))
			}
		case len(c.Words) == 2 && c.Words[0] == "sleep":
			secs, err := strconv.ParseFloat(c.Words[1], 64)
			if err != nil || secs < 0 {
				errs = append(errs, fmt.Errorf("%d: sleep %s: want a number of seconds", c.Line, c.Words[1]))
				continue
			}
			r.clock.Advance(time.Duration(secs * float64(time.Second)))
		default:
			errs = append(errs, fmt.Errorf("%d: %s: a curl session runs curl, sleep and retrylab api only", c.Line, c))
		}
	}
	if len(shown) > 0 {
		errs = append(errs, fmt.Errorf("%d: the page shows more output than the session's commands print", shown[0].Line))
	}
	return errors.Join(errs...)
}

// restart starts the server afresh with the flags of a `retrylab api`
// command, refusing the flags the real command would refuse.
func (r *Runner) restart(c Command, args []string) error {
	fs := flag.NewFlagSet("retrylab api", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	lease := fs.Duration("lease", idem.DefaultLease, "")
	ttl := fs.Duration("ttl", idem.DefaultTTL, "")
	addr := fs.String("addr", APIAddr, "")
	fs.String("db", "retrylab.db", "") // the runner keeps every store in memory
	fs.String("site-origins", "", "")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%d: %s: %v", c.Line, c, err)
	}
	if err := idem.CheckWindows(*lease, *ttl); err != nil {
		return fmt.Errorf("%d: %s: %v", c.Line, c, err)
	}
	r.start(*lease, *ttl, *addr)
	return nil
}

// checkHost makes sure a curl names the server the reader runs.
func (r *Runner) checkHost(c Command, cr curlRequest) error {
	host := cr.host
	if host == r.addr || host == ServeAddr {
		return nil
	}
	return fmt.Errorf("%d: %s: the curl goes to %s; the sandbox listens on %s (retrylab api) or %s (make serve)", c.Line, c, host, r.addr, ServeAddr)
}

// A curlRequest is what a curl command sends.
type curlRequest struct {
	method, host, path string
	header             http.Header
	body               string
	hasBody            bool
	include            bool // -i: the status line and headers are printed
}

// parseCurl reads the options of a curl command that the handbook uses,
// and sends what curl would: -d makes it a POST with the form type
// curl gives it unless -H sets Content-Type.
func parseCurl(c Command) (curlRequest, error) {
	cr := curlRequest{header: http.Header{}}
	if c.Expands {
		return cr, fmt.Errorf("%d: %s: a $ in the command would be the shell's, not the page's", c.Line, c)
	}
	url := curlURL(c.Words)
	w := c.Words[1:]
	for i := 0; i < len(w); i++ {
		a := w[i]
		arg := func() (string, error) {
			if i+1 >= len(w) {
				return "", fmt.Errorf("%d: %s: %s needs a value", c.Line, c, a)
			}
			i++
			return w[i], nil
		}
		switch {
		case a == "-H" || a == "--header":
			v, err := arg()
			if err != nil {
				return cr, err
			}
			name, value, ok := strings.Cut(v, ":")
			if !ok {
				return cr, fmt.Errorf("%d: %s: header %q has no colon", c.Line, c, v)
			}
			cr.header.Add(strings.TrimSpace(name), strings.TrimSpace(value))
		case a == "-d" || a == "--data" || a == "--data-raw" || a == "--data-binary":
			v, err := arg()
			if err != nil {
				return cr, err
			}
			if strings.HasPrefix(v, "@") && a != "--data-raw" {
				return cr, fmt.Errorf("%d: %s: %s @FILE reads a file the page does not show", c.Line, c, a)
			}
			if cr.hasBody {
				cr.body += "&"
			}
			cr.body += v
			cr.hasBody = true
		case a == "-X" || a == "--request":
			v, err := arg()
			if err != nil {
				return cr, err
			}
			cr.method = v
		case a == "--include":
			cr.include = true
		case a == "--silent":
		case strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Trim(a[1:], "is") == "" && len(a) > 1:
			cr.include = cr.include || strings.Contains(a, "i")
		case strings.HasPrefix(a, "-"):
			return cr, fmt.Errorf("%d: %s: the test does not know curl's %s (it knows -i, -s, -H, -d, -X)", c.Line, c, a)
		case a != url:
			return cr, fmt.Errorf("%d: %s: two URLs, %s and %s", c.Line, c, url, a)
		}
	}
	if url == "" {
		return cr, fmt.Errorf("%d: %s: no URL", c.Line, c)
	}
	url = strings.TrimPrefix(url, "http://")
	if strings.Contains(url, "://") {
		return cr, fmt.Errorf("%d: %s: the sandbox speaks plain http", c.Line, c)
	}
	cr.host, cr.path, _ = strings.Cut(url, "/")
	cr.path = "/" + cr.path
	switch {
	case cr.method != "":
	case cr.hasBody:
		cr.method = http.MethodPost
	default:
		cr.method = http.MethodGet
	}
	if cr.hasBody && cr.header.Get("Content-Type") == "" {
		cr.header.Set("Content-Type", "application/x-www-form-urlencoded") // what curl's -d sends
	}
	return cr, nil
}

// An answer is what a curl got: a response with its body read, or the
// error of a connection that gave none.
type answer struct {
	resp *http.Response
	body []byte
	err  error
}

// statusLine is the line curl -i prints first, or the error line curl
// prints instead.
func (a answer) statusLine() string {
	if a.err != nil {
		if errors.Is(a.err, io.EOF) || errors.Is(a.err, io.ErrUnexpectedEOF) {
			return "curl: (52) Empty reply from server"
		}
		return "curl: " + a.err.Error()
	}
	return a.resp.Proto + " " + a.resp.Status
}

// detail is the problem document's detail of an error answer, for a
// message that says why: ` ("...")`, or "".
func (a answer) detail() string {
	var p struct{ Detail string }
	if a.err != nil || json.Unmarshal(a.body, &p) != nil || p.Detail == "" {
		return ""
	}
	return fmt.Sprintf(" (%q)", p.Detail)
}

// do sends a curl's request on a connection of its own, as curl does:
// reusing one would let Go's transport resend a keyed POST whose
// connection closed without an answer, which curl never does.
func (r *Runner) do(cr curlRequest) answer {
	var body io.Reader
	if cr.hasBody {
		body = strings.NewReader(cr.body)
	}
	req, err := http.NewRequestWithContext(context.Background(), cr.method, r.srv.URL+cr.path, body)
	if err != nil {
		return answer{err: err}
	}
	req.Header = cr.header.Clone()
	req.Header.Set("User-Agent", "curl/8")
	req.Header.Set("Accept", "*/*")
	client := &http.Client{
		Transport: &http.Transport{DisableKeepAlives: true, DisableCompression: true},
		// A lease the session waits out is virtual; a request stuck for
		// this long is a handler stuck for good.
		Timeout:       time.Minute,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	resp, err := client.Do(req)
	if err != nil {
		return answer{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return answer{resp: resp, body: b, err: err}
}

// background sends a curl's request on its own while the session goes
// on, and returns once the request is under way: answered, or waiting
// on the virtual clock (slow=MS) with its claim made.
func (r *Runner) background(cr curlRequest) {
	sleepers := r.clock.Sleepers()
	done := make(chan struct{})
	r.jobs = append(r.jobs, done)
	go func() {
		r.do(cr)
		close(done)
	}()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		select {
		case <-done:
			return
		case <-time.After(time.Millisecond):
		}
		if r.clock.Sleepers() > sleepers {
			return
		}
	}
}

// wait lets the background jobs finish, moving the virtual clock on
// for the ones waiting on it.
func (r *Runner) wait() {
	for _, done := range r.jobs {
		for {
			select {
			case <-done:
			case <-time.After(time.Millisecond):
				if r.clock.Sleepers() > 0 {
					r.clock.Advance(100 * time.Millisecond)
				}
				continue
			}
			break
		}
	}
	r.jobs = nil
}

// randomID is an id the API makes afresh on every run: a payment's or a
// charge's, 16 base-32 characters after its prefix.
var randomID = regexp.MustCompile(`\b(pay|ch)_[a-z2-7]{16}\b`)

// compare lists how an answer differs from what the page shows of it:
// the status line, and each header shown. The values of Date and
// Content-Length are not compared (the one is the wall clock's, the
// other follows the body, which is not compared), nor the random part
// of the ids in a Location. Unless the page abridges the answer with
// "...", every header of the answer must be shown. A body shown
// without -i is checked only for the status it implies: the "status"
// of a problem document, else a success.
func compare(c Command, cr curlRequest, sh Shown, got answer) []error {
	var errs []error
	fail := func(line int, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%d: %s: %s", line, c, fmt.Sprintf(format, args...)))
	}
	status := got.statusLine()
	switch {
	case sh.Failed() || got.err != nil:
		if sh.Status != status {
			want := sh.Status
			if want == "" {
				want = "a body"
			}
			fail(sh.Line, "the page shows %s, the API answers %s%s", want, status, got.detail())
		}
		return errs
	case !cr.include:
		if sh.Status != "" {
			fail(sh.Line, "the page shows %s, but without -i curl prints no status line", sh.Status)
		}
		want := 0
		var doc struct{ Status int }
		if json.Unmarshal([]byte(sh.Body), &doc) == nil {
			want = doc.Status
		}
		if want == 0 && (got.resp.StatusCode < 200 || got.resp.StatusCode > 299) || want != 0 && want != got.resp.StatusCode {
			fail(sh.Line, "the page shows a body for a success, the API answers %s%s", status, got.detail())
		}
		return errs
	case sh.Status == "":
		fail(sh.Line, "curl -i prints the status line first; the page shows a body")
		return errs
	case sh.Status != status:
		fail(sh.Line, "the page shows %s, the API answers %s%s", sh.Status, status, got.detail())
		return errs
	}
	shown := map[string]bool{}
	for _, h := range sh.Headers {
		name := http.CanonicalHeaderKey(h.Name)
		shown[name] = true
		values := got.resp.Header.Values(name)
		switch {
		case len(values) == 0:
			fail(h.Line, "the page shows %s, the API sends no %s", h.Name+": "+h.Value, name)
		case name == "Date" || name == "Content-Length":
		case randomID.ReplaceAllString(h.Value, "${1}_*") != randomID.ReplaceAllString(values[0], "${1}_*"):
			fail(h.Line, "the page shows %s: %s, the API sends %s: %s", h.Name, h.Value, name, values[0])
		}
	}
	if !sh.Abridged {
		var missing []string
		for name := range got.resp.Header {
			if !shown[name] {
				missing = append(missing, name+": "+got.resp.Header.Get(name))
			}
		}
		sort.Strings(missing)
		if len(missing) > 0 {
			fail(sh.Line, "the API also sends %s; show it, or end the headers with a line \"...\"", strings.Join(missing, ", "))
		}
	}
	return errs
}
