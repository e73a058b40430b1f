package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/retrylab/retrylab/engine/idem"
	"github.com/retrylab/retrylab/engine/idem/idemhttp"
	"github.com/retrylab/retrylab/engine/idem/ledger"
)

// RunProperty checks, over n random scenarios, the property the API
// exists for: never more than one charge per (account, key) while its
// record lives, and never two for one payment. Each scenario draws a
// lease (1 to 15 s), a TTL (1 to 120 s, shorter than the lease or not:
// the store must hold even where retrylab api would refuse to start), and
// a first request and up to four retries, each arriving at a random time
// within three leases and a TTL, slowed or not (slow=MS, up to 10 s), and
// dying or not at one of the points where a process can die: after
// choosing the payment, after the charge, after recording the charge,
// before saving the answer. A last retry then comes after every lease.
//
// A charge is allowed for each "life" of the key: each request that
// arrived when the key had no record or a done one that had expired. The
// oracle tells that from the scenario's own clock and TTL, never from
// what the store under test says: a key is absent until a request
// arrives for it and after a release; once a request completes it
// (Complete returned no error) it is done, and expires a TTL after that
// completion on the scenario's clock; a key in flight never expires. A
// store that forgets or expires a key too early lets a retry charge
// again within one life, and fails.
//
// A failure prints the scenario's seed; RETRYLAB_SEED=N replays it.
func RunProperty(t *testing.T, newStore func(t *testing.T) ledger.Store, n int) {
	seeds := make([]uint64, 0, n)
	if s := os.Getenv("RETRYLAB_SEED"); s != "" {
		seed, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("RETRYLAB_SEED=%s: %v", s, err)
		}
		seeds = append(seeds, seed)
	} else {
		for i := range n {
			seeds = append(seeds, uint64(i)+1)
		}
	}
	for _, seed := range seeds {
		sc := newScenario(seed)
		if err := sc.run(newStore(t)); err != nil {
			t.Fatalf("seed %d (replay with RETRYLAB_SEED=%d): %v\nscenario: %s", seed, seed, err, sc)
		}
	}
}

// Where a request's process dies (runtime.Goexit in the request's
// goroutine: nothing after it runs, the claim stays as it was).
type deathPoint int

const (
	survives deathPoint = iota
	afterPaymentChosen
	afterCharge
	afterChargeRecorded
	beforeAnswerSaved
	crashFault // the API's own Retrylab-Fault: crash-after-charge
	deathPoints
)

func (d deathPoint) String() string {
	return [...]string{"survives", "dies after choosing the payment", "dies after the charge",
		"dies after recording the charge", "dies before saving the answer", "crash-after-charge"}[d]
}

type request struct {
	at   time.Duration // after the scenario's start
	slow time.Duration
	dies deathPoint
}

type scenario struct {
	seed       uint64
	lease, ttl time.Duration
	requests   []request
}

func newScenario(seed uint64) *scenario {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	sc := &scenario{seed: seed,
		lease: time.Duration(1+r.IntN(15)) * time.Second,
		ttl:   time.Duration(1+r.IntN(120)) * time.Second}
	horizon := 3*sc.lease + sc.ttl
	n := 1 + r.IntN(5)
	for i := range n {
		q := request{}
		if i > 0 {
			q.at = time.Duration(r.Int64N(int64(horizon)/int64(time.Millisecond))) * time.Millisecond
		}
		if r.IntN(3) == 0 {
			q.slow = time.Duration(r.IntN(10_001)) * time.Millisecond
		}
		if r.IntN(2) == 0 {
			q.dies = deathPoint(1 + r.IntN(int(deathPoints)-1))
		}
		sc.requests = append(sc.requests, q)
	}
	slices.SortStableFunc(sc.requests, func(a, b request) int { return int(a.at - b.at) })
	// The last retry, after every lease and every slow request, survives.
	sc.requests = append(sc.requests, request{at: sc.requests[len(sc.requests)-1].at + 2*sc.lease + idemhttp.MaxSlow})
	return sc
}

func (sc *scenario) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "lease %v, ttl %v;", sc.lease, sc.ttl)
	for _, q := range sc.requests {
		fmt.Fprintf(&b, " [at %v", q.at)
		if q.slow > 0 {
			fmt.Fprintf(&b, " slow %v", q.slow)
		}
		if q.dies != survives {
			fmt.Fprintf(&b, " %v", q.dies)
		}
		b.WriteString("]")
	}
	return b.String()
}

type planKey struct{}

// dying is the store under test, with a process that dies where the
// request's context says, and the oracle's view of the key.
type dying struct {
	ledger.Store
	life *life
}

// life is the oracle's state of the scenario's one key, kept from the
// scenario's clock: absent, in flight, or done at a time.
type life struct {
	mu    sync.Mutex
	clock *idem.ManualClock
	state keyState
	done  time.Time // when the key was completed, while state is keyDone
}

type keyState int

const (
	keyAbsent keyState = iota
	keyInFlight
	keyDone
)

// arrive reports whether a request arriving at the clock's time begins a
// new life of the key (no record, or a done one whose TTL from its
// completion has passed), and if so marks the key in flight: that
// request claims it.
func (l *life) arrive(ttl time.Duration) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.clock.Now()
	if l.state == keyAbsent || l.state == keyDone && !l.done.Add(ttl).After(now) {
		l.state = keyInFlight
		return true
	}
	return false
}

func (l *life) set(s keyState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.state = s
	l.done = l.clock.Now()
}

func dieAt(ctx context.Context, p deathPoint) {
	if d, _ := ctx.Value(planKey{}).(deathPoint); d == p {
		runtime.Goexit()
	}
}

