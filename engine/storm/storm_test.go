package storm

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/retrylab/retrylab/engine/param"
)

// The three published rows (the package documentation): goodput healthy / during the
// trigger / recovery after it ended.
func TestFigures(t *testing.T) {
	never := -1
	for _, c := range []struct {
		name          string
		budget, skip  bool
		healthy, slow int
		recovered     int // -1: never
	}{
		{"retry every timeout", false, false, 80, 20, never},
		{"retry budget 10%", true, false, 80, 20, 20},
		{"budget + skip expired work", true, true, 80, 40, 0},
	} {
		p := Binding.Defaults()
		p.Budget, p.SkipExpired = c.budget, c.skip
		res, err := Run(p)
		if err != nil {
			t.Fatal(err)
		}
		rec := never
		if res.RecoveredAfterS != nil {
			rec = *res.RecoveredAfterS
		}
		if res.Healthy != c.healthy || res.Slow != c.slow || rec != c.recovered {
			t.Errorf("%s: %d/%d/%d, want %d/%d/%d (goodput %v)", c.name, res.Healthy, res.Slow, rec, c.healthy, c.slow, c.recovered, res.Goodput)
		}
	}
}

// Why "never": once the trigger ends, the queue holds more expired work than
// a second's capacity, oldest first, so the server spends every second on
// requests nobody waits for, while each timeout feeds the queue again.
func TestWithoutBudgetTheQueueNeverDrains(t *testing.T) {
	res, _ := Run(Binding.Defaults())
	for s := 25; s < 120; s++ {
		if res.Goodput[s] != 0 || res.Wasted[s] != 100 {
			t.Fatalf("second %d: goodput %d, wasted %d; want 0 and the whole capacity (100)", s, res.Goodput[s], res.Wasted[s])
		}
	}
	if res.Queue[119] <= res.Queue[60] {
		t.Fatalf("queue %d at 60 s and %d at 119 s: it should keep growing", res.Queue[60], res.Queue[119])
	}
}

// Healthy means every request is answered the second it arrives.
func TestHealthyServerAnswersEverything(t *testing.T) {
	p := Binding.Defaults()
	p.SlowFactor = 1 // no trigger at all
	res, _ := Run(p)
	for s, g := range res.Goodput {
		if g != 80 || res.Offered[s] != 80 || res.Queue[s] != 0 {
			t.Fatalf("second %d: goodput %d, offered %d, queue %d", s, g, res.Offered[s], res.Queue[s])
		}
	}
	if res.RecoveredAfterS == nil || *res.RecoveredAfterS != 0 || res.Calls != 80*120 {
		t.Fatalf("recovered %v, calls %d", res.RecoveredAfterS, res.Calls)
	}
}

// The group queue must agree with a queue of single requests, each with its
// own client, for a spread of parameters.
func TestMatchesOneRequestAtATime(t *testing.T) {
	var cases []Params
	for _, budget := range []bool{false, true} {
		for _, skip := range []bool{false, true} {
			for _, retries := range []int{0, 1, 3} {
				for _, timeout := range []int{1, 3, 5} {
					p := Binding.Defaults()
					p.Budget, p.SkipExpired, p.Retries, p.Timeout = budget, skip, retries, timeout
					cases = append(cases, p)
				}
			}
		}
	}
	odd := Params{New: 37, Capacity: 41, SlowFrom: 3, SlowTo: 30, SlowFactor: 0.1, Timeout: 2, Retries: 5, Budget: true, Seconds: 60}
	cases = append(cases, odd)
	for i, p := range cases {
		got, err := Run(p)
		if err != nil {
			t.Fatal(err)
		}
		want := oneByOne(p)
		if !slices.Equal(got.Goodput, want.Goodput) || !slices.Equal(got.Wasted, want.Wasted) ||
			!slices.Equal(got.Queue, want.Queue) || got.GaveUp != want.GaveUp {
			t.Errorf("case %d %+v:\n groups %v\n single %v", i, p, got.Goodput, want.Goodput)
		}
	}
}

