package widget

import (
	"strconv"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/engine/guard"
)

// Twenty at once in lockstep, the figures of engine/guard:
// check-then-insert lets every request through (20 rows, 20 charges);
// constraint-after-charge keeps one row but charged twenty times; claim-
// before-work charges once and answers {201: 1, 409: 19}.
func TestGuardLockstepFigures(t *testing.T) {
	for _, c := range []struct {
		strategy               string
		rows, charges, answers string
		index                  string
	}{
		{"check-then-insert", "20", "20", "201:20", "no unique index on key"},
		{"constraint-after-charge", "1", "20", "201:1,409:19", "UNIQUE (key)"},
		{"claim-before-work", "1", "1", "201:1,409:19", "UNIQUE (key)"},
	} {
		html := render(t, &Guard, map[string]string{"strategy": c.strategy})
		want(t, c.strategy, figures(t, html), map[string]string{
			"data-rows": c.rows, "data-charges": c.charges, "data-statuses": c.answers, "data-done": "true"})
		if !strings.Contains(html, ">"+c.index+"<") {
			t.Errorf("%s: the table's index is not shown as %q", c.strategy, c.index)
		}
		// One lane per request, and every charge of the burst in a lane.
		if n := strings.Count(html, `<th scope="row" class="g-lane">#`); n != 20 {
			t.Errorf("%s: %d lanes, want 20", c.strategy, n)
		}
		if n := strings.Count(html, `class="g-ev k-charge`); n < mustAtoi(t, c.charges) {
			t.Errorf("%s: %d charge cells, want at least %s", c.strategy, n, c.charges)
		}
	}
}

// Check-then-insert at serializable says what happened in plain words: one
// row, twenty charges, nineteen transactions refused with 40001 after
// their charge, each run again to a replay; the lanes show the 40001s.
func TestGuardSerializableSaysTheAborts(t *testing.T) {
	html := render(t, &Guard, map[string]string{"isolation": "serializable"})
	want(t, "serializable", figures(t, html), map[string]string{
		"data-rows": "1", "data-charges": "20", "data-statuses": "201:20", "data-aborts": "19", "data-done": "true"})
	for _, s := range []string{
		"1 row, but 20 charges: 19 transactions failed with a serialization failure (SQLSTATE 40001) after charging the card.",
		"it could not take back a charge",
		"19 × 40001: transactions rolled back by a serialization failure and run again",
		"serialization failure: the transaction rolls back and runs again;",
	} {
		if !strings.Contains(html, s) {
			t.Errorf("the widget does not say %q", s)
		}
	}
	if n := strings.Count(html, `<span class="g-code" aria-hidden="true">40001</span>`); n != 19 {
		t.Errorf("%d lanes show a 40001, want 19", n)
	}
	if html := render(t, &Guard, nil); strings.Contains(html, "× 40001") || strings.Contains(html, ">40001<") || figures(t, html)["data-aborts"] != "0" {
		t.Errorf("at read committed the widget shows 40001s")
	}
}

// The trap is plain at a glance: the card network's panel is marked bad and
// lists twenty payments while the table holds one row.
func TestGuardShowsTheTrap(t *testing.T) {
	html := render(t, &Guard, map[string]string{"strategy": "constraint-after-charge"})
	if !strings.Contains(html, `<section class="g-panel g-card bad"`) {
		t.Error("the card network's panel is not marked bad")
	}
	if n := strings.Count(html, `<li>pay_`); n != 20 {
		t.Errorf("the card network lists %d payments of the burst, want 20", n)
	}
	if !strings.Contains(html, "1 row, but 20 charges") {
		t.Error("the outcome does not say 1 row, but 20 charges")
	}
	claim := render(t, &Guard, map[string]string{"strategy": "claim-before-work"})
	if strings.Contains(claim, "g-card bad") {
		t.Error("claim-before-work's one charge is marked bad")
	}
	// The follow-ups: a retry replays pay_1, another amount is refused.
	if !strings.Contains(claim, "a retry answers 201 pay_1, replayed; the same key with 99.00 answers 422") {
		t.Errorf("claim-before-work's follow-ups are not told: %s", figures(t, claim))
	}
}

