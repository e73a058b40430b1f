package payment

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/retrylab/retrylab/engine/param"
	"github.com/retrylab/retrylab/engine/sim"
)

func run(t *testing.T, keys Keys, faults ...Fault) Result {
	t.Helper()
	p := Binding.Defaults()
	p.Keys, p.Faults = keys, faults
	r, err := Run(p)
	if err != nil {
		t.Fatalf("Run(%+v): %v", p, err)
	}
	return r
}

func ids(cs []Charge) string {
	var s []string
	for _, c := range cs {
		s = append(s, c.ID)
	}
	return strings.Join(s, ",")
}

// The four published cases of the package documentation (amount 2500).
func TestTableRowsThroughRun(t *testing.T) {
	for _, tc := range []struct {
		name     string
		keys     Keys
		faults   []Fault
		charges  string // the ledger's ids
		receipt  string
		replayed bool
	}{
		{"lost request, no keys", KeysOff, []Fault{LoseRequest, OK}, "ch_1", "ch_1", false},
		{"lost response, no keys: double charge", KeysOff, []Fault{LoseResponse, OK}, "ch_1,ch_2", "ch_2", false},
		{"lost response, key per intent", KeysPerIntent, []Fault{LoseResponse, OK}, "ch_1", "ch_1", true},
		{"lost response, key per attempt: double charge", KeysPerAttempt, []Fault{LoseResponse, OK}, "ch_1,ch_2", "ch_2", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, tc.keys, tc.faults...)
			if got := ids(r.Charges); got != tc.charges {
				t.Errorf("charges %s, want %s", got, tc.charges)
			}
			if r.Receipt != tc.receipt || r.Status != 201 || r.Replayed != tc.replayed || r.Attempts != 2 {
				t.Errorf("receipt %q status %d replayed %v attempts %d; want %q 201 %v 2",
					r.Receipt, r.Status, r.Replayed, r.Attempts, tc.receipt, tc.replayed)
			}
			if n := r.Trace.Count(EvCharge); n != len(r.Charges) {
				t.Errorf("%d charge events for %d charges", n, len(r.Charges))
			}
			for _, c := range r.Charges {
				if c.Amount != 2500 {
					t.Errorf("charge %s of %d cents, want 2500", c.ID, c.Amount)
				}
			}
		})
	}
}

// The ledger says which attempt charged, with which key, and when: attempt
// n leaves at (n-1) s and charges Latency + Work = 100 ms later.
func TestLedgerOfTheDoubleCharge(t *testing.T) {
	r := run(t, KeysPerAttempt, LoseResponse, OK)
	want := []Charge{
		{ID: "ch_1", Amount: 2500, Key: "k_1", Attempt: 1, At: 100 * time.Millisecond},
		{ID: "ch_2", Amount: 2500, Key: "k_2", Attempt: 2, At: time.Second + 100*time.Millisecond},
	}
	if len(r.Charges) != len(want) {
		t.Fatalf("charges %+v", r.Charges)
	}
	for i := range want {
		if r.Charges[i] != want[i] {
			t.Errorf("charge %d = %+v, want %+v", i, r.Charges[i], want[i])
		}
	}
}

type step struct {
	kind          string
	lane, to, ref string
	at            time.Duration
}

// Row 2, event by event: the first answer is lost after the charge, the
// client times out at 1 s and pays again.
func TestTraceOfTheDoubleCharge(t *testing.T) {
	r := run(t, KeysOff, LoseResponse, OK)
	ms := time.Millisecond
	want := []step{
		{"attempt", "client", "server", "", 0},
		{"charge", "server", "", "ch_1", 100 * ms}, // 40 ms there + 60 ms of work
		{"response", "server", "client", "ch_1", 100 * ms},
		{"response-lost", "network", "", "", 140 * ms}, // when it would have arrived
		{"timeout", "client", "", "", 1000 * ms},
		{"attempt", "client", "server", "", 1000 * ms},
		{"charge", "server", "", "ch_2", 1100 * ms},
		{"response", "server", "client", "ch_2", 1100 * ms},
		{"receipt", "client", "", "ch_2", 1140 * ms},
	}
	checkTrace(t, r.Trace, want)
	texts := map[string]string{
		"attempt":       "POST /payments, attempt 1",
		"charge":        "card charged: ch_1 (25.00)",
		"response":      "201 Created ch_1",
		"response-lost": "the response is lost; the card was charged",
		"timeout":       "no answer after 1 s: the client cannot know what happened",
		"receipt":       "receipt: ch_2",
	}
	for _, e := range r.Trace {
		if w, ok := texts[e.Kind.String()]; ok {
			if e.Sentence() != w {
				t.Errorf("%s says %q, want %q", e.Kind, e.Sentence(), w)
			}
			delete(texts, e.Kind.String()) // the first of each kind
		}
	}
}

