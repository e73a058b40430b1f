package sim

import (
	"strconv"
	"testing"
	"time"
)

func TestEventsRunInTimeThenScheduleOrder(t *testing.T) {
	s := New(1)
	var got []string
	s.At(2*time.Second, func() { got = append(got, "c") })
	s.At(1*time.Second, func() {
		got = append(got, "a")
		s.After(time.Second, func() { got = append(got, "d") }) // ties with c, scheduled later
	})
	s.At(1*time.Second, func() { got = append(got, "b") })
	s.Run()
	want := "abcd"
	if g := join(got); g != want {
		t.Fatalf("order = %q, want %q", g, want)
	}
	if s.Now() != 2*time.Second {
		t.Fatalf("clock = %v, want 2s", s.Now())
	}
}

func TestPastEventsRunNowAndClockNeverGoesBack(t *testing.T) {
	s := New(1)
	var at []time.Duration
	s.At(5*time.Second, func() {
		s.At(time.Second, func() { at = append(at, s.Now()) })
	})
	s.Run()
	if len(at) != 1 || at[0] != 5*time.Second {
		t.Fatalf("past event ran at %v, want [5s]", at)
	}
}

func TestRunUntilLeavesLaterEventsQueued(t *testing.T) {
	s := New(1)
	ran := 0
	s.At(time.Second, func() { ran++ })
	s.At(3*time.Second, func() { ran++ })
	s.RunUntil(2 * time.Second)
	if ran != 1 || s.Pending() != 1 || s.Now() != 2*time.Second {
		t.Fatalf("ran %d, pending %d, now %v; want 1, 1, 2s", ran, s.Pending(), s.Now())
	}
}

func TestRecordStampsVirtualTime(t *testing.T) {
	s := New(1)
	s.At(1500*time.Millisecond, func() { s.Record(Event{Kind: testX}) })
	s.Run()
	if len(s.Trace) != 1 || s.Trace[0].At != 1500*time.Millisecond || s.Trace.Count(testX) != 1 {
		t.Fatalf("trace = %+v", s.Trace)
	}
}

func TestRandIsReproducibleAndSeedsDiffer(t *testing.T) {
	a, b, c := NewRand(7), NewRand(7), NewRand(8)
	same := true
	for i := 0; i < 100; i++ {
		x, y, z := a.Uint64(), b.Uint64(), c.Uint64()
		if x != y {
			t.Fatalf("seed 7 diverged at draw %d", i)
		}
		if x != z {
			same = false
		}
	}
	if same {
		t.Fatal("seeds 7 and 8 gave the same 100 draws")
	}
}

// The first draws of seed 1 are pinned: a change to the generator would
// silently change every published random figure, so it must fail here first.
func TestRandSequenceIsPinned(t *testing.T) {
	r := NewRand(1)
	got := [3]uint64{r.Uint64(), r.Uint64(), r.Uint64()}
	r2 := NewRand(1)
	for i, g := range got {
		if v := r2.Uint64(); v != g {
			t.Fatalf("draw %d: %d then %d", i, g, v)
		}
	}
	if got != pinnedSeed1 {
		t.Fatalf("seed 1 draws = %v, want %v", got, pinnedSeed1)
	}
}

func TestRandRanges(t *testing.T) {
	r := NewRand(3)
	counts := make([]int, 10)
	for i := 0; i < 100000; i++ {
		f := r.Float64()
		if f < 0 || f >= 1 {
			t.Fatalf("Float64 = %v", f)
		}
		u := r.Uniform(2, 4)
		if u < 2 || u >= 4 {
			t.Fatalf("Uniform(2,4) = %v", u)
		}
		counts[r.Intn(10)]++
	}
	for i, c := range counts {
		if c < 9500 || c > 10500 {
			t.Fatalf("Intn(10) gave %d a %d times in 100000 draws", i, c)
		}
	}
}

func join(s []string) string {
	out := ""
	for _, x := range s {
		out += x
	}
	return out
}

var pinnedSeed1 = [3]uint64{12966619160104079557, 9600361134598540522, 10590380919521690900}

// Thousands of events at few distinct times, some scheduled by others as
// they run: each runs in order of time and, at one time, in the order it
// was scheduled, whatever the heap's shape.
func TestQueueOrdersManyEvents(t *testing.T) {
	const seed = 7
	s := New(seed)
	type ran struct {
		at  time.Duration
		seq int
	}
	var got []ran
	n := 0
	var schedule func(depth int)
	schedule = func(depth int) {
		n++
		seq := n
		s.After(time.Duration(s.Rand.Intn(5))*time.Millisecond, func() {
			got = append(got, ran{s.Now(), seq})
			if depth < 3 && s.Rand.Intn(2) == 0 {
				schedule(depth + 1)
			}
		})
	}
	for range 3000 {
		schedule(0)
	}
	s.Run()
	if len(got) != n {
		t.Fatalf("seed %d: %d events ran, %d scheduled", seed, len(got), n)
	}
	for i := 1; i < len(got); i++ {
		a, b := got[i-1], got[i]
		if b.at < a.at || (b.at == a.at && b.seq < a.seq) {
			t.Fatalf("seed %d: event %d (at %v) ran after event %d (at %v)", seed, b.seq, b.at, a.seq, a.at)
		}
	}
}

func TestNames(t *testing.T) {
	got := Names("req-", 12)
	if len(got) != 12 || got[0] != "req-1" || got[8] != "req-9" || got[9] != "req-10" || got[11] != "req-12" {
		t.Fatalf("Names(req-, 12) = %q", got)
	}
	if n := Names("x", 0); len(n) != 0 {
		t.Fatalf("Names(x, 0) = %q", n)
	}
	// A thousand names are two blocks, their bytes and the slice.
	if allocs := testing.AllocsPerRun(10, func() { Names("req-", 1000) }); allocs != 2 {
		t.Errorf("Names(req-, 1000) makes %v allocations, want 2", allocs)
	}
}

