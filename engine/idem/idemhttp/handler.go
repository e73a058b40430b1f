package idemhttp

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"mime"
	"net"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/retrylab/retrylab/engine/idem"
	"github.com/retrylab/retrylab/engine/idem/ledger"
)

// Header names the API reads and writes.
const (
	KeyHeader      = "Idempotency-Key"
	ReplayedHeader = "Idempotent-Replayed"
)

// Handler serves the payments API over the Idempotency-Key protocol, and
// nothing else: no faults, no logging (Sandbox adds both).
//
//	POST /v1/payments        {"amount": 2500, "currency": "usd"}, with Idempotency-Key
//	GET  /v1/payments/{id}   one payment of the account
//	GET  /v1/charges         the account's card charges, newest first
//	GET  /v1/problems/{code} what an error type means
//
// Every /v1 request but the problems needs a bearer token, which names
// the account (AccountOf). Every error is application/problem+json.
//
// The zero Handler is not usable: set Store. The rest has defaults.
type Handler struct {
	Store ledger.Store
	// Clock is the key store's time; the system clock if nil.
	Clock idem.Clock
	// Lease and TTL are the keeper's (idem.Keeper): how long a claim holds
	// before a retry may take it over, and how long a key is remembered.
	// Zero means idem.DefaultLease and idem.DefaultTTL.
	Lease, TTL time.Duration
}

// answer is what the handler sends back.
type answer struct {
	status     int
	body       []byte
	replayed   bool   // Idempotent-Replayed: true
	retryAfter int    // seconds; Retry-After when > 0
	location   string // Location, for a new payment
	allow      string // Allow, for a 405
	// acceptEncoding is Accept-Encoding, for a 415 of a content coding:
	// the codings the request may use (RFC 7694).
	acceptEncoding string
	key            string // echoed in Idempotency-Key
	outcome        string // for the log: see Entry.Outcome
	resumed        string // for the log: see Entry.Resumed
}

// ServeHTTP implements http.Handler. What it learns of the request (its
// account, key and outcome) it notes for the log, if a Sandbox keeps one.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e := entryOf(r.Context())
	send(w, e, h.route(r, e))
}

// send notes a's outcome in e and writes a.
func send(w http.ResponseWriter, e *Entry, a answer) {
	e.Outcome, e.Resumed = a.outcome, a.resumed
	write(w, a)
}

// write sends a.
func write(w http.ResponseWriter, a answer) {
	hd := w.Header()
	if a.status >= 200 && a.status < 300 {
		hd.Set("Content-Type", "application/json")
	} else {
		hd.Set("Content-Type", "application/problem+json")
	}
	hd.Set("Content-Length", strconv.Itoa(len(a.body)))
	hd.Set("Cache-Control", "no-store")
	if a.key != "" {
		hd.Set(KeyHeader, a.key)
	}
	if a.replayed {
		hd.Set(ReplayedHeader, "true")
	}
	if a.retryAfter > 0 {
		hd.Set("Retry-After", strconv.Itoa(a.retryAfter))
	}
	if a.location != "" {
		hd.Set("Location", a.location)
	}
	if a.allow != "" {
		hd.Set("Allow", a.allow)
	}
	if a.acceptEncoding != "" {
		hd.Set("Accept-Encoding", a.acceptEncoding)
	}
	if a.status == http.StatusUnauthorized {
		hd.Set("WWW-Authenticate", `Bearer realm="retrylab sandbox"`)
	}
	w.WriteHeader(a.status)
	w.Write(a.body)
}

// route answers r by its method and path, as http.ServeMux would match
// routes' patterns, and returns the answer instead of writing it, so that
// ServeHTTP writes every answer, and notes it, in one place. A path no
// route has is a 404, and a path one has under another method a 405 that
// names the methods it takes (Allow), each as a problem.
func (h *Handler) route(r *http.Request, e *Entry) answer {
	p := r.URL.EscapedPath()
	// ServeMux redirects a path that is not clean (a // or a dot segment)
	// to the clean one; the API names no such path.
	if r.Method == http.MethodConnect || cleanPath(p) == p {
		for _, rt := range routes {
			if arg, ok := rt.match(p); ok && rt.takes(r.Method) {
				return rt.serve(h, r, e, arg)
			}
		}
		if allow := allowed(p); allow != "" {
			return methodNotAllowed(allow)
		}
	}
	return probNotFound.answer("no such path: " + idem.Excerpt(r.URL.Path))
}

