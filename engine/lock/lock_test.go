package lock

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
)

// done is a done_at_s figure; gaveUp marks a run where some sender gave up.
func done(s float64) *float64 { return &s }

// Every figure of the table of published figures (the package documentation), at the defaults unless
// the case says otherwise.
func TestFigures(t *testing.T) {
	for _, c := range []struct {
		name                                            string
		set                                             func(*Params)
		charges, sends, conflicts, replays, unavailable int
		doneAt                                          *float64
	}{
		{"guard none", func(p *Params) { p.Guard = None }, 2, 2, 0, 0, 0, done(2)},
		{"get-then-set", func(p *Params) { p.Guard = GetThenSet }, 2, 2, 0, 0, 0, done(2)},
		{"get-then-set, dupes 20", func(p *Params) { p.Guard = GetThenSet; p.Dupes = 20 }, 20, 20, 0, 0, 0, done(2)},
		{"setnx", func(p *Params) {}, 1, 3, 1, 1, 0, done(60)},
		{"setnx, dupes 20", func(p *Params) { p.Dupes = 20 }, 1, 39, 19, 19, 0, done(60)},
		{"setnx, work 400 (longer than the lock)", func(p *Params) { p.Work = 400 * time.Second }, 2, 16, 12, 2, 0, done(430)},
		{"setnx, crash after-charge", func(p *Params) { p.Crash = AfterCharge }, 2, 12, 9, 1, 0, done(310)},
		{"setnx, crash before-charge", func(p *Params) { p.Crash = BeforeCharge }, 1, 12, 9, 1, 0, done(310)},
		{"setnx, store down, fail-open", func(p *Params) { p.Store = Down; p.OnDown = FailOpen }, 2, 2, 0, 0, 0, done(2)},
		{"setnx, store down, fail-closed", func(p *Params) { p.Store = Down; p.OnDown = FailClosed }, 1, 5, 1, 1, 2, done(120)},
		{"setnx, retry 200", func(p *Params) { p.Retry = 200 * time.Second }, 1, 3, 1, 1, 0, done(200)},
		{"setnx, retry 300 (after the lock expired)", func(p *Params) { p.Retry = 300 * time.Second }, 2, 3, 1, 0, 0, done(302)},
		{"setnx, retry 200, evict on", func(p *Params) { p.Retry = 200 * time.Second; p.Evict = true }, 2, 3, 1, 0, 0, done(202)},
	} {
		p := Binding.Defaults()
		c.set(&p)
		res, err := Run(p)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		s := res.Summary
		if s.Charges != c.charges || s.Sends != c.sends || s.Conflicts != c.conflicts || s.Replays != c.replays ||
			s.Unavailable != c.unavailable || s.GaveUp != 0 || s.DoneAt == nil || *s.DoneAt != *c.doneAt {
			t.Errorf("%s: %s; want %d charges, %d sends, %d conflicts, %d replays, %d unavailable, done at %v s",
				c.name, summary(s), c.charges, c.sends, c.conflicts, c.replays, c.unavailable, *c.doneAt)
		}
		// The trace tells the same story as the summary.
		tr := res.Trace
		if tr.Count(EvCharge) != s.Charges || tr.Count(EvSend) != s.Sends || tr.Count(EvConflict) != s.Conflicts ||
			tr.Count(EvReplay) != s.Replays || tr.Count(EvUnavailable) != s.Unavailable || tr.Count(EvTimeout) != s.Timeouts {
			t.Errorf("%s: the trace disagrees with %s", c.name, summary(s))
		}
	}
}

// The work-400 case in detail: each sender's first answer comes after it
// stopped waiting (2 timeouts, 2 answers lost), and both senders use all
// 8 attempts before the replay.
func TestWorkLongerThanTheLock(t *testing.T) {
	p := Binding.Defaults()
	p.Work = 400 * time.Second
	res, _ := Run(p)
	if res.Timeouts != 2 || res.Trace.Count(EvLost) != 2 || res.Trace.Count(EvLock) != 2 {
		t.Errorf("%d timeouts, %d answers lost, %d locks taken; want 2, 2, 2", res.Timeouts, res.Trace.Count(EvLost), res.Trace.Count(EvLock))
	}
	// The second lock is taken at t = 300, the instant the first expires:
	// a key set with EX 300 at t = 0 exists for t < 300.
	var locks []time.Duration
	for _, e := range res.Trace {
		if e.Kind == EvLock {
			locks = append(locks, e.At)
		}
	}
	if len(locks) != 2 || locks[0] != 0 || locks[1] != 300*time.Second {
		t.Errorf("locks taken at %v; want [0s 5m0s]", locks)
	}
}

// With one attempt, the sender that gets 409 gives up, and done_at_s is
// null.
func TestGivingUp(t *testing.T) {
	p := Binding.Defaults()
	p.Attempts = 1
	res, _ := Run(p)
	if res.GaveUp != 1 || res.DoneAt != nil || res.Charges != 1 || res.Trace.Count(EvGiveUp) != 1 {
		t.Errorf("%s; want 1 gave up, done_at_s null, 1 charge", summary(res.Summary))
	}
	b, _ := json.Marshal(res.Summary)
	want := `{"charges":1,"sends":2,"conflicts":1,"replays":0,"unavailable":0,"timeouts":0,"gave_up":1,"done_at_s":null}`
	if string(b) != want {
		t.Errorf("json %s; want %s", b, want)
	}
}

