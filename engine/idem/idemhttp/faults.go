package idemhttp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/retrylab/retrylab/engine/idem"
	"github.com/retrylab/retrylab/engine/idem/ledger"
)

// FaultHeader is the header that asks the sandbox to fail on purpose.
const FaultHeader = "Retrylab-Fault"

// MaxSlow is the longest delay slow=MS may ask for: 10 s, the card
// network call the lease arithmetic in idem.DefaultLease allows for, so
// that a slow request is still within its lease.
const MaxSlow = 10 * time.Second

// MaxSlowAtOnce is how many requests a Sandbox slows down at once, for
// slow=MS: 64, an eighth of retrylab api's 512 connections, so that slow
// requests, which hold a connection for up to MaxSlow while their work
// waits, cannot take every connection. The next payment to begin is
// refused with 429, nothing done (faultStore.slow).
const MaxSlowAtOnce = 64

// errTooManySlow is faultStore's error for a payment it would slow down
// past MaxSlowAtOnce.
var errTooManySlow = errors.New("idemhttp: as many requests are slowed down as may be")

// Faults are what a request asks the server to do wrong, with the
// Retrylab-Fault header: a comma-separated list of
//
//	lose-request        the request never arrives: nothing happens, no answer
//	lose-response       the work is done, then the answer is lost
//	slow=MS             the work takes MS milliseconds longer (0 to 10000)
//	crash-after-charge  the server dies once it has charged the card
//	decline             the card network declines the card (402, saved)
//	unavailable         the card network cannot be reached (503, not saved)
type Faults struct {
	LoseRequest      bool
	LoseResponse     bool
	Slow             time.Duration
	CrashAfterCharge bool
	Decline          bool
	Unavailable      bool
}

// FaultNames lists the faults Retrylab-Fault knows, for messages.
const FaultNames = "lose-request, lose-response, slow=MS, crash-after-charge, decline, unavailable"

// ParseFaults reads the Retrylab-Fault header from its field values. No
// header means no faults.
func ParseFaults(values []string) (Faults, error) {
	var f Faults
	seen := map[string]bool{}
	for _, v := range values {
		for _, item := range strings.Split(v, ",") {
			item = strings.Trim(item, " \t")
			if item == "" {
				continue
			}
			item, params, hasParams := strings.Cut(item, ";")
			name, arg, hasArg := strings.Cut(strings.TrimRight(item, " \t"), "=")
			if hasParams {
				return Faults{}, errors.New("fault " + idem.Excerpt(name) + " takes no parameters (" + idem.Excerpt(";"+params) + ")")
			}
			if seen[name] {
				return Faults{}, errors.New("fault " + idem.Excerpt(name) + " listed twice")
			}
			seen[name] = true
			if hasArg != (name == "slow") {
				if hasArg {
					return Faults{}, errors.New("fault " + idem.Excerpt(name) + " takes no value")
				}
				return Faults{}, errors.New(`fault "slow" needs a value: slow=MS, 0 to ` + strconv.Itoa(int(MaxSlow/time.Millisecond)))
			}
			switch name {
			case "lose-request":
				f.LoseRequest = true
			case "lose-response":
				f.LoseResponse = true
			case "crash-after-charge":
				f.CrashAfterCharge = true
			case "decline":
				f.Decline = true
			case "unavailable":
				f.Unavailable = true
			case "slow":
				// The bound is checked on the number itself, before it
				// becomes a Duration, which could overflow.
				ms, err := strconv.Atoi(arg)
				if err != nil || ms < 0 || ms > int(MaxSlow/time.Millisecond) || strings.HasPrefix(arg, "+") {
					return Faults{}, errors.New("slow=" + idem.Excerpt(arg) + ": want a whole number of milliseconds from 0 to " + strconv.Itoa(int(MaxSlow/time.Millisecond)))
				}
				f.Slow = time.Duration(ms) * time.Millisecond
			default:
				return Faults{}, errors.New("unknown fault " + idem.Excerpt(item) + " (known: " + FaultNames + ")")
			}
		}
	}
	return f, nil
}

// String lists the faults in the header's syntax, "" for none.
func (f Faults) String() string {
	var out []string
	add := func(on bool, name string) {
		if on {
			out = append(out, name)
		}
	}
	add(f.LoseRequest, "lose-request")
	add(f.LoseResponse, "lose-response")
	add(f.Slow > 0, "slow="+strconv.FormatInt(f.Slow.Milliseconds(), 10))
	add(f.CrashAfterCharge, "crash-after-charge")
	add(f.Decline, "decline")
	add(f.Unavailable, "unavailable")
	return strings.Join(out, ",")
}