// NamesLen is the bytes of the names Names makes, across the numbers'
// widths, so that an arena grown by it holds them in one block.
func TestNamesLen(t *testing.T) {
	total := 0
	for n := 0; n <= 1200; n++ {
		if n > 0 {
			total += len("pay_" + strconv.Itoa(n))
		}
		if got := NamesLen("pay_", n); got != total {
			t.Fatalf("NamesLen(pay_, %d) = %d, want %d", n, got, total)
		}
	}
	var a Arena
	allocs := testing.AllocsPerRun(1, func() {
		a = Arena{}
		a.GrowNames("req-", 120)
		for i := range 120 {
			a.Number(i+1, "req-")
		}
	})
	if allocs != 1 {
		t.Errorf("an arena grown by GrowNames made %v allocations for its names, want 1", allocs)
	}
}

// An arena's strings keep their text as it grows past its first block.
func TestArenaStringsStay(t *testing.T) {
	var a Arena
	a.Grow(8)
	var got []string
	for i := range 200 {
		got = append(got, a.Number(i, "sender-", "x/"))
	}
	for i, s := range got {
		if want := "sender-x/" + strconv.Itoa(i); s != want {
			t.Fatalf("string %d is %q, want %q", i, s, want)
		}
	}
}

var (
	testKinds, unsaidKinds Family

	testX  = testKinds.Kind("x")
	testY  = testKinds.Kind("y")
	unsaid = unsaidKinds.Kind("unsaid")
)

func init() {
	testKinds.Say(func(e Event) string { return e.Kind.String() + " " + strconv.Itoa(e.N) })
}

// A kind is a small number with the name it was declared with, and its
// family writes its events' sentences; a run's own Sayer comes first.
func TestKindsNameAndSay(t *testing.T) {
	if testX.String() != "x" || testY.String() != "y" || Truncated.String() != "truncated" || Kind(0).String() != "" {
		t.Fatalf("kinds %d %q, %d %q, truncated %q, none %q", testX, testX, testY, testY, Truncated, Kind(0))
	}
	undeclared := Kind(len(kinds))
	if got, want := undeclared.String(), "kind "+strconv.Itoa(len(kinds)); got != want {
		t.Errorf("an undeclared kind is %q, want %q", got, want)
	}
	if got := (Event{Kind: testY, N: 3}).Sentence(); got != "y 3" {
		t.Errorf("y's sentence %q, want %q", got, "y 3")
	}
	if got := (Event{Kind: unsaid}).Sentence(); got != "" {
		t.Errorf("a kind whose family says nothing: %q, want none", got)
	}
	if got := (Event{Kind: undeclared}).Sentence(); got != "" {
		t.Errorf("an undeclared kind says %q, want nothing", got)
	}
	run := &Sayer{Say: func(Event) string { return "the run's" }}
	if got := (Event{Kind: testX, Say: run}).Sentence(); got != "the run's" {
		t.Errorf("with a run's sayer: %q", got)
	}
	var tr Trace
	tr.Keep(Event{Kind: testX}, 0)
	if got := tr[0].Sentence(); got != "The trace stops here; the summary counts every event." {
		t.Errorf("truncated says %q", got)
	}
}

// Every kind declared gets a number of its own, whichever family declares
// it and whatever its name: two families' "send" are two kinds, each
// writing its own family's sentence.
func TestKindsAreHandedOut(t *testing.T) {
	var a, b Family
	a.Say(func(Event) string { return "a's" })
	b.Say(func(Event) string { return "b's" })
	sendA, sendB, again := a.Kind("send"), b.Kind("send"), a.Kind("send")
	seen := map[Kind]bool{}
	for _, k := range []Kind{0, Truncated, testX, testY, unsaid, sendA, sendB, again} {
		if seen[k] {
			t.Fatalf("kind %d handed out twice", k)
		}
		seen[k] = true
	}
	if sendA.String() != "send" || sendB.String() != "send" {
		t.Errorf("names %q and %q, want send twice", sendA, sendB)
	}
	if sa, sb := (Event{Kind: sendA}).Sentence(), (Event{Kind: sendB}).Sentence(); sa != "a's" || sb != "b's" {
		t.Errorf("sentences %q and %q, want a's and b's", sa, sb)
	}
}

// A queue's room is one block, its heap and its handlers together, and
// its slots are reused: scheduling more than it has room for, one at a
// time, grows nothing.
func TestQueueRoomIsOneBlock(t *testing.T) {
	var c counter
	s := new(Sim)
	allocs := testing.AllocsPerRun(10, func() {
		*s = Sim{}
		s.Reserve(0, 3)
		for i := range 100 {
			s.Schedule(time.Duration(i), &c)
			s.Schedule(time.Duration(i), &c)
			s.Step()
			s.Step()
		}
	})
	if allocs != 1 {
		t.Fatalf("%v allocations for a queue of three, reused 100 times; want 1", allocs)
	}
}

type counter struct{ n int }

func (c *counter) Handle() { c.n++ }

// Scheduling a func made once, or a pointer to a Handler, allocates
// nothing once the queue has room.
func TestSchedulingAllocatesNothing(t *testing.T) {
	s := New(1)
	s.Reserve(0, 2)
	var c counter
	fn := func() { c.n++ }
	allocs := testing.AllocsPerRun(100, func() {
		s.After(time.Second, fn)
		s.Schedule(s.Now(), &c)
		s.Run()
	})
	if allocs != 0 || c.n != 202 {
		t.Fatalf("%v allocations a run, %d handled; want 0 and 202", allocs, c.n)
	}
}