// A route is a method and a path of the API, and what answers them.
type route struct {
	method string // GET routes answer HEAD too
	// path is the route's segments after a slash each: literal text, or
	// "{}" for one segment of any text but none, the argument of serve.
	// A path ending in a slash names that path alone ({$} in a ServeMux
	// pattern).
	path  string
	serve func(h *Handler, r *http.Request, e *Entry, arg string) answer
}

var routes = []route{
	{"GET", "/", home},
	{"GET", "/v1", home},
	{"GET", "/v1/", home},
	{"POST", "/v1/payments", func(h *Handler, r *http.Request, e *Entry, _ string) answer { return h.createPayment(r, e) }},
	{"GET", "/v1/problems/{}", func(_ *Handler, _ *http.Request, _ *Entry, code string) answer { return problemType(code) }},
	{"GET", "/v1/payments/{}", func(h *Handler, r *http.Request, e *Entry, id string) answer {
		return authorized(r, e, func(account string) answer { return h.getPayment(r, account, id) })
	}},
	{"GET", "/v1/charges", func(h *Handler, r *http.Request, e *Entry, _ string) answer {
		return authorized(r, e, func(account string) answer { return h.listCharges(r, account) })
	}},
}

// match reports whether p, a request's escaped path, is the route's,
// and the text of its wildcard segment, unescaped. Each segment is
// unescaped before it is compared, as ServeMux does, so %2F is part of a
// segment and not a slash.
func (rt route) match(p string) (arg string, ok bool) {
	want := strings.Split(rt.path[1:], "/")
	got := strings.Split(strings.TrimPrefix(p, "/"), "/")
	if len(got) != len(want) || !strings.HasPrefix(p, "/") {
		return "", false
	}
	for i, w := range want {
		seg := pathUnescape(got[i])
		switch {
		case w == "{}" && seg != "":
			arg = seg
		case w != seg:
			return "", false
		}
	}
	return arg, true
}

// takes reports whether the route answers method.
func (rt route) takes(method string) bool {
	return method == rt.method || method == http.MethodHead && rt.method == http.MethodGet
}

// allowed lists the methods some route takes at p, or at p with a slash
// added, sorted and comma-separated as ServeMux's Allow; "" if none.
func allowed(p string) string {
	set := map[string]bool{}
	for _, rt := range routes {
		_, ok := rt.match(p)
		if !ok && !strings.HasSuffix(p, "/") {
			_, ok = rt.match(p + "/")
		}
		if ok {
			set[rt.method] = true
			if rt.method == http.MethodGet {
				set[http.MethodHead] = true
			}
		}
	}
	return strings.Join(slices.Sorted(maps.Keys(set)), ", ")
}

// cleanPath is p with its dot segments and repeated slashes resolved, a
// trailing slash kept, as ServeMux cleans a request's path.
func cleanPath(p string) string {
	if p == "" {
		return "/"
	}
	if p[0] != '/' {
		p = "/" + p
	}
	clean := path.Clean(p)
	if p[len(p)-1] == '/' && clean != "/" {
		clean += "/"
	}
	return clean
}

// pathUnescape is a path segment unescaped, or as it is when it is not
// well escaped, as ServeMux reads a segment.
func pathUnescape(s string) string {
	u, err := url.PathUnescape(s)
	if err != nil {
		return s
	}
	return u
}

// home is the answer to GET / and GET /v1: the index.
func home(*Handler, *http.Request, *Entry, string) answer {
	return answer{status: http.StatusOK, body: index}
}

// problemType is the answer to GET /v1/problems/{code}: what the error
// type means.
func problemType(code string) answer {
	pr, ok := problems[code]
	if !ok {
		return probNotFound.answer("no problem type " + idem.Excerpt(code))
	}
	return answer{status: http.StatusOK, body: jsonBody(struct {
		Type        string `json:"type"`
		Title       string `json:"title"`
		Status      int    `json:"status"`
		Description string `json:"description"`
	}{pr.typeURI(), pr.title, pr.status, pr.about})}
}