// oneByOne is the model with a queue of single requests, each remembering
// its client, and a list of timed-out clients per second.
func oneByOne(p Params) Summary {
	type request struct {
		created, client int
		answered        bool
	}
	var s Summary
	s.Goodput, s.Wasted, s.Queue = make([]int, p.Seconds), make([]int, p.Seconds), make([]int, p.Seconds)
	var queue []*request
	byTick := map[int][]*request{}
	tries := map[int]int{}
	tokens, clients := 100, 0 // in tenths of a token
	slow := int(math.Round(float64(p.Capacity) * p.SlowFactor))
	for t := 0; t < p.Seconds; t++ {
		for _, r := range byTick[t-p.Timeout] {
			if r.answered {
				continue
			}
			if tries[r.client] >= p.Retries || (p.Budget && tokens <= 10) { // a retry may not empty the bucket
				s.GaveUp++
				continue
			}
			if p.Budget {
				tokens -= 10
			}
			tries[r.client]++
			nr := &request{created: t, client: r.client}
			queue = append(queue, nr)
			byTick[t] = append(byTick[t], nr)
		}
		for i := 0; i < p.New; i++ {
			if p.Budget {
				tokens = min(100, tokens+1)
			}
			nr := &request{created: t, client: clients}
			clients++
			queue = append(queue, nr)
			byTick[t] = append(byTick[t], nr)
		}
		c := p.Capacity
		if t >= p.SlowFrom && t < p.SlowTo {
			c = slow
		}
		for c > 0 && len(queue) > 0 {
			r := queue[0]
			queue = queue[1:]
			switch {
			case t-r.created >= p.Timeout && p.SkipExpired:
			case t-r.created >= p.Timeout:
				c--
				s.Wasted[t]++
			default:
				c--
				r.answered = true
				s.Goodput[t]++
			}
		}
		s.Queue[t] = len(queue)
	}
	return s
}

func TestValidateNamesTheParameter(t *testing.T) {
	for _, c := range []struct {
		set  func(*Params)
		want string
	}{
		{func(p *Params) { p.New = -1 }, `new: "-1" is out of bounds (allowed: 0 to 10000)`},
		{func(p *Params) { p.Capacity = 0 }, `capacity: "0" is out of bounds (allowed: 1 to 10000)`},
		{func(p *Params) { p.SlowFrom = 120 }, `slow-from: "120" is not below seconds (120)`},
		{func(p *Params) { p.SlowTo = 10 }, `slow-to: "10" is not above slow-from (10)`},
		{func(p *Params) { p.SlowFactor = 2 }, `slow-factor: "2" is out of bounds (allowed: 0 to 1)`},
		{func(p *Params) { p.Timeout = 0 }, `timeout: "0" is out of bounds (allowed: 1 to 60)`},
		{func(p *Params) { p.Retries = -1 }, `retries: "-1" is out of bounds (allowed: 0 to 10)`},
		{func(p *Params) { p.Seconds = 5 }, `seconds: "5" is out of bounds (allowed: 10 to 600)`},
	} {
		p := Binding.Defaults()
		c.set(&p)
		if _, err := Run(p); err == nil || err.Error() != c.want {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

// No parameters within bounds panic; every request is accounted for once:
// answered, served too late, dropped or still queued.
func FuzzRun(f *testing.F) {
	f.Add(80, 100, 10, 20, 0.4, 3, 3, true, false, 120)
	f.Add(0, 1, 0, 1, 0.0, 1, 0, false, true, 10)
	f.Add(1_000_000, 1_000_000, 0, 3600, 1.0, 60, 10, true, true, 3600)
	f.Add(-5, 0, 50, 2, math.Inf(1), 0, 99, false, false, 1)
	f.Fuzz(func(t *testing.T, newPer, capacity, from, to int, factor float64, timeout, retries int, budget, skip bool, seconds int) {
		p := Params{New: newPer, Capacity: capacity, SlowFrom: from, SlowTo: to, SlowFactor: factor,
			Timeout: timeout, Retries: retries, Budget: budget, SkipExpired: skip, Seconds: seconds}
		res, err := Run(p)
		if p.Validate() != nil {
			var pe *param.Error
			names := []string{"new", "capacity", "slow-from", "slow-to", "slow-factor", "timeout", "retries", "seconds"}
			if !errors.As(err, &pe) || !slices.Contains(names, pe.Param) {
				t.Fatalf("%+v: error %v does not name a parameter", p, err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		answered, wasted := 0, 0
		for s := range res.Goodput {
			answered += res.Goodput[s]
			wasted += res.Wasted[s]
		}
		if answered+wasted > res.Calls || res.Queue[p.Seconds-1] > res.Calls-answered-wasted || res.Healthy > p.New || res.Slow > p.New {
			t.Fatalf("%+v: %d calls, %d answered, %d wasted, %d queued", p, res.Calls, answered, wasted, res.Queue[p.Seconds-1])
		}
	})
}

func BenchmarkStorm(b *testing.B) {
	p := Binding.Defaults()
	for b.Loop() {
		if _, err := Run(p); err != nil {
			b.Fatal(err)
		}
	}
}