func TestTraceOfTheReplay(t *testing.T) {
	r := run(t, KeysPerIntent, LoseResponse, OK)
	ms := time.Millisecond
	checkTrace(t, r.Trace, []step{
		{"attempt", "client", "server", "k_1", 0},
		{"charge", "server", "", "ch_1", 100 * ms},
		{"response", "server", "client", "ch_1", 100 * ms},
		{"response-lost", "network", "", "", 140 * ms},
		{"timeout", "client", "", "", 1000 * ms},
		{"attempt", "client", "server", "k_1", 1000 * ms},
		{"replay", "server", "", "ch_1", 1100 * ms},
		{"response", "server", "client", "ch_1", 1100 * ms},
		{"receipt", "client", "", "ch_1", 1140 * ms},
	})
	if a := r.Trace[5].Sentence(); a != "POST /payments, attempt 2, Idempotency-Key k_1" {
		t.Errorf("attempt text %q", a)
	}
	if s := r.Trace[6].Sentence(); s != "key k_1 seen before: the saved answer is replayed, nothing charged" {
		t.Errorf("replay text %q", s)
	}
}

func TestTraceOfALostRequest(t *testing.T) {
	r := run(t, KeysOff, LoseRequest, OK)
	checkTrace(t, r.Trace, []step{
		{"attempt", "client", "server", "", 0},
		{"request-lost", "network", "", "", 40 * time.Millisecond},
		{"timeout", "client", "", "", time.Second},
		{"attempt", "client", "server", "", time.Second},
		{"charge", "server", "", "ch_1", 1100 * time.Millisecond},
		{"response", "server", "client", "ch_1", 1100 * time.Millisecond},
		{"receipt", "client", "", "ch_1", 1140 * time.Millisecond},
	})
	if s := r.Trace[1].Sentence(); s != "the request is lost; the server never sees it" {
		t.Errorf("request-lost text %q", s)
	}
}

func checkTrace(t *testing.T, tr sim.Trace, want []step) {
	t.Helper()
	if len(tr) != len(want) {
		t.Errorf("%d events, want %d", len(tr), len(want))
	}
	for i := 0; i < len(tr) && i < len(want); i++ {
		e, w := tr[i], want[i]
		if e.Kind.String() != w.kind || e.Lane != w.lane || e.To != w.to || e.Ref != w.ref || e.At != w.at {
			t.Errorf("event %d = {%s %s to %q ref %q at %v}, want {%s %s to %q ref %q at %v}",
				i, e.Kind, e.Lane, e.To, e.Ref, e.At, w.kind, w.lane, w.to, w.ref, w.at)
		}
	}
}

func TestGiveUp(t *testing.T) {
	p := Params{Keys: KeysPerIntent, Faults: []Fault{LoseResponse, LoseRequest, LoseResponse, OK}, Attempts: 3, Amount: 2500}
	r, err := Run(p)
	if err != nil {
		t.Fatal(err)
	}
	// Three attempts, none answered: the first charged, the third replayed
	// into a lost response; the client holds nothing.
	if r.Receipt != "" || r.Status != 0 || r.Replayed || r.Attempts != 3 || len(r.Charges) != 1 {
		t.Fatalf("receipt %q status %d replayed %v attempts %d charges %d; want \"\" 0 false 3 1",
			r.Receipt, r.Status, r.Replayed, r.Attempts, len(r.Charges))
	}
	last := r.Trace[len(r.Trace)-1]
	if last.Kind != EvGiveUp || last.Lane != "client" || last.At != 3*time.Second || r.Trace.Count(EvTimeout) != 3 {
		t.Fatalf("last event %+v, %d timeouts; want give-up at 3 s after 3 timeouts", last, r.Trace.Count(EvTimeout))
	}
	if !strings.Contains(last.Sentence(), "3 attempts") {
		t.Fatalf("give-up says %q", last.Sentence())
	}
	if r.Trace.Count(EvReceipt) != 0 {
		t.Fatal("a receipt in a run that gave up")
	}
}