// authorized answers with f, given the account of the request's bearer
// token, or answers 401.
func authorized(r *http.Request, e *Entry, f func(account string) answer) answer {
	account, err := accountOf(r.Header)
	if err != nil {
		return unauthorized(err)
	}
	e.Account = account
	return f(account)
}

// unauthorized is the 401 of an error of accountOf.
func unauthorized(err error) answer {
	var ae *AuthError
	if errors.As(err, &ae) {
		return probUnauthorized.answer(ae.Reason)
	}
	return probUnauthorized.answer(err.Error())
}

func methodNotAllowed(allow string) answer {
	a := probMethod.answer("this path takes " + allow)
	a.allow = allow
	return a
}

// index is the answer to GET /: what the API has, for a curious curl. It
// documents the sandbox as it is served (Sandbox), with Retrylab-Fault and
// its problem types, which the Handler alone does not act on.
var index = jsonBody(struct {
	Name      string   `json:"name"`
	Endpoints []string `json:"endpoints"`
	Headers   []string `json:"headers"`
	Problems  []string `json:"problems"`
}{
	Name: "retrylab sandbox payments API",
	Endpoints: []string{
		`POST /v1/payments {"amount": 2500, "currency": "usd"}`,
		"GET /v1/payments/{id}",
		"GET /v1/charges",
		"GET /v1/problems/{code}",
	},
	Headers: []string{
		"Authorization: Bearer TOKEN (any token: it names your sandbox account)",
		"Idempotency-Key: KEY (required on POST; 1 to 255 printable ASCII characters)",
		"Retrylab-Fault: " + FaultNames,
	},
	Problems: problemCodes(),
})