// faults is the middleware of a Sandbox that reads Retrylab-Fault on POST
// /v1/payments, the one route that takes it (the others ignore it):
//
//   - a header it cannot read is a 400 invalid-fault, before anything else;
//   - lose-request drops the request before the API sees it;
//   - lose-response drops the answer to a request the API took up under
//     its key, which is every answer that echoes Idempotency-Key; one
//     refused before that (no token, no key, a bad body) is answered;
//   - crash-after-charge stops the request where faultStore dies, and
//     drops it;
//   - the rest go with the request's context to faultStore.
//
// A dropped answer closes the connection without a word where the server
// can (HTTP/1 on net/http); elsewhere, on Cloudflare Workers say, a 502 or
// 504 problem stands for the silence.
type faults struct {
	next    http.Handler
	clock   idem.Clock
	lease   time.Duration
	crashes *crashes // MaxCrashesPerAccount and MaxCrashes
}

func (f faults) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The Handler's route "POST /v1/payments", matched as its ServeMux
	// does, on the clean path alone. A ServeMux here would redirect the
	// unclean paths that the Handler answers with a 404 problem.
	if r.Method != http.MethodPost || r.URL.Path != "/v1/payments" {
		f.next.ServeHTTP(w, r)
		return
	}
	e := entryOf(r.Context())
	fs, err := ParseFaults(r.Header.Values(FaultHeader))
	if err != nil {
		send(w, e, probInvalidFault.answer(err.Error()))
		return
	}
	e.Fault = fs.String()
	if fs.LoseRequest {
		lose(w, r, probRequestLost.answer("the request was lost on its way: nothing happened"))
		return
	}
	r = r.WithContext(context.WithValue(r.Context(), injectionKey{}, &injection{Faults: fs}))
	if fs.CrashAfterCharge {
		// A request the API refuses (no token) crashes nothing: it goes
		// on to be refused.
		account, err := accountOf(r.Header)
		if err == nil {
			if ok, free := f.crashes.admit(account, f.clock.Now()); !ok {
				a := probTooManyCrashes.answer("this account, or the server, has as many crashed claims waiting out their leases as it may; nothing was done")
				a.retryAfter = secondsUntil(f.clock.Now(), free)
				send(w, e, a)
				return
			}
		}
		defer func() {
			// recover is nil when nothing panicked, and when the goroutine
			// exits (runtime.Goexit), which must go on.
			if v := recover(); v != nil {
				if _, ok := v.(crash); !ok {
					panic(v)
				}
				f.crashes.add(account, f.clock.Now().Add(f.lease))
				lose(w, r, probCrashed.answer("the server crashed after charging the card; its claim on the key holds until its lease runs out"))
			}
		}()
	}
	if !fs.LoseResponse {
		f.next.ServeHTTP(w, r)
		return
	}
	var b buffered
	f.next.ServeHTTP(&b, r)
	if b.header.Get(KeyHeader) == "" {
		b.sendTo(w)
		return
	}
	lost := probResponseLost.answer("the server handled the request (" + strconv.Itoa(b.status) + "), then its answer was lost")
	lost.outcome, lost.resumed = e.Outcome+", response lost", e.Resumed
	lose(w, r, lost)
}

// lose drops the connection of r without answering, logging first so that
// the log has the line before the client sees the silence; where the
// connection cannot be taken over (HTTP/2, a test recorder, a worker) it
// sends a instead.
func lose(w http.ResponseWriter, r *http.Request, a answer) {
	rec := recordOf(r.Context())
	rec.Outcome, rec.Resumed = a.outcome, a.resumed
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		write(w, a)
		return
	}
	rec.finish(0)
	conn.Close()
}

// buffered keeps an answer until the middleware decides to lose it.
type buffered struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *buffered) Header() http.Header {
	if b.header == nil {
		b.header = http.Header{}
	}
	return b.header
}

func (b *buffered) WriteHeader(status int) {
	if b.status == 0 {
		b.status = status
	}
}

func (b *buffered) Write(p []byte) (int, error) {
	b.WriteHeader(http.StatusOK)
	return b.body.Write(p)
}

// sendTo writes the kept answer to w.
func (b *buffered) sendTo(w http.ResponseWriter) {
	for k, v := range b.header {
		w.Header()[k] = v
	}
	w.WriteHeader(b.status)
	io.Copy(w, &b.body)
}