func TestDefaults(t *testing.T) {
	p := Binding.Defaults()
	// "lose-response, ok" as declared: the trailing ok is what every
	// attempt past the list does anyway.
	if p.Keys != KeysOff || len(p.Faults) != 1 || p.Faults[0] != LoseResponse ||
		p.Attempts != 3 || p.Amount != 2500 || p.Validate() != nil {
		t.Fatalf("Binding.Defaults() = %+v", p)
	}
	p.Faults[0] = OK
	if Binding.Defaults().Faults[0] != LoseResponse {
		t.Fatal("Defaults shares its fault list between calls")
	}
	// The widget starts with the second row: a double charge.
	r, _ := Run(Binding.Defaults())
	if len(r.Charges) != 2 || r.Receipt != "ch_2" {
		t.Fatalf("default run: %d charges, receipt %q", len(r.Charges), r.Receipt)
	}
}

func TestValidateNamesTheParameter(t *testing.T) {
	eleven := make([]Fault, 11)
	for i := range eleven {
		eleven[i] = OK
	}
	for _, tc := range []struct {
		change func(*Params)
		param  string
		msg    string
	}{
		{func(p *Params) { p.Keys = "on" }, "keys", `keys: "on" is not allowed (allowed: off, per-intent, per-attempt)`},
		{func(p *Params) { p.Keys = "" }, "keys", `keys: "" is not allowed (allowed: off, per-intent, per-attempt)`},
		{func(p *Params) { p.Faults = []Fault{OK, "drop"} }, "faults", `faults: "drop" is not allowed (allowed: ok, lose-request, lose-response)`},
		{func(p *Params) { p.Faults = eleven }, "faults", `faults: "ok,ok,ok,ok,ok,ok,ok,ok,ok,ok,ok" has 11 items (allowed: at most 10)`},
		{func(p *Params) { p.Attempts = 0 }, "attempts", `attempts: "0" is out of bounds (allowed: 1 to 10)`},
		{func(p *Params) { p.Attempts = 11 }, "attempts", `attempts: "11" is out of bounds (allowed: 1 to 10)`},
		{func(p *Params) { p.Amount = 0 }, "amount", `amount: "0" is out of bounds (allowed: 1 to 99999999)`},
		{func(p *Params) { p.Amount = 100000000 }, "amount", `amount: "100000000" is out of bounds (allowed: 1 to 99999999)`},
	} {
		p := Binding.Defaults()
		tc.change(&p)
		err := p.Validate()
		var pe *param.Error
		if !errors.As(err, &pe) || pe.Param != tc.param || err.Error() != tc.msg {
			t.Errorf("Validate(%+v) = %v; want %s", p, err, tc.msg)
			continue
		}
		if _, err := Run(p); err == nil {
			t.Errorf("Run(%+v) ran with invalid parameters", p)
		}
	}
	// The bounds themselves are allowed.
	ten := eleven[:10]
	for _, p := range []Params{
		{Keys: KeysPerAttempt, Faults: ten, Attempts: 10, Amount: 99999999},
		{Keys: KeysPerIntent, Faults: nil, Attempts: 1, Amount: 1},
	} {
		if err := p.Validate(); err != nil {
			t.Errorf("Validate(%+v): %v", p, err)
		}
	}
}

// everyFaultList calls fn with every list of faults of length 0 to max.
func everyFaultList(max int, fn func([]Fault)) {
	all := []Fault{OK, LoseRequest, LoseResponse}
	var rec func(prefix []Fault)
	rec = func(prefix []Fault) {
		fn(prefix)
		if len(prefix) == max {
			return
		}
		for _, f := range all {
			rec(append(prefix[:len(prefix):len(prefix)], f))
		}
	}
	rec(nil)
}