// jsonType reports whether a request's Content-Type may carry the JSON of
// a payment: none at all, application/json, or a JSON type such as
// application/merge-patch+json, with any parameters (charset=utf-8).
func jsonType(ct string) bool {
	if ct == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && (mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
}

// clock returns the handler's clock.
func (h *Handler) clock() idem.Clock {
	if h.Clock != nil {
		return h.Clock
	}
	return idem.ClockFunc(time.Now)
}

func (h *Handler) createPayment(r *http.Request, e *Entry) (a answer) {
	account, err := accountOf(r.Header)
	if err != nil {
		return unauthorized(err)
	}
	e.Account = account
	key, err := ParseKey(r.Header.Values(KeyHeader))
	var invalid *idem.KeyError
	switch {
	case errors.Is(err, idem.ErrMissingKey):
		return probMissingKey.answer("send an Idempotency-Key header, a new one for each payment, the same one on its retries")
	case errors.As(err, &invalid):
		return probInvalidKey.answer(invalid.Reason)
	case err != nil: // none of ParseKey's own: said as it is
		return probInvalidKey.answer(err.Error())
	}
	e.Key = key
	if ct := r.Header.Get("Content-Type"); !jsonType(ct) {
		return probUnsupportedType.answer("Content-Type is " + idem.Excerpt(ct) + "; send the body as application/json (curl: -H 'Content-Type: application/json')")
	}
	if ce := encoded(r.Header); ce != "" {
		a := probUnsupportedEncoding.answer("Content-Encoding is " + idem.Excerpt(ce) + "; send the body as it is, with no Content-Encoding")
		a.acceptEncoding = "identity"
		return a
	}
	if r.ContentLength > MaxBody {
		return probTooLarge.answer("Content-Length is " + strconv.FormatInt(r.ContentLength, 10) + " bytes; the limit is " + strconv.Itoa(MaxBody))
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
	switch {
	case err != nil:
		return bodyError(err, len(body), r.ContentLength)
	case len(body) > MaxBody:
		return probTooLarge.answer("the body is longer than " + strconv.Itoa(MaxBody) + " bytes")
	}
	req, err := ledger.ParsePayment(body)
	if err != nil {
		return probInvalidRequest.answer(err.Error())
	}

	// The payment goes on when the client hangs up, as a real server's
	// would: a lost response must not mean a lost payment.
	ctx := context.WithoutCancel(r.Context())
	keeper := idem.Keeper{Store: h.Store, Clock: h.clock(), Lease: h.Lease, TTL: h.TTL}
	var worked answer // the work's own answer, kept for a release
	resp, err := keeper.DoCanonical(ctx, account, key, req.Canonical(), func(ctx context.Context, c *idem.Claim) (int, []byte, error) {
		var werr error
		worked, werr = h.pay(ctx, c, req)
		return worked.status, worked.body, werr
	})
	switch {
	case errors.Is(err, idem.ErrNothingHappened), errors.Is(err, idem.ErrUnfinished):
		a = worked // resp.Outcome is Released, or the claim is left for a takeover
	case errors.Is(err, idem.ErrFull):
		a = h.full(err)
	case errors.Is(err, idem.ErrNotHeld):
		a = probKeyInUse.answer("this request's claim on the key was taken over by a retry while it ran; retry to get that one's answer")
		a.retryAfter = idem.RetryAfter
	case errors.Is(err, ledger.ErrNotWritten):
		a = probStoreBusy.answer("the key store was busy and did not record the request; nothing more was charged")
		a.retryAfter = idem.RetryAfter
	case err != nil:
		a = probInternal.answer("the key store failed: " + err.Error())
	case resp.Outcome == idem.Mismatch:
		a = probKeyReused.answer("key " + strconv.Quote(key) + " was first used with a different body; nothing was charged")
	case resp.Outcome == idem.InProgress:
		a = probKeyInUse.answer("key " + strconv.Quote(key) + " is still being processed; nothing more was charged")
		a.retryAfter = resp.RetryAfter
	default: // Executed or Replayed
		a = answer{status: resp.Status, body: resp.Body, replayed: resp.Outcome == idem.Replayed, resumed: resp.ResumedFrom}
		if a.status == http.StatusCreated {
			var p struct{ ID string }
			if json.Unmarshal(a.body, &p) == nil && p.ID != "" {
				a.location = "/v1/payments/" + p.ID
			}
		}
	}
	if resp.Outcome != "" {
		a.outcome = string(resp.Outcome)
	}
	a.key = key
	return a
}

// pay is the work of POST /v1/payments under a claimed key: choose the
// payment's id, charge the card for it, save the payment, each step
// recorded so that a takeover resumes after the last one that finished.
func (h *Handler) pay(ctx context.Context, c *idem.Claim, req ledger.PaymentRequest) (answer, error) {
	done := ledger.ParseProgress(c.RecoveryPoint())
	fresh := done.Payment == "" // no claimant before this one chose a payment, so none charged
	if fresh {
		done.Payment = newID("pay_")
		switch err := c.Checkpoint(ctx, done.String()); {
		case errors.Is(err, idem.ErrNotHeld):
			// A retry took the key over before this request began
			// anything: the retry's answer is the one to come.
			return answer{}, err
		case err != nil:
			// Nothing is charged yet: release the key for a clean retry.
			return storeFailed("recording the payment's start", err), idem.NothingHappened(err)
		}
	}
	payment := ledger.Payment{ID: done.Payment, Account: c.Account(), Amount: req.Amount, Currency: req.Currency,
		Status: ledger.PaymentSucceeded, Key: c.Key(), Created: c.Created(), Fence: c.Fence()}
	if done.Charge == "" {
		ch, _, err := h.Store.Charge(ctx, ledger.Charge{ID: newID("ch_"), Account: c.Account(), PaymentID: done.Payment,
			Amount: req.Amount, Currency: req.Currency, Key: c.Key(), Created: h.clock().Now(), Fence: c.Fence()})
		switch {
		case errors.Is(err, errTooManySlow):
			// Only a fresh payment is refused so: nothing charged.
			a := probTooManySlow.answer("the server slows down " + strconv.Itoa(MaxSlowAtOnce) + " requests at once, and has as many; nothing was charged")
			a.retryAfter = int(MaxSlow / time.Second) // by then every request slowed down now is past its wait
			return a, idem.NothingHappened(err)
		case errors.Is(err, ledger.ErrUnavailable) && fresh:
			// Nobody reached the card network for this payment: nothing
			// happened, and a retry may start afresh.
			a := probUnavailable.answer("the card network refused the connection; nothing was charged and nothing saved")
			a.retryAfter = idem.RetryAfter
			return a, idem.NothingHappened(err)
		case errors.Is(err, ledger.ErrDeclined):
			payment.Status = ledger.PaymentDeclined
			p, err := h.Store.SavePayment(ctx, payment)
			if err != nil {
				return probInternal.answer("saving the declined payment failed: " + err.Error()), err
			}
			return declined(p), nil
		case errors.Is(err, idem.ErrNotHeld):
			// A retry took the key over while this request was slow: it
			// charges, not this one.
			return probInternal.answer("lost the key to a retry"), err
		case errors.Is(err, ledger.ErrNotWritten) && fresh:
			// The store did not run the charge, and no claimant before
			// this one began the payment: nothing happened at all.
			return storeFailed("charging the card", err), idem.NothingHappened(err)
		case errors.Is(err, ledger.ErrNotWritten):
			// This charge did not run, but a claimant before this one may
			// have charged: neither a failure to save nor a clean slate.
			// The claim stays, for a takeover to finish after its lease.
			a := probStoreBusy.answer("the key store was busy and did not run the charge; the payment resumes on a retry once its claim's lease has run out")
			a.retryAfter = int((h.lease() + time.Second - 1) / time.Second)
			return a, idem.Unfinished(err)
		case err != nil:
			// Whether the charge was taken is unknown: the failure is saved,
			// as Stripe saves its 500s.
			return probInternal.answer("charging the card failed: " + err.Error()), err
		}
		done.Charge = ch.ID
		if err := c.Checkpoint(ctx, done.String()); errors.Is(err, idem.ErrNotHeld) {
			return probInternal.answer("lost the key to a retry"), err
		}
		// Another failure to checkpoint costs nothing: a takeover would
		// charge again through the Ledger's Charge and get this same charge.
	}
	payment.ChargeID = done.Charge
	p, err := h.Store.SavePayment(ctx, payment)
	if err != nil {
		return probInternal.answer("saving the payment failed after the charge: " + err.Error()), err
	}
	return paid(p), nil
}

// paid is the answer to a payment made: 201 and the payment.
func paid(p ledger.Payment) answer {
	return answer{status: http.StatusCreated, body: jsonBody(paymentJSON(p))}
}

// declined is the answer to a payment the card network declined.
func declined(p ledger.Payment) answer {
	return answer{status: probDeclined.status, body: jsonBody(problemDoc{Type: probDeclined.typeURI(), Title: probDeclined.title,
		Status: probDeclined.status, Detail: "the card network declined the charge of " + strconv.FormatInt(p.Amount, 10) + " " + p.Currency,
		Payment: p.ID})}
}

// full is the answer to a key the store had no room for (idem.ErrFull):
// 429 for an account holding its share, with the time its first
// finished key is forgotten; 503 for a store whose every key is in
// flight, with no Retry-After, since none is known.
func (h *Handler) full(err error) answer {
	var fe *idem.FullError
	if !errors.As(err, &fe) || !fe.Account {
		return probStoreFull.answer("every key the store may hold is in flight; nothing was charged")
	}
	a := probTooManyKeys.answer("this account holds " + strconv.Itoa(fe.Share) + " live keys, the most one account may; nothing was charged")
	if !fe.Free.IsZero() {
		a.retryAfter = secondsUntil(h.clock().Now(), fe.Free)
	}
	return a
}

// secondsUntil is the Retry-After of a wait until t: whole seconds,
// rounded up, at least 1.
func secondsUntil(now, t time.Time) int {
	return max(int((t.Sub(now)+time.Second-1)/time.Second), 1)
}

// finish is the work of a sweep over an abandoned payment claim (Sweep):
// what a takeover by the client's retry would do, from what the ledger
// holds instead of the request's body, which the store does not keep.
// A payment its claimant charged is saved and its 201 kept for the
// retry; one declined, its 402; one not charged, or not begun, is
// released: its claimant can charge nothing any more (the claim's fence
// moved on), so nothing happened, and a retry pays afresh.
func (h *Handler) finish(ctx context.Context, c *idem.Claim) (int, []byte, error) {
	done := ledger.ParseProgress(c.RecoveryPoint())
	if done.Payment == "" {
		return 0, nil, idem.NothingHappened(nil)
	}
	ch, charged, err := h.Store.ChargeOf(ctx, c.Account(), done.Payment)
	if err != nil {
		return 0, nil, idem.Unfinished(err)
	}
	if !charged {
		p, saved, err := h.Store.Payment(ctx, c.Account(), done.Payment)
		switch {
		case err != nil:
			return 0, nil, idem.Unfinished(err)
		case saved && p.Status == ledger.PaymentDeclined:
			a := declined(p)
			return a.status, a.body, nil
		}
		return 0, nil, idem.NothingHappened(nil)
	}
	p, err := h.Store.SavePayment(ctx, ledger.Payment{ID: done.Payment, Account: c.Account(), Amount: ch.Amount,
		Currency: ch.Currency, Status: ledger.PaymentSucceeded, ChargeID: ch.ID, Key: c.Key(), Created: c.Created(), Fence: c.Fence()})
	if err != nil {
		return 0, nil, idem.Unfinished(err)
	}
	a := paid(p)
	return a.status, a.body, nil
}

// Swept is what a sweep did.
type Swept struct {
	Finished int // abandoned payments saved, with the answer their retry gets
	Dropped  int // abandoned claims released: nothing had happened
}

// sweepBatch is how many abandoned claims a sweep reads at a time: 100,
// a tenth of the crashed claims the sandbox allows at once (MaxCrashes).
const sweepBatch = 100

// Sweep finishes the abandoned claims of payments: the in-flight keys
// whose lease ran out and which no retry took over (a crashed server's,
// or crash-after-charge's), each as a takeover would (finish), so that
// none stays in flight for ever. A client's retry of a finished one is
// answered its saved 201 or 402; of a dropped one, it pays afresh, once.
// It goes on while claims are finished, and returns the failures of
// those it could not (left for the next sweep).
func (h *Handler) Sweep(ctx context.Context) (Swept, error) {
	keeper := idem.Keeper{Store: h.Store, Clock: h.clock(), Lease: h.Lease, TTL: h.TTL}
	var sw Swept
	var errs []error
	for {
		recs, err := h.Store.Abandoned(ctx, keeper.Clock.Now(), sweepBatch)
		if err != nil {
			return sw, errors.Join(append(errs, err)...)
		}
		progressed := false
		for _, rec := range recs {
			resp, err := keeper.Finish(ctx, rec, h.finish)
			switch {
			case errors.Is(err, idem.ErrNothingHappened):
				sw.Dropped++
				progressed = true
			case err != nil:
				errs = append(errs, err)
			case resp.Outcome == idem.Executed:
				sw.Finished++
				progressed = true
			}
		}
		if len(recs) < sweepBatch || !progressed {
			return sw, errors.Join(errs...)
		}
	}
}

// storeFailed is the answer to a failed store step of a payment that
// had not begun: a 503 to retry soon if the store did not run it
// (ledger.ErrNotWritten), a 500 otherwise.
func storeFailed(step string, err error) answer {
	if errors.Is(err, ledger.ErrNotWritten) {
		a := probStoreBusy.answer("the key store was busy: " + step + " did not run; nothing was charged and nothing saved")
		a.retryAfter = idem.RetryAfter
		return a
	}
	return probInternal.answer(step + " failed: " + err.Error())
}

// lease is the keeper's lease.
func (h *Handler) lease() time.Duration {
	if h.Lease > 0 {
		return h.Lease
	}
	return idem.DefaultLease
}

// encoded returns the request's content coding, "" for none: the API
// reads bodies as they are sent, and a coding it does not undo would be
// read as the payment.
func encoded(hd http.Header) string {
	for _, v := range hd.Values("Content-Encoding") {
		for c := range strings.SplitSeq(v, ",") {
			if c = strings.Trim(c, " \t"); c != "" && !strings.EqualFold(c, "identity") {
				return c
			}
		}
	}
	return ""
}

// bodyError is the answer to a body that failed after n bytes of the
// length bytes its Content-Length announced (-1 for none): what went
// wrong in the client's terms, never the connection's addresses.
func bodyError(err error, n int, length int64) answer {
	got := strconv.Itoa(n) + " bytes"
	if length >= 0 {
		got = strconv.Itoa(n) + " of the " + strconv.FormatInt(length, 10) + " bytes its Content-Length announced"
	}
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return probRequestTimeout.answer("the body did not arrive in time: " + got + " came")
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return probInvalidRequest.answer("the body ended after " + got)
	case errors.As(err, new(*net.OpError)):
		return probInvalidRequest.answer("the connection failed after " + got + " of the body")
	}
	return probInvalidRequest.answer("the body could not be read after " + got + ": " + idem.Excerpt(err.Error()))
}

// paymentDoc is a payment's JSON.
type paymentDoc struct {
	ID             string `json:"id"`
	Object         string `json:"object"`
	Amount         int64  `json:"amount"`
	Currency       string `json:"currency"`
	Status         string `json:"status"`
	Charge         string `json:"charge,omitempty"`
	IdempotencyKey string `json:"idempotency_key"`
	Created        int64  `json:"created"`
}

func paymentJSON(p ledger.Payment) paymentDoc {
	return paymentDoc{ID: p.ID, Object: "payment", Amount: p.Amount, Currency: p.Currency, Status: p.Status,
		Charge: p.ChargeID, IdempotencyKey: p.Key, Created: p.Created.Unix()}
}

func (h *Handler) getPayment(r *http.Request, account, id string) answer {
	p, ok, err := h.Store.Payment(r.Context(), account, id)
	switch {
	case err != nil:
		return probInternal.answer("reading the payment failed: " + err.Error())
	case !ok:
		return probNotFound.answer("no payment " + idem.Excerpt(id) + " in this account")
	}
	return answer{status: http.StatusOK, body: jsonBody(paymentJSON(p))}
}

// Limits of GET /v1/charges?limit=N.
const (
	defaultChargeLimit = 100
	maxChargeLimit     = 1000
)

func (h *Handler) listCharges(r *http.Request, account string) answer {
	q := r.URL.Query()
	page := ledger.Page{Limit: defaultChargeLimit, StartingAfter: q.Get("starting_after")}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxChargeLimit {
			return probInvalidRequest.answer("limit=" + idem.Excerpt(s) + ": want a whole number from 1 to " + strconv.Itoa(maxChargeLimit))
		}
		page.Limit = n
	}
	charges, hasMore, err := h.Store.Charges(r.Context(), account, page)
	switch {
	case errors.Is(err, ledger.ErrNoSuchCharge):
		return probInvalidRequest.answer("starting_after=" + idem.Excerpt(page.StartingAfter) + ": no such charge in this account")
	case err != nil:
		return probInternal.answer("reading the charges failed: " + err.Error())
	}
	type chargeDoc struct {
		ID             string `json:"id"`
		Object         string `json:"object"`
		Amount         int64  `json:"amount"`
		Currency       string `json:"currency"`
		Payment        string `json:"payment"`
		IdempotencyKey string `json:"idempotency_key"`
		Created        int64  `json:"created"`
	}
	doc := struct {
		Object  string      `json:"object"`
		Account string      `json:"account"`
		HasMore bool        `json:"has_more"`
		Data    []chargeDoc `json:"data"`
	}{Object: "list", Account: account, HasMore: hasMore, Data: []chargeDoc{}}
	for _, c := range charges {
		doc.Data = append(doc.Data, chargeDoc{c.ID, "charge", c.Amount, c.Currency, c.PaymentID, c.Key, c.Created.Unix()})
	}
	return answer{status: http.StatusOK, body: jsonBody(doc)}
}

// newID returns prefix and 16 random base-32 characters (80 bits): ids
// that no two servers, nor two runs of one, will ever both make.
func newID(prefix string) string {
	var b [10]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("idemhttp: no randomness: " + err.Error())
	}
	return prefix + strings.ToLower(base32.StdEncoding.EncodeToString(b[:]))
}
