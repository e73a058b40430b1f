package widget

import (
	"strings"
	"testing"

	fig "github.com/retrylab/retrylab/engine/figures"
	"github.com/retrylab/retrylab/engine/lock"
	"github.com/retrylab/retrylab/engine/sim"
)

// engine/lock's figures through the replay: the figures grow step by
// step to the table's, at the defaults and with a crash after the charge.
func TestLockReplay(t *testing.T) {
	counts := []string{"data-charges", "data-sends", "data-conflicts", "data-replays", "data-unavailable"}
	for _, r := range fig.Of("lock") {
		if c := r.Params["crash"]; len(r.Params) > 0 && c != "after-charge" {
			continue
		}
		got := stepThrough(t, &Lock, r.Params, counts...)
		wanted := map[string]string{}
		for k, v := range r.Want {
			wanted["data-"+k] = v
		}
		want(t, r.Case, got, wanted)
	}
}

// section returns the markup of the panel labelled label.
func section(t *testing.T, html, label string) string {
	t.Helper()
	i := strings.Index(html, `aria-label="`+label+`"`)
	if i < 0 {
		t.Fatalf("no %q in %s", label, html)
	}
	j := strings.Index(html[i:], "</section>")
	return html[i : i+j]
}

// stepAt is the first step at which the replay has reached time secs.
func stepAt(t *testing.T, raw map[string]string, secs int) int {
	t.Helper()
	_, run := runAt(t, &Lock, raw, 0)
	for i, e := range run.(*lockRun).res.Trace {
		if e.At.Seconds() >= float64(secs) {
			return i + 1
		}
	}
	t.Fatalf("the run ends before %d s", secs)
	return 0
}

// The Redis panel shows each key's value and time to live as the replay
// goes: a lock with no result while the crashed charge is unknown, the
// keys evicted, then taken again.
func TestLockKeysOverTime(t *testing.T) {
	crash := map[string]string{"crash": "after-charge"}
	html, _ := runAt(t, &Lock, crash, stepAt(t, crash, 70))
	redis := section(t, html, "The keys in Redis")
	if !strings.Contains(redis, "<strong>taken</strong> · TTL 230 s left") || !strings.Contains(redis, `<dd class="empty">absent</dd>`) {
		t.Errorf("crash after the charge, at t = 70 s: want the lock with 230 s left and no result: %s", redis)
	}
	html, _ = runAt(t, &Lock, crash, len(mustRun(t, crash).res.Trace))
	if redis := section(t, html, "The keys in Redis"); !strings.Contains(redis, "<strong>ch_2</strong> · TTL") {
		t.Errorf("crash after the charge, at the end: want the second charge saved: %s", redis)
	}

	evict := map[string]string{"retry": "200", "evict": "on"}
	html, _ = runAt(t, &Lock, evict, stepAt(t, evict, 120))
	if redis := section(t, html, "The keys in Redis"); strings.Count(redis, "evicted at t = 120 s") != 2 {
		t.Errorf("eviction at 120 s: want both keys evicted: %s", redis)
	}
	// GET-then-SET: both charges save, and the second SET overwrites the
	// first.
	html = render(t, &Lock, map[string]string{"guard": "get-then-set"})
	if redis := section(t, html, "The keys in Redis"); !strings.Contains(redis, "<strong>ch_2</strong>") {
		t.Errorf("get-then-set: want the result key to hold ch_2, which overwrote ch_1: %s", redis)
	}
	down := map[string]string{"store": "down", "on-down": "fail-closed"}
	html, _ = runAt(t, &Lock, down, 1)
	if redis := section(t, html, "The keys in Redis"); !strings.Contains(redis, "Unreachable until t = 30 s.") {
		t.Errorf("store down: the panel does not say so: %s", redis)
	}
}

func mustRun(t *testing.T, raw map[string]string) *lockRun {
	t.Helper()
	_, run := runAt(t, &Lock, raw, 0)
	return run.(*lockRun)
}

// The outcome names what turned one charge into two, for every failure
// of the table.
func TestLockVerdictNamesTheCause(t *testing.T) {
	for _, c := range []struct {
		raw  map[string]string
		says string
	}{
		{map[string]string{"guard": "none"}, "with no guard, every request is charged"},
		{map[string]string{"guard": "get-then-set", "dupes": "20"}, "Charged 20 times for one payment: each GET ran before the first result was saved"},
		{map[string]string{"work": "400"}, "the lock expired at t = 300 s while the first charge was still running"},
		{map[string]string{"crash": "after-charge"}, "the server crashed after the charge and saved nothing, leaving only the lock; when it expired at t = 300 s"},
		{map[string]string{"crash": "before-charge"}, "Charged once. The duplicate got the saved result, replayed, after 9 409s while the lock was held. The crash left a lock and nothing else"},
		{map[string]string{"store": "down"}, "Redis was down and the server failed open"},
		{map[string]string{"store": "down", "on-down": "fail-closed"}, "after 2 503s while Redis was down and 1 409 while the lock was held"},
		{map[string]string{"retry": "200", "evict": "on"}, "the eviction at t = 120 s dropped the keys"},
		{map[string]string{"attempts": "1"}, "1 sender gave up after 1 attempt without an answer."},
	} {
		html := render(t, &Lock, c.raw)
		if !strings.Contains(html, c.says) {
			t.Errorf("%v: the outcome does not say %q:\n%s", c.raw, c.says, html[strings.Index(html, `class="w-outcome"`):][:600])
		}
	}
}

// The view reads the events' kinds and fields, never their sentences:
// with every sentence blanked, all but the story is drawn the same.
func TestLockViewReadsNoSentences(t *testing.T) {
	for _, raw := range []map[string]string{nil, {"crash": "after-charge"}, {"retry": "200", "evict": "on"}, {"store": "down", "on-down": "fail-closed"}} {
		r := mustRun(t, raw)
		blank := *r
		blank.res.Trace = append(sim.Trace(nil), r.res.Trace...)
		for i := range blank.res.Trace {
			blank.res.Trace[i].Say = &sim.Sayer{Say: func(sim.Event) string { return "?" }}
		}
		for _, step := range []int{1, len(r.res.Trace) / 2, len(r.res.Trace)} {
			var a, b HTML
			r.Output(&a, step)
			blank.Output(&b, step)
			cut := func(s string) string { return s[:strings.Index(s, `<h3 class="w-storyhead"`)] }
			if cut(a.String()) != cut(b.String()) {
				t.Errorf("%v at step %d: the view changes with the sentences", raw, step)
			}
		}
	}
}

// The lanes of a run without a lock draw no lock key.
func TestLockLanesFollowTheGuard(t *testing.T) {
	for guard, lanes := range map[lock.Guard][]string{
		lock.None:       {"Requests sent", "Charges"},
		lock.GetThenSet: {"Requests sent", "Result key, EX 86,400", "Charges"},
		lock.SetNX:      {"Requests sent", "Lock key, EX 300", "Result key, EX 86,400", "Charges"},
	} {
		html := render(t, &Lock, map[string]string{"guard": string(guard)})
		if n := strings.Count(html, `class="lk-lanename"`); n != len(lanes) {
			t.Errorf("%s: %d lanes, want %v", guard, n, lanes)
		}
		for _, l := range lanes {
			if !strings.Contains(html, `class="lk-lanename" x="0" y="`) || !strings.Contains(html, ">"+l+"</text>") {
				t.Errorf("%s: no lane %q", guard, l)
			}
		}
	}
}
