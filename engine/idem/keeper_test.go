package idem

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

const (
	body2500  = `{"amount":2500,"currency":"usd"}`
	reordered = "{ \"currency\": \"usd\",\n  \"amount\": 2500 }"
	body9900  = `{"amount":9900,"currency":"usd"}`
)

// fixture is a keeper on a memory store and a manual clock, with a work
// function that counts its runs and answers 201 with the run number.
type fixture struct {
	clock *ManualClock
	store *MemoryStore
	k     *Keeper
	runs  int
}

func newFixture() *fixture {
	f := &fixture{clock: NewManualClock(t0), store: NewMemoryStore()}
	f.k = &Keeper{Store: f.store, Clock: f.clock}
	return f
}

func (f *fixture) work(context.Context, *Claim) (int, []byte, error) {
	f.runs++
	return 201, []byte(`{"id":"ch_` + strconv.Itoa(f.runs) + `"}`), nil
}

func (f *fixture) do(t *testing.T, account, key, body string) Response {
	t.Helper()
	r, err := f.k.Do(context.Background(), account, key, []byte(body), f.work)
	if err != nil {
		t.Fatalf("Do(%s, %s, %s): %v", account, key, body, err)
	}
	return r
}

func expect(t *testing.T, r Response, outcome Outcome, status int, body string) {
	t.Helper()
	if r.Outcome != outcome || r.Status != status || (body != "" && string(r.Body) != body) {
		t.Fatalf("response %s %d %s, want %s %d %s", r.Outcome, r.Status, r.Body, outcome, status, body)
	}
}

func TestKeeperClaimsOnceAndReplays(t *testing.T) {
	f := newFixture()
	expect(t, f.do(t, "acct_1", "k_1", body2500), Executed, 201, `{"id":"ch_1"}`)
	f.clock.Advance(time.Second)
	// The retry has its fields reordered and spaced: the same fingerprint.
	expect(t, f.do(t, "acct_1", "k_1", reordered), Replayed, 201, `{"id":"ch_1"}`)
	if f.runs != 1 {
		t.Fatalf("work ran %d times, want 1", f.runs)
	}
	rec, ok, err := f.store.Get(context.Background(), "acct_1", "k_1")
	if err != nil || !ok {
		t.Fatalf("Get: %v %v", ok, err)
	}
	fp, _ := Fingerprint([]byte(body2500))
	if rec.State != Done || rec.Status != 201 || rec.Fingerprint != fp || !rec.Created.Equal(t0) ||
		!rec.ExpiresAt.Equal(t0.Add(24*time.Hour)) || rec.Fence != FreshFence(t0) {
		t.Fatalf("record %+v", rec)
	}
}

func TestKeeperMismatchIs422AndChangesNothing(t *testing.T) {
	f := newFixture()
	f.do(t, "acct_1", "k_1", body2500)
	r := f.do(t, "acct_1", "k_1", body9900)
	expect(t, r, Mismatch, 422, "")
	if !strings.Contains(string(r.Body), "different request body") {
		t.Fatalf("422 body %s", r.Body)
	}
	if f.runs != 1 {
		t.Fatalf("work ran %d times, want 1", f.runs)
	}
	// The original request still replays.
	expect(t, f.do(t, "acct_1", "k_1", body2500), Replayed, 201, `{"id":"ch_1"}`)
}

