package idemhttp

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/retrylab/retrylab/engine/idem"
)

// Entry describes one handled request, for a log line.
type Entry struct {
	Time    time.Time
	Method  string
	Path    string
	Status  int    // 0 when the connection was dropped without an answer
	Outcome string // idem's outcome for a payment ("executed", "replayed", ...), a problem code, or "ok"
	Resumed string // for a takeover, the recovery point the work resumed from
	Account string
	Key     string
	Fault   string
	Took    time.Duration
}

// String is the entry as one log line.
func (e Entry) String() string {
	var b strings.Builder
	b.WriteString(plain(e.Method) + " " + plain(e.Path) + " ")
	if e.Status == 0 {
		b.WriteString("---")
	} else {
		b.WriteString(strconv.Itoa(e.Status))
	}
	b.WriteString(" " + e.Outcome)
	if e.Resumed != "" {
		b.WriteString(" (resumed from " + strconv.Quote(e.Resumed) + ")")
	}
	if e.Account != "" {
		b.WriteString(" " + e.Account)
	}
	if e.Key != "" {
		b.WriteString(" key=" + strconv.Quote(e.Key))
	}
	if e.Fault != "" {
		b.WriteString(" fault=" + e.Fault)
	}
	b.WriteString(" " + e.Took.Round(10*time.Microsecond).String())
	return b.String()
}

// plain is s as a log line shows what a client sent: as it is if it is
// short and plain (printable ASCII, no spaces), so that the common case
// reads as it was sent; otherwise quoted and cut short (idem.Excerpt),
// so that no value can make a line long or break it in two.
func plain(s string) string {
	const max = 64 // a path such as /v1/payments/pay_ and its 16-character id, with room
	if len(s) > max {
		return idem.Excerpt(s)
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' || s[i] == '"' {
			return idem.Excerpt(s)
		}
	}
	return s
}

// logging is the layer of a Sandbox that logs: it calls log once per
// request, once the request was answered or dropped, with what the layers
// below it noted in the request's Entry (entryOf).
type logging struct {
	next http.Handler
	log  func(Entry)
}

func (l logging) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := &record{Entry: Entry{Time: time.Now(), Method: r.Method, Path: r.URL.Path}, log: l.log}
	sw := &statusWriter{ResponseWriter: w}
	l.next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), recordKey{}, rec)))
	rec.finish(sw.status)
}

// record is a request's Entry while it is served.
type record struct {
	Entry
	log    func(Entry) // nil when nobody logs
	logged bool
}

type recordKey struct{}

// recordOf returns the record of the request ctx belongs to; one that
// nobody logs if no logging layer is above.
func recordOf(ctx context.Context) *record {
	if rec, ok := ctx.Value(recordKey{}).(*record); ok {
		return rec
	}
	return &record{}
}

// entryOf returns the Entry to note what is learnt of the request in.
func entryOf(ctx context.Context) *Entry { return &recordOf(ctx).Entry }

// finish logs the entry with status (0 for a dropped connection), once.
func (rec *record) finish(status int) {
	if rec.log == nil || rec.logged {
		return
	}
	rec.logged = true
	rec.Status, rec.Took = status, time.Since(rec.Time)
	if rec.Outcome == "" {
		rec.Outcome = "ok"
	}
	rec.log(rec.Entry)
}

// statusWriter notes the status written through it. Unwrap lets
// http.ResponseController reach the writer below, to take a connection
// over.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