// With arrivals spread at random, whatever the seed, the figures the view
// counts from the trace are the engine's summary, and the same seed draws
// the same run.
func TestGuardViewAgreesWithTheEngine(t *testing.T) {
	for _, strategy := range guard.Strategies {
		for seed := 1; seed <= 12; seed++ {
			raw := map[string]string{"strategy": string(strategy), "spread": "4", "seed": strconv.Itoa(seed)}
			res, err := guard.Run(guard.Params{N: 20, Strategy: strategy, Isolation: guard.ReadCommitted, Spread: 4, Seed: uint64(seed)})
			if err != nil {
				t.Fatal(err)
			}
			got := figures(t, render(t, &Guard, raw))
			want(t, string(strategy)+" seed "+strconv.Itoa(seed), got, map[string]string{
				"data-rows": strconv.Itoa(res.Rows), "data-charges": strconv.Itoa(res.Charges), "data-statuses": statusList(res.Statuses)})
		}
	}
	a := render(t, &Guard, map[string]string{"spread": "4", "seed": "7"})
	b := render(t, &Guard, map[string]string{"spread": "4", "seed": "7"})
	if a != b {
		t.Fatal("seed 7 drew two different runs")
	}
}

// A step is one instant of the shared timeline: replaying shows every lane
// move together, the counts only grow, the cells not reached stay in place
// (hidden), and the last step is the end state.
func TestGuardReplay(t *testing.T) {
	raw := map[string]string{"strategy": "claim-before-work"}
	_, run := runAt(t, &Guard, raw, 0)
	steps := run.Steps()
	// Lockstep claim-before-work: the burst takes 6 instants (claim, two
	// card hops or read and answer 409, charge, save, answer 201), each
	// follow-up 3 (claim refused, read, answer).
	if steps != 6+3+3 {
		t.Fatalf("%d steps, want 12", steps)
	}
	prevCharges, prevHidden := -1, 1<<30
	for s := 0; s <= steps; s++ {
		html, _ := runAt(t, &Guard, raw, s)
		f := figures(t, html)
		charges := mustAtoi(t, f["data-charges"])
		hidden := strings.Count(html, " future")
		if charges < prevCharges || hidden >= prevHidden && s > 0 {
			t.Fatalf("step %d: %d charges (was %d), %d hidden cells (was %d)", s, charges, prevCharges, hidden, prevHidden)
		}
		prevCharges, prevHidden = charges, hidden
		if f["data-step"] != strconv.Itoa(s) || (f["data-done"] == "true") != (s == steps) {
			t.Fatalf("step %d: data-step %s data-done %s", s, f["data-step"], f["data-done"])
		}
		if s == 1 && f["data-statuses"] != "" {
			t.Fatalf("after the first instant someone has answered already: %s", f["data-statuses"])
		}
		if s == 3 && f["data-statuses"] != "409:19" {
			// the losers read the claimed row at instant 2 and answer at 3
			t.Fatalf("step 3: %s, want the 19 losers' 409s", f["data-statuses"])
		}
	}
	if prevHidden != 0 {
		t.Fatalf("%d cells still hidden at the end", prevHidden)
	}
	start, _ := runAt(t, &Guard, raw, 0)
	if got := figures(t, start); got["data-charges"] != "0" || got["data-rows"] != "0" {
		t.Fatalf("step 0 shows %v", got)
	}
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%q is not a number", s)
	}
	return n
}

// The cells come from the events' kinds and fields, not their sentences:
// in lockstep every check-then-insert request reads the key absent, and
// the follow-ups find it; under claim-before-work one request claims the
// key and the nineteen others (and both follow-ups) are refused, then
// read the claimed row. And
// the saved answer names the payment.
func TestGuardCellsFromEventFields(t *testing.T) {
	code := func(html, c string) int {
		return strings.Count(html, `<span class="g-code" aria-hidden="true">`+c+`</span>`)
	}
	html := render(t, &Guard, map[string]string{"strategy": "check-then-insert"})
	if n := code(html, "none"); n != 20 {
		t.Errorf("check-then-insert: %d cells read the key absent, want 20", n)
	}
	if n := code(html, "found"); n != 2 {
		t.Errorf("check-then-insert: %d cells found the key, want the 2 follow-ups'", n)
	}
	if n := code(html, "row"); n != 20 {
		t.Errorf("check-then-insert: %d rows inserted, want 20", n)
	}
	html = render(t, &Guard, map[string]string{"strategy": "claim-before-work"})
	if n := code(html, "claim"); n != 1 {
		t.Errorf("claim-before-work: %d claims, want 1", n)
	}
	if n := code(html, "✕"); n != 19+2 {
		t.Errorf("claim-before-work: %d refused claims, want 21 (19 and the follow-ups)", n)
	}
	if n := code(html, "found"); n != 19+2 {
		t.Errorf("claim-before-work: %d reads of the claimed row, want 21", n)
	}
	if !strings.Contains(html, "answer saved: 201 pay_1") {
		t.Errorf("claim-before-work: the saved answer does not name pay_1")
	}
}