func TestKeeperInFlightIs409(t *testing.T) {
	f := newFixture()
	var during, other Response
	_, err := f.k.Do(context.Background(), "acct_1", "k_1", []byte(body2500), func(ctx context.Context, _ *Claim) (int, []byte, error) {
		// While the first request works, a duplicate and a reuse arrive.
		during = f.do(t, "acct_1", "k_1", reordered)
		other = f.do(t, "acct_1", "k_1", body9900)
		return f.work(ctx, nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	expect(t, during, InProgress, 409, "")
	// The claim was just made: its whole lease (a minute) is left.
	if during.RetryAfter != 60 {
		t.Fatalf("Retry-After %d, want 60 (the lease left)", during.RetryAfter)
	}
	expect(t, other, Mismatch, 422, "") // a different body is refused even while in flight
	if f.runs != 1 {
		t.Fatalf("work ran %d times, want 1", f.runs)
	}
}

func TestKeeperReleasesWhenNothingHappened(t *testing.T) {
	f := newFixture()
	unreachable := errors.New("card network unreachable")
	r, err := f.k.Do(context.Background(), "acct_1", "k_1", []byte(body2500), func(context.Context, *Claim) (int, []byte, error) {
		return 503, nil, NothingHappened(unreachable)
	})
	if r.Outcome != Released || !errors.Is(err, ErrNothingHappened) || !errors.Is(err, unreachable) {
		t.Fatalf("Do = %+v, %v; want Released with the work's error", r, err)
	}
	if _, ok, _ := f.store.Get(context.Background(), "acct_1", "k_1"); ok {
		t.Fatal("the claim is still stored after a release")
	}
	// The retry with the same key runs the work.
	expect(t, f.do(t, "acct_1", "k_1", body2500), Executed, 201, `{"id":"ch_1"}`)
	// The bare sentinel works too.
	if _, err := f.k.Do(context.Background(), "acct_1", "k_2", []byte(body2500), func(context.Context, *Claim) (int, []byte, error) {
		return 0, nil, ErrNothingHappened
	}); !errors.Is(err, ErrNothingHappened) {
		t.Fatalf("err = %v", err)
	}
	if _, ok, _ := f.store.Get(context.Background(), "acct_1", "k_2"); ok {
		t.Fatal("k_2 still stored")
	}
}

func TestKeeperSavesFailuresThatHappened(t *testing.T) {
	f := newFixture()
	declined := func(context.Context, *Claim) (int, []byte, error) {
		f.runs++
		return 402, []byte(`{"error":"card_declined"}`), errors.New("card declined")
	}
	for i := 0; i < 2; i++ {
		r, err := f.k.Do(context.Background(), "acct_1", "k_1", []byte(body2500), declined)
		if err != nil {
			t.Fatal(err)
		}
		want := Executed
		if i == 1 {
			want = Replayed
		}
		expect(t, r, want, 402, `{"error":"card_declined"}`)
	}
	if f.runs != 1 {
		t.Fatalf("declined work ran %d times, want 1", f.runs)
	}
	// An error with no status is saved as a 500.
	r, err := f.k.Do(context.Background(), "acct_1", "k_2", []byte(body2500), func(context.Context, *Claim) (int, []byte, error) {
		return 0, nil, errors.New("ledger write failed after the charge")
	})
	if err != nil || r.Status != 500 || len(r.Body) == 0 {
		t.Fatalf("Do = %+v, %v; want a saved 500", r, err)
	}
	expect(t, f.do(t, "acct_1", "k_2", body2500), Replayed, 500, string(r.Body))
}

func TestKeeperAccountsAreIsolated(t *testing.T) {
	f := newFixture()
	// The same key in two accounts, even with different bodies: two records.
	expect(t, f.do(t, "acct_a", "k_1", body2500), Executed, 201, `{"id":"ch_1"}`)
	expect(t, f.do(t, "acct_b", "k_1", body9900), Executed, 201, `{"id":"ch_2"}`)
	expect(t, f.do(t, "acct_a", "k_1", body2500), Replayed, 201, `{"id":"ch_1"}`)
	expect(t, f.do(t, "acct_b", "k_1", body9900), Replayed, 201, `{"id":"ch_2"}`)
	// Strings that would collide if account and key were joined with ':'.
	expect(t, f.do(t, "a:b", "c", body2500), Executed, 201, `{"id":"ch_3"}`)
	expect(t, f.do(t, "a", "b:c", body9900), Executed, 201, `{"id":"ch_4"}`)
	if f.runs != 4 {
		t.Fatalf("work ran %d times, want 4", f.runs)
	}
}

func TestKeeperExpiry(t *testing.T) {
	f := newFixture()
	f.do(t, "acct_1", "k_1", body2500)
	f.clock.Advance(DefaultTTL - time.Nanosecond)
	expect(t, f.do(t, "acct_1", "k_1", body2500), Replayed, 201, `{"id":"ch_1"}`)
	expect(t, f.do(t, "acct_1", "k_1", body9900), Mismatch, 422, "")
	// At exactly Created + TTL the record counts as absent: the key is new
	// again, whatever the body.
	f.clock.Advance(time.Nanosecond)
	expect(t, f.do(t, "acct_1", "k_1", body9900), Executed, 201, `{"id":"ch_2"}`)
	rec, _, _ := f.store.Get(context.Background(), "acct_1", "k_1")
	if !rec.Created.Equal(t0.Add(DefaultTTL)) || rec.Fence != FreshFence(t0.Add(DefaultTTL)) {
		t.Fatalf("reclaimed record %+v, want Created at t0+24h and a fresh fence", rec)
	}

	// A shorter TTL is honoured.
	g := newFixture()
	g.k.TTL = time.Hour
	g.do(t, "acct_1", "k_1", body2500)
	g.clock.Advance(time.Hour)
	expect(t, g.do(t, "acct_1", "k_1", body2500), Executed, 201, `{"id":"ch_2"}`)
}

func TestKeeperLeaseTakeover(t *testing.T) {
	f := newFixture()
	f.k.Lease = 30 * time.Second
	var before, reuse, takeover Response
	_, err := f.k.Do(context.Background(), "acct_1", "k_1", []byte(body2500), func(ctx context.Context, _ *Claim) (int, []byte, error) {
		f.clock.Advance(30*time.Second - time.Nanosecond)
		before = f.do(t, "acct_1", "k_1", body2500) // lease still held
		f.clock.Advance(time.Nanosecond)
		reuse = f.do(t, "acct_1", "k_1", body9900)    // lapsed, but another body
		takeover = f.do(t, "acct_1", "k_1", body2500) // lapsed: taken over, runs work
		return 201, []byte(`{"id":"late"}`), nil
	})
	expect(t, before, InProgress, 409, "")
	expect(t, reuse, Mismatch, 422, "")
	expect(t, takeover, Executed, 201, `{"id":"ch_1"}`)
	// The overtaken claimant cannot overwrite the saved answer.
	if !errors.Is(err, ErrNotHeld) {
		t.Fatalf("first claimant's Do: err %v, want ErrNotHeld", err)
	}
	rec, _, _ := f.store.Get(context.Background(), "acct_1", "k_1")
	if rec.Fence <= FreshFence(t0) || string(rec.Body) != `{"id":"ch_1"}` || !rec.Created.Equal(t0) {
		t.Fatalf("record %+v, want the takeover's answer, a greater fence, created at t0", rec)
	}
}

func TestKeeperRefusesBadInput(t *testing.T) {
	f := newFixture()
	ctx := context.Background()
	if _, err := f.k.Do(ctx, "acct_1", "", []byte(body2500), f.work); !errors.Is(err, ErrMissingKey) {
		t.Fatalf("empty key: %v", err)
	}
	if _, err := f.k.Do(ctx, "acct_1", strings.Repeat("k", MaxKeyLen+1), []byte(body2500), f.work); !errors.Is(err, ErrKeyTooLong) {
		t.Fatalf("long key: %v", err)
	}
	for _, key := range []string{"k\x00", "tab\tkey", "k\x7f", "caf\xc3\xa9"} {
		if _, err := f.k.Do(ctx, "acct_1", key, []byte(body2500), f.work); !errors.Is(err, ErrKeyNotPrintable) {
			t.Fatalf("key %q: %v, want ErrKeyNotPrintable", key, err)
		}
	}
	f.do(t, "acct_1", strings.Repeat("k", MaxKeyLen), body2500)              // the limit itself is fine
	f.do(t, "acct_1", " ~!\"#$%&'()*+,-./09:;<=>?@AZ[\\]^_`az{|}", body2500) // every printable class
	var se *SyntaxError
	if _, err := f.k.Do(ctx, "acct_1", "k_1", []byte(`{"amount":`), f.work); !errors.As(err, &se) || se.Offset != 10 {
		t.Fatalf("invalid body: %v, want a *SyntaxError at offset 10", err)
	}
	if _, ok, _ := f.store.Get(ctx, "acct_1", "k_1"); ok {
		t.Fatal("an invalid body left a record")
	}
	if _, err := (&Keeper{Clock: f.clock}).Do(ctx, "acct_1", "k_1", []byte(body2500), f.work); err == nil {
		t.Fatal("Keeper without a Store: no error")
	}
	if f.runs != 2 {
		t.Fatalf("work ran %d times, want 2", f.runs)
	}
}

func TestMemoryStoreFencing(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryStore()
	rec, claimed, err := s.Claim(ctx, Record{Account: "a", Key: "k", Fingerprint: "f", Created: t0,
		ExpiresAt: t0.Add(time.Hour), LockedUntil: t0.Add(time.Minute)})
	if err != nil || !claimed || rec.Fence != FreshFence(t0) || rec.State != InFlight {
		t.Fatalf("Claim = %+v, %v, %v", rec, claimed, err)
	}
	stale := rec
	stale.Fence = 0
	if err := s.Complete(ctx, stale); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("Complete with a stale fence: %v", err)
	}
	if err := s.Release(ctx, stale); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("Release with a stale fence: %v", err)
	}
	stale.RecoveryPoint = "stale"
	if err := s.Checkpoint(ctx, stale); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("Checkpoint with a stale fence: %v", err)
	}
	rec.Status, rec.Body, rec.RecoveryPoint = 201, []byte("saved"), "charged"
	if err := s.Complete(ctx, rec); err != nil {
		t.Fatal(err)
	}
	rec.Body[0] = 'X' // the store kept its own copy
	if err := s.Release(ctx, rec); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("Release after Complete: %v", err)
	}
	got, ok, _ := s.Get(ctx, "a", "k")
	if !ok || got.State != Done || string(got.Body) != "saved" || got.RecoveryPoint != "charged" {
		t.Fatalf("Get = %+v", got)
	}
	got.Body[0] = 'Y'
	if again, _, _ := s.Get(ctx, "a", "k"); string(again.Body) != "saved" {
		t.Fatalf("Get returned the store's own slice: %q", again.Body)
	}
	// A done record is not taken over even after its lease time.
	if _, claimed, _ := s.Claim(ctx, Record{Account: "a", Key: "k", Fingerprint: "f", Created: t0.Add(2 * time.Minute)}); claimed {
		t.Fatal("a done record was claimed again before expiry")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := s.Claim(cancelled, rec); !errors.Is(err, context.Canceled) {
		t.Fatalf("Claim with a cancelled context: %v", err)
	}
}