func (d dying) Checkpoint(ctx context.Context, rec idem.Record) error {
	err := d.Store.Checkpoint(ctx, rec)
	if err == nil {
		if strings.HasPrefix(rec.RecoveryPoint, "payment ") {
			dieAt(ctx, afterPaymentChosen)
		} else {
			dieAt(ctx, afterChargeRecorded)
		}
	}
	return err
}

func (d dying) Charge(ctx context.Context, c ledger.Charge) (ledger.Charge, bool, error) {
	got, created, err := d.Store.Charge(ctx, c)
	if err == nil {
		dieAt(ctx, afterCharge)
	}
	return got, created, err
}

func (d dying) Complete(ctx context.Context, rec idem.Record) error {
	dieAt(ctx, beforeAnswerSaved)
	err := d.Store.Complete(ctx, rec)
	if err == nil {
		d.life.set(keyDone)
	}
	return err
}

func (d dying) Release(ctx context.Context, rec idem.Record) error {
	err := d.Store.Release(ctx, rec)
	if err == nil {
		d.life.set(keyAbsent)
	}
	return err
}

const (
	propToken = "sk_property"
	propKey   = "order-1"
)

func (sc *scenario) run(s ledger.Store) error {
	clock := idem.NewManualClock(T0)
	key := &life{clock: clock}
	h := &idemhttp.Sandbox{Store: dying{s, key}, Clock: clock, Lease: sc.lease, TTL: sc.ttl}
	account, _ := idemhttp.AccountOf("Bearer " + propToken)
	ctx := context.Background()

	lives := 0
	type running struct {
		done   chan struct{}
		reply  *httptest.ResponseRecorder
		wakeAt time.Time // while asleep in slow=MS; zero otherwise
	}
	var all []*running
	// settle moves the clock to t, letting each slow request that wakes on
	// the way run to its end before the clock moves on.
	settle := func(t time.Time) error {
		for {
			var next time.Time
			for _, r := range all {
				if !r.wakeAt.IsZero() && !r.wakeAt.After(t) && (next.IsZero() || r.wakeAt.Before(next)) {
					next = r.wakeAt
				}
			}
			if next.IsZero() {
				break
			}
			clock.Advance(next.Sub(clock.Now()))
			for _, r := range all {
				if r.wakeAt.Equal(next) {
					r.wakeAt = time.Time{}
					select {
					case <-r.done:
					case <-time.After(10 * time.Second):
						return fmt.Errorf("a request woken at %v did not end within 10 s", next.Sub(T0))
					}
				}
			}
		}
		clock.Advance(t.Sub(clock.Now()))
		return nil
	}
	for i, q := range sc.requests {
		at := T0.Add(q.at)
		if err := settle(at); err != nil {
			return err
		}
		if key.arrive(sc.ttl) {
			lives++
		}
		req := httptest.NewRequest("POST", "/v1/payments", strings.NewReader(`{"amount":2500,"currency":"usd"}`))
		req.Header.Set("Authorization", "Bearer "+propToken)
		req.Header.Set(idemhttp.KeyHeader, propKey)
		var faults []string
		if q.slow > 0 {
			faults = append(faults, "slow="+strconv.FormatInt(q.slow.Milliseconds(), 10))
		}
		if q.dies == crashFault {
			faults = append(faults, "crash-after-charge")
		}
		if len(faults) > 0 {
			req.Header.Set(idemhttp.FaultHeader, strings.Join(faults, ","))
		}
		req = req.WithContext(context.WithValue(req.Context(), planKey{}, q.dies))
		r := &running{done: make(chan struct{}), reply: httptest.NewRecorder()}
		all = append(all, r)
		before := clock.Sleepers()
		go func() {
			defer close(r.done)
			h.ServeHTTP(r.reply, req)
		}()
		// Wait until the request ended (answered or died) or sleeps.
		if err := waitFor(func() bool { return closed(r.done) || clock.Sleepers() > before }); err != nil {
			return fmt.Errorf("request %d: %w", i, err)
		}
		if !closed(r.done) {
			r.wakeAt = at.Add(q.slow)
		}
	}
	if err := settle(clock.Now().Add(time.Hour)); err != nil {
		return err
	}
	for _, r := range all {
		if !closed(r.done) {
			return fmt.Errorf("a request still runs after every wake-up")
		}
	}

	list, _, err := s.Charges(ctx, account, ledger.Page{Limit: 1000})
	if err != nil {
		return err
	}
	if total := len(list); total > lives {
		var ids []string
		for _, c := range list {
			ids = append(ids, c.PaymentID+"@"+c.Created.Sub(T0).String())
		}
		return fmt.Errorf("%d charges (%s) for %d lives of the key", len(list), strings.Join(ids, ", "), lives)
	}
	seen := map[string]bool{}
	for _, c := range list {
		if seen[c.PaymentID] {
			return fmt.Errorf("two charges for payment %s", c.PaymentID)
		}
		seen[c.PaymentID] = true
	}
	last := all[len(all)-1].reply
	if last.Code != 201 {
		return fmt.Errorf("the last retry, after every lease, answered %d: %s", last.Code, last.Body)
	}
	if rec, ok, err := s.Get(ctx, account, propKey); err != nil || !ok || rec.State != idem.Done {
		return fmt.Errorf("after the last retry the record is %+v (%v, %v), want done", rec, ok, err)
	}
	return nil
}

func closed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// waitFor polls cond for up to 10 s of wall time.
func waitFor(cond func() bool) error {
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("a request neither ended nor slept within 10 s")
		}
		time.Sleep(50 * time.Microsecond)
	}
	return nil
}