// An answer due at the very instant the sender stops waiting is lost: the
// timeout was scheduled first.
func TestAnswerAtTheTimeoutIsLost(t *testing.T) {
	p := Binding.Defaults()
	p.Dupes = 1
	p.Work = p.Timeout
	res, _ := Run(p)
	if res.Timeouts != 1 || res.Trace.Count(EvLost) != 1 || res.Replays != 1 || *res.DoneAt != 70 {
		t.Errorf("%s, %d lost; want 1 timeout, 1 lost answer, then a replay at 70 s", summary(res.Summary), res.Trace.Count(EvLost))
	}
}

// Eviction at the instant of a send comes before it.
func TestEvictionComesFirst(t *testing.T) {
	p := Binding.Defaults()
	p.Retry = 200 * time.Second
	p.Evict = true
	p.EvictAt = 200 * time.Second
	res, _ := Run(p)
	if res.Charges != 2 || res.Replays != 0 {
		t.Errorf("%s; want the send at 200 s to find the keys gone: 2 charges", summary(res.Summary))
	}
}

// The same parameters give the same trace: the model is deterministic.
// The schedule seed is what can make two runs of one set of values
// differ: the 30 first sends, all due at 0 s, run in the order they were
// scheduled at seed 0 (sender-1 to sender-30, the published order), and
// in another order, each sender once, at every other seed; no two of the
// seeds here draw the same order. (That a seed replays the same trace in
// another process and in WebAssembly is engine/explore's TestTraceHashes.)
func TestScheduleSeedsReorder(t *testing.T) {
	p := Binding.Defaults()
	p.Dupes = 30
	p.Crash = AfterCharge
	seen := map[string]uint64{}
	for seed := uint64(0); seed < 10; seed++ {
		p.Schedule = seed
		res, err := Run(p)
		if err != nil {
			t.Fatal(err)
		}
		var order []string
		for _, e := range res.Trace {
			if e.At == 0 && e.Kind == EvSend {
				order = append(order, e.Lane)
			}
		}
		if len(order) != p.Dupes {
			t.Fatalf("seed %d: %d sends at 0 s, want %d", seed, len(order), p.Dupes)
		}
		once := map[string]bool{}
		for _, l := range order {
			once[l] = true
		}
		for i := 1; i <= p.Dupes; i++ {
			if !once["sender-"+strconv.Itoa(i)] {
				t.Errorf("seed %d: sender-%d does not send at 0 s (order %v)", seed, i, order)
			}
		}
		key := strings.Join(order, " ")
		if seed == 0 && key != strings.Join(senders(p.Dupes), " ") {
			t.Errorf("seed 0: the sends at 0 s run as %v, not in the order they were scheduled", order)
		}
		if other, dup := seen[key]; dup {
			t.Errorf("seeds %d and %d run the sends at 0 s in one order: %v", other, seed, order)
		}
		seen[key] = seed
	}
}

// senders are the names of n senders, in their order.
func senders(n int) []string {
	var s []string
	for i := 1; i <= n; i++ {
		s = append(s, "sender-"+strconv.Itoa(i))
	}
	return s
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		set  func(*Params)
		want string
	}{
		{func(p *Params) { p.Dupes = 0 }, `dupes: "0" is out of bounds (allowed: 1 to 100)`},
		{func(p *Params) { p.Guard = "lock" }, `guard: "lock" is not allowed (allowed: none, get-then-set, setnx)`},
		{func(p *Params) { p.LockTTL = 0 }, `lock-ttl: "0" is out of bounds (allowed: 1 to 604800)`},
		{func(p *Params) { p.Work = 1500 * time.Millisecond }, `work: "1.5" is not a whole number (allowed: 0 to 604800)`},
		{func(p *Params) { p.OnDown = "queue" }, `on-down: "queue" is not allowed (allowed: fail-open, fail-closed)`},
		{func(p *Params) { p.Crash = "midway" }, `crash: "midway" is not allowed (allowed: none, before-charge, after-charge)`},
	} {
		p := Binding.Defaults()
		c.set(&p)
		if _, err := Run(p); err == nil || err.Error() != c.want {
			t.Errorf("got %v; want %s", err, c.want)
		}
	}
}

func summary(s Summary) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Every event's sentence is written from its fields: a kind the sayer
// does not know would show as its bare name.
func TestEverySentenceIsWritten(t *testing.T) {
	for _, set := range []func(*Params){
		func(p *Params) {},
		func(p *Params) { p.Guard = GetThenSet },
		func(p *Params) { p.Crash = AfterCharge; p.Evict = true },
		func(p *Params) { p.Crash = BeforeCharge; p.Attempts = 2 },
		func(p *Params) { p.Work = 400 * time.Second },
		func(p *Params) { p.Store = Down },
		func(p *Params) { p.Store = Down; p.OnDown = FailClosed; p.Work = 40 * time.Second },
	} {
		p := Binding.Defaults()
		set(&p)
		res, _ := Run(p)
		for _, e := range res.Trace {
			if s := e.Sentence(); s == e.Kind.String() || s == "" {
				t.Errorf("%s at %v: no sentence (%q)", e.Kind, e.At, s)
			}
		}
	}
}

// A sentence names a sender by its lane, "sender-2" as "sender 2".
func TestSentencesNameTheSender(t *testing.T) {
	res, err := Run(Binding.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range res.Trace {
		if e.To == "sender-1" || e.To == "sender-2" {
			got = append(got, e.Sentence())
		}
	}
	want := []string{
		"The server starts the charge for sender 1.",
		"409 to sender 2: the lock is taken and there is no result yet.",
		"201 Created to sender 1: done.",
		"Replay of the saved 201 to sender 2: done.",
	}
	if len(got) != len(want) {
		t.Fatalf("the senders' sentences are %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("sentence %d is %q, want %q", i, got[i], want[i])
		}
	}
}