// A claimant that crashes after recording a step leaves the key in flight;
// once its lease lapses, a retry takes the key over and its work starts
// from that step, and the crashed claimant can no longer record anything.
func TestKeeperTakeoverResumesFromRecoveryPoint(t *testing.T) {
	f := newFixture()
	f.k.Lease = 10 * time.Second
	ctx := context.Background()
	var crashed *Claim
	func() {
		// A crash is a panic out of the work: Do neither completes nor
		// releases the claim.
		defer func() {
			if v := recover(); v != "crash" {
				t.Fatalf("recovered %v", v)
			}
		}()
		f.k.Do(ctx, "acct_1", "k_1", []byte(body2500), func(ctx context.Context, c *Claim) (int, []byte, error) {
			if c.RecoveryPoint() != "" || c.Account() != "acct_1" || c.Key() != "k_1" || !c.Created().Equal(t0) {
				t.Fatalf("fresh claim: %+v", c.rec)
			}
			if err := c.Checkpoint(ctx, "charged ch_1"); err != nil {
				t.Fatal(err)
			}
			crashed = c
			panic("crash")
		})
	}()

	f.clock.Advance(10*time.Second - time.Nanosecond)
	expect(t, f.do(t, "acct_1", "k_1", body2500), InProgress, 409, "")
	f.clock.Advance(time.Nanosecond)
	var from string
	r, err := f.k.Do(ctx, "acct_1", "k_1", []byte(reordered), func(ctx context.Context, c *Claim) (int, []byte, error) {
		from = c.RecoveryPoint()
		if err := c.Checkpoint(ctx, "saved"); err != nil {
			t.Fatal(err)
		}
		return 201, []byte(`{"id":"ch_1"}`), nil
	})
	if err != nil || r.Outcome != Executed || r.ResumedFrom != "charged ch_1" || from != "charged ch_1" {
		t.Fatalf("takeover: %+v %v, work saw %q; want Executed resumed from \"charged ch_1\"", r, err, from)
	}
	if err := crashed.Checkpoint(ctx, "late"); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("the overtaken claimant's Checkpoint: %v, want ErrNotHeld", err)
	}
	got, _, _ := f.store.Get(ctx, "acct_1", "k_1")
	if got.State != Done || got.Fence <= FreshFence(t0) || got.RecoveryPoint != "saved" || !got.Created.Equal(t0) {
		t.Fatalf("record %+v", got)
	}
	// A fresh claim of another key resumes from nothing.
	r, err = f.k.Do(ctx, "acct_1", "k_2", []byte(body2500), f.work)
	if err != nil || r.ResumedFrom != "" {
		t.Fatalf("fresh key: %+v %v", r, err)
	}
}