// injection is what faults hands faultStore for one request: its faults,
// and what the request did so far.
type injection struct {
	Faults
	fresh   bool // its claim found no payment chosen, so nothing charged
	slept   bool // slow=MS has been waited
	charged bool // the card was charged
}

type injectionKey struct{}

func injectionOf(ctx context.Context) *injection {
	in, _ := ctx.Value(injectionKey{}).(*injection)
	return in
}

// crash is the panic with which crash-after-charge stops the request, the
// way a process dies: nothing after it in the request runs, and the claim
// stays in flight, as the store last had it.
type crash struct{}

// faultStore is the store behind a Sandbox's Handler: the real one, with
// the faults of each request's Retrylab-Fault injected where the work
// meets the card network and the store:
//
//   - unavailable: Charge refuses (ledger.ErrUnavailable) a payment no
//     earlier claim had begun, so that nothing at all happened;
//   - slow=MS: the first of Charge and SavePayment waits MS on the clock
//     (or until its context is done); past MaxSlowAtOnce waiting, a
//     payment no earlier claim had begun is refused (errTooManySlow,
//     nothing charged) and any other goes on without waiting;
//   - decline: Charge refuses (ledger.ErrDeclined), charging nothing;
//   - crash-after-charge: once the card was charged, the checkpoint that
//     records the charge is written, then the request dies (a panic of
//     crash, which faults recovers).
type faultStore struct {
	ledger.Store
	clock idem.Clock    // what slow=MS waits on; the system's timers if nil
	slows chan struct{} // a token per request slowed down now: MaxSlowAtOnce
}

// Claim implements idem.Store, noting whether the claim begins the payment.
func (s faultStore) Claim(ctx context.Context, rec idem.Record) (idem.Record, bool, error) {
	got, claimed, err := s.Store.Claim(ctx, rec)
	if in := injectionOf(ctx); in != nil && claimed {
		in.fresh = ledger.ParseProgress(got.RecoveryPoint).Payment == ""
	}
	return got, claimed, err
}

// Charge implements ledger.Ledger.
func (s faultStore) Charge(ctx context.Context, c ledger.Charge) (ledger.Charge, bool, error) {
	in := injectionOf(ctx)
	if in == nil {
		return s.Store.Charge(ctx, c)
	}
	if in.Unavailable && in.fresh {
		return ledger.Charge{}, false, ledger.ErrUnavailable
	}
	if err := s.slow(ctx, in, in.fresh); err != nil {
		return ledger.Charge{}, false, err
	}
	if in.Decline {
		return ledger.Charge{}, false, ledger.ErrDeclined
	}
	stored, created, err := s.Store.Charge(ctx, c)
	in.charged = err == nil
	return stored, created, err
}

// SavePayment implements ledger.Ledger.
func (s faultStore) SavePayment(ctx context.Context, p ledger.Payment) (ledger.Payment, error) {
	if in := injectionOf(ctx); in != nil {
		if err := s.slow(ctx, in, false); err != nil {
			return ledger.Payment{}, err
		}
	}
	return s.Store.SavePayment(ctx, p)
}

// Checkpoint implements idem.Store.
func (s faultStore) Checkpoint(ctx context.Context, rec idem.Record) error {
	err := s.Store.Checkpoint(ctx, rec)
	if in := injectionOf(ctx); in != nil && in.CrashAfterCharge && in.charged && !errors.Is(err, idem.ErrNotHeld) {
		panic(crash{})
	}
	return err
}

// Sleeper is a Clock that can also wait: slow=MS waits on it, so that a
// test's manual clock decides when a slow request goes on.
type Sleeper interface {
	Sleep(ctx context.Context, d time.Duration) error
}

// slow waits the request's slow=MS once, on the clock, or until ctx is
// done; if MaxSlowAtOnce requests wait already, it refuses
// (errTooManySlow) when refuse is set, and does not wait otherwise.
func (s faultStore) slow(ctx context.Context, in *injection, refuse bool) error {
	if in.Slow <= 0 || in.slept {
		return nil
	}
	in.slept = true
	select {
	case s.slows <- struct{}{}:
		defer func() { <-s.slows }()
	default:
		if refuse {
			return errTooManySlow
		}
		return nil
	}
	if sl, ok := s.clock.(Sleeper); ok {
		return sl.Sleep(ctx, in.Slow)
	}
	t := time.NewTimer(in.Slow)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