// model predicts, without the simulator, how many attempts the client makes
// and how many of its requests reach the server: it stops at the first
// attempt whose fault is ok (an answer), or after attempts.
func model(faults []Fault, attempts int) (made, reached int, answered bool) {
	for n := 1; n <= attempts; n++ {
		f := OK
		if n <= len(faults) {
			f = faults[n-1]
		}
		made = n
		if f != LoseRequest {
			reached++
		}
		if f == OK {
			return made, reached, true
		}
	}
	return made, reached, false
}

// For every fault list up to 6 long (3^0 + ... + 3^6 = 1,093 lists) and 1
// to 7 attempts: keys per intent never charge twice, and without keys (or
// with a key per attempt) every request that reaches the server charges.
func TestChargesOverEveryFaultList(t *testing.T) {
	lists := 0
	everyFaultList(6, func(faults []Fault) {
		lists++
		for attempts := 1; attempts <= 7; attempts++ {
			made, reached, answered := model(faults, attempts)
			for _, keys := range []Keys{KeysOff, KeysPerIntent, KeysPerAttempt} {
				p := Params{Keys: keys, Faults: faults, Attempts: attempts, Amount: 2500}
				r, err := Run(p)
				if err != nil {
					t.Fatalf("Run(%+v): %v", p, err)
				}
				where := string(keys) + " " + strconv.Quote(joinFaults(faults)) + " attempts " + strconv.Itoa(attempts)
				if r.Attempts != made || r.Trace.Count(EvAttempt) != made {
					t.Fatalf("%s: %d attempts, want %d", where, r.Attempts, made)
				}
				if got := r.Trace.Count(EvAttempt) - r.Trace.Count(EvRequestLost); got != reached {
					t.Fatalf("%s: trace shows %d requests reaching the server, model %d", where, got, reached)
				}
				want := reached
				if keys == KeysPerIntent && reached > 1 {
					want = 1
				}
				if len(r.Charges) != want {
					t.Fatalf("%s: %d charges, want %d", where, len(r.Charges), want)
				}
				switch {
				case answered && (r.Status != 201 || r.Receipt != r.Charges[len(r.Charges)-1].ID):
					t.Fatalf("%s: answered with status %d receipt %q, want 201 and the last charge", where, r.Status, r.Receipt)
				case !answered && (r.Receipt != "" || r.Status != 0 || r.Trace.Count(EvGiveUp) != 1):
					t.Fatalf("%s: gave up but holds %q (status %d)", where, r.Receipt, r.Status)
				}
				if r.Replayed != (answered && keys == KeysPerIntent && reached > 1) {
					t.Fatalf("%s: replayed %v", where, r.Replayed)
				}
			}
		}
	})
	if lists != 1093 {
		t.Fatalf("enumerated %d fault lists, want 1093", lists)
	}
}

func joinFaults(fs []Fault) string {
	s := make([]string, len(fs))
	for i, f := range fs {
		s[i] = string(f)
	}
	return strings.Join(s, ",")
}

// The trace is reserved once at mostEvents, which is exact: for every
// run of up to four attempts, whatever the faults and the keys, the run
// records that many events, so it neither grows the trace nor reserves
// room it never uses.
func TestTraceIsReservedExactly(t *testing.T) {
	faults := []Fault{OK, LoseRequest, LoseResponse}
	for attempts := 1; attempts <= 4; attempts++ {
		for _, keys := range []Keys{KeysOff, KeysPerIntent, KeysPerAttempt} {
			// Every list of attempts faults, as a number in base 3.
			for code := 0; code < pow(len(faults), attempts); code++ {
				p := Binding.Defaults()
				p.Keys, p.Attempts, p.Faults = keys, attempts, nil
				for c := code; len(p.Faults) < attempts; c /= len(faults) {
					p.Faults = append(p.Faults, faults[c%len(faults)])
				}
				res, err := Run(p)
				if err != nil {
					t.Fatal(err)
				}
				if want := mostEvents(p); len(res.Trace) != want {
					t.Errorf("keys %s, faults %v: %d events, want %d", keys, p.Faults, len(res.Trace), want)
				}
			}
		}
	}
}

func pow(b, n int) int {
	r := 1
	for range n {
		r *= b
	}
	return r
}