func TestMemoryStorePurgesExpiredRecordsOnly(t *testing.T) {
	f := newFixture()
	f.k.TTL = time.Hour
	f.do(t, "acct_a", "k_old", `{"amount":1}`)
	f.clock.Advance(30 * time.Minute)
	f.do(t, "acct_a", "k_new", `{"amount":1}`)
	f.clock.Advance(30 * time.Minute) // k_old expires now, k_new in 30 min
	n, err := f.store.Purge(context.Background(), f.clock.Now())
	if err != nil || n != 1 {
		t.Fatalf("Purge = %d, %v; want 1 record", n, err)
	}
	if _, ok, _ := f.store.Get(context.Background(), "acct_a", "k_old"); ok {
		t.Fatal("the expired record is still there")
	}
	if _, ok, _ := f.store.Get(context.Background(), "acct_a", "k_new"); !ok {
		t.Fatal("the live record was purged")
	}
}

func TestRetryAfterIsTheLeaseLeft(t *testing.T) {
	now := t0
	for _, tc := range []struct {
		left time.Duration
		want int
	}{
		{time.Minute, 60},
		{54800 * time.Millisecond, 55}, // rounded up
		{time.Millisecond, 1},
		{0, 1},          // lapsed: a takeover is possible now
		{-time.Hour, 1}, // long lapsed
		{1500 * time.Millisecond, 2},
	} {
		if got := retryAfter(now, now.Add(tc.left)); got != tc.want {
			t.Errorf("retryAfter with %v left = %d, want %d", tc.left, got, tc.want)
		}
	}
}

func TestCheckWindows(t *testing.T) {
	for _, tc := range []struct {
		lease, ttl time.Duration
		ok         bool
	}{
		{DefaultLease, DefaultTTL, true},
		{time.Minute, 2 * time.Minute, true},
		{time.Minute, 2*time.Minute - time.Second, false},
		{time.Minute, 5 * time.Second, false}, // the expiry repro's --ttl 5s --lease 1m
		{5 * time.Second, 8 * time.Second, false},
		{0, time.Hour, false},
		{time.Second, -time.Second, false},
		{2_000_000 * time.Hour, time.Second, false}, // 2 leases would overflow
		{time.Duration(1<<62) + 1, time.Duration(1<<63 - 1), false},
	} {
		if err := CheckWindows(tc.lease, tc.ttl); (err == nil) != tc.ok {
			t.Errorf("CheckWindows(%v, %v) = %v, want ok %v", tc.lease, tc.ttl, err, tc.ok)
		}
	}
}

// memClaim claims key for account in m at at, with an hour's TTL and a
// minute's lease.
func memClaim(m *MemoryStore, account, key string, at time.Time) (Record, error) {
	r, _, err := m.Claim(context.Background(), Record{Account: account, Key: key, Fingerprint: "fp", Created: at,
		ExpiresAt: at.Add(time.Hour), LockedUntil: at.Add(time.Minute)})
	return r, err
}

// memDone completes r at at, to expire ttl later.
func memDone(t *testing.T, m *MemoryStore, r Record, at time.Time, ttl time.Duration) {
	t.Helper()
	r.Status, r.ExpiresAt = 201, at.Add(ttl)
	if err := m.Complete(context.Background(), r); err != nil {
		t.Fatal(err)
	}
}

// A full memory store drops expired done records to make room first,
// never an in-flight one; and when every record is in flight it refuses
// a new key with ErrFull, saying no time it would free up (none is
// known: an in-flight record goes only once finished).
func TestMemoryStoreIsBounded(t *testing.T) {
	m := NewMemoryStore()
	m.SetMax(3)
	var dropped []string
	m.OnDrop(func(rs []Record) {
		for _, r := range rs {
			dropped = append(dropped, r.Key)
		}
	})
	k1, _ := memClaim(m, "a", "k1", t0)
	memDone(t, m, k1, t0, time.Minute) // expires at t0+1m
	k2, _ := memClaim(m, "b", "k2", t0)
	memDone(t, m, k2, t0, 2*time.Minute)                  // expires at t0+2m
	if _, err := memClaim(m, "c", "k3", t0); err != nil { // stays in flight
		t.Fatal(err)
	}
	if _, err := memClaim(m, "d", "k4", t0.Add(90*time.Second)); err != nil {
		t.Fatalf("a fourth key once k1 expired: %v", err)
	}
	if strings.Join(dropped, ",") != "k1" || m.Len() != 3 {
		t.Fatalf("dropped %v, %d left; want k1, the expired one", dropped, m.Len())
	}
	if _, err := memClaim(m, "e", "k5", t0.Add(72*time.Hour)); err != nil {
		t.Fatal(err)
	}
	_, err := memClaim(m, "f", "k6", t0.Add(72*time.Hour))
	var full *FullError
	if !errors.As(err, &full) || !errors.Is(err, ErrFull) || full.Account || !full.Free.IsZero() {
		t.Fatalf("with three keys in flight: %v, want ErrFull with no time", err)
	}
	if strings.Join(dropped, ",") != "k1,k2" {
		t.Fatalf("dropped %v, want k1,k2 (never an in-flight record)", dropped)
	}
}

// A full memory store that evicts (EvictLargest) makes room for a new
// key by dropping the oldest finished key of the account that holds the
// most: an account holding little always gets in, however many keys the
// others keep live, and an account never loses a key while another holds
// more finished ones.
func TestMemoryStoreEvictsFromTheLargestAccount(t *testing.T) {
	m := NewMemoryStore()
	m.SetMax(10)
	m.EvictLargest()
	var dropped []string
	m.OnDrop(func(rs []Record) {
		for _, r := range rs {
			dropped = append(dropped, r.Account+"/"+r.Key)
		}
	})
	at := t0
	fill := func(account string, n int) {
		for i := range n {
			at = at.Add(time.Second)
			r, err := memClaim(m, account, strconv.Itoa(i), at)
			if err != nil {
				t.Fatalf("%s's key %d: %v", account, i, err)
			}
			if r.State == InFlight { // not a key it holds already
				memDone(t, m, r, at, 24*time.Hour)
			}
		}
	}
	fill("big", 7)
	fill("mid", 3) // full: 7 + 3, all live for a day
	fill("new", 2) // each takes the place of big's oldest
	fill("mid", 1) // mid's key 0 again, replayed: no room needed
	if strings.Join(dropped, ",") != "big/0,big/1" {
		t.Fatalf("dropped %v, want big/0,big/1: the largest account's oldest", dropped)
	}
	fill("small", 2) // big (5) goes down to 3 held, as mid holds
	if got := strings.Join(dropped, ","); got != "big/0,big/1,big/2,big/3" {
		t.Fatalf("dropped %v, want big's oldest four", got)
	}
	if _, ok, _ := m.Get(context.Background(), "mid", "2"); !ok {
		t.Fatal("mid lost a key while big held as many")
	}
	// The account that is the largest makes room from its own oldest.
	fill("big2", 9)
	if m.Len() != 10 {
		t.Fatalf("%d records, want the bound of 10", m.Len())
	}
}

// One account cannot fill the store: past its share (a tenth of the
// bound) its new keys are refused, with the time its oldest finished key
// expires (which an evicting store knows), and another account's still
// go in.
func TestMemoryStoreAccountShare(t *testing.T) {
	m := NewMemoryStore()
	m.SetMax(20_000) // a share of 2,000
	m.EvictLargest()
	for i := range 2000 {
		r, err := memClaim(m, "greedy", strconv.Itoa(i), t0)
		if err != nil {
			t.Fatalf("key %d of the greedy account: %v", i, err)
		}
		if i >= 10 {
			memDone(t, m, r, t0.Add(time.Duration(i)*time.Second), time.Hour)
		}
	}
	_, err := memClaim(m, "greedy", "2000", t0.Add(time.Hour))
	var full *FullError
	if !errors.As(err, &full) || !full.Account || !full.Free.Equal(t0.Add(time.Hour+10*time.Second)) {
		t.Fatalf("the greedy account's key 2,001: %v, want its share full until its oldest done key expires, at t0+1h10s", err)
	}
	if _, err := memClaim(m, "other", "0", t0.Add(time.Hour)); err != nil {
		t.Fatalf("another account's first key: %v", err)
	}
}

// DoCanonical takes a body in canonical form as it is, and gives it the
// fingerprint Do gives any body meaning the same request: a request made
// with Do is replayed to a retry made with DoCanonical, another amount is
// refused, and the key is still scoped to its account.
func TestKeeperDoCanonicalIsDo(t *testing.T) {
	f := newFixture()
	canonical := func(account, key, body string) Response {
		t.Helper()
		r, err := f.k.DoCanonical(context.Background(), account, key, []byte(body), f.work)
		if err != nil {
			t.Fatalf("DoCanonical(%s, %s, %s): %v", account, key, body, err)
		}
		return r
	}
	expect(t, f.do(t, "acct_1", "k_1", reordered), Executed, 201, `{"id":"ch_1"}`)
	expect(t, canonical("acct_1", "k_1", body2500), Replayed, 201, `{"id":"ch_1"}`)
	expect(t, canonical("acct_1", "k_1", body9900), Mismatch, 422, "")
	expect(t, canonical("acct_2", "k_1", body9900), Executed, 201, `{"id":"ch_2"}`)
	expect(t, f.do(t, "acct_2", "k_1", body9900), Replayed, 201, `{"id":"ch_2"}`)
	if f.runs != 2 {
		t.Fatalf("work ran %d times, want 2", f.runs)
	}
	if _, err := f.k.DoCanonical(context.Background(), "acct_1", "", []byte(body2500), f.work); !errors.Is(err, ErrMissingKey) {
		t.Fatalf("DoCanonical without a key: %v, want ErrMissingKey", err)
	}
}
