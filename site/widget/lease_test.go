package widget

import (
	"strings"
	"testing"
)

// The leases chapter's simulator replays like the others and ends on the
// engine's figures: a crash after the charge, a retry inside the lease
// that gets a 409, and a takeover that resumes and charges nothing more.
// Without recovery points the takeover charges again; a crash before the
// charge leaves a pending payment.
func TestLeaseFigures(t *testing.T) {
	want(t, "defaults", stepThrough(t, &Lease, nil, "data-charges", "data-payments"),
		map[string]string{"data-charges": "1", "data-payments": "1", "data-retry": "409", "data-receipt": "ch_1", "data-verdict": "good"})
	html := render(t, &Lease, map[string]string{"recovery": "off"})
	want(t, "no recovery points", figures(t, html),
		map[string]string{"data-charges": "2", "data-retry": "409", "data-receipt": "ch_2", "data-verdict": "bad"})
	if !strings.Contains(html, `<li class="dup">ch_2 25.00</li>`) || !strings.Contains(html, "started over") {
		t.Error("the second charge is not marked, or the verdict does not say the takeover started over")
	}
	html = render(t, &Lease, map[string]string{"crash": "before-charge", "recovery": "off", "retry": "90"})
	want(t, "before the charge", figures(t, html), map[string]string{"data-charges": "1", "data-payments": "2", "data-retry": "201", "data-verdict": "bad"})
	if !strings.Contains(html, "<code>pay_1</code>: pending") {
		t.Error("the first payment is not shown pending")
	}
	want(t, "after saving", figures(t, render(t, &Lease, map[string]string{"crash": "after-saving", "retry": "90"})),
		map[string]string{"data-charges": "1", "data-retry": "replay"})

	// The owner that pauses: the processor's key saves the card, the
	// fence the store; without recovery points only the store.
	html = render(t, &Lease, map[string]string{"crash": "pauses"})
	want(t, "pauses", figures(t, html), map[string]string{"data-charges": "1", "data-retry": "409", "data-verdict": "good"})
	if !strings.Contains(html, ">old owner wakes</text>") || !strings.Contains(html, "its fence is stale") {
		t.Error("the woken owner or the fence's refusal is not shown")
	}
	html = render(t, &Lease, map[string]string{"crash": "pauses", "recovery": "off"})
	want(t, "pauses, no recovery points", figures(t, html), map[string]string{"data-charges": "2", "data-receipt": "ch_1", "data-verdict": "bad"})
	if !strings.Contains(html, "a fence does not reach the processor") {
		t.Error("the verdict does not say what the fence leaves unguarded")
	}
}

// The timeline draws the first lease, the crash and the retries, with a
// second lease for the takeover, in the order the replay reaches them:
// at the defaults' 16 steps, the first lease from step 2 (the claim), the
// crash from 7, the 409 from 11, the takeover's lease from 13 and the 201
// at the end.
func TestLeaseTimeline(t *testing.T) {
	end, run := runAt(t, &Lease, nil, atEnd)
	if n := strings.Count(end, `class="band lease`); n != 2 {
		t.Errorf("%d lease bands at the end, want 2 (the first claim's, the takeover's)", n)
	}
	if run.Steps() != 16 {
		t.Fatalf("%d steps at the defaults, want 16", run.Steps())
	}
	marks := []struct {
		what  string
		shown func(string) bool
		from  int // the first step that draws it
	}{
		{"the first lease", func(o string) bool { return strings.Count(o, `class="band lease`) >= 1 }, 2},
		{"the crash", func(o string) bool { return strings.Contains(o, ">crash</text>") }, 7},
		{"the retry's 409", func(o string) bool { return strings.Contains(o, ">retry: 409</text>") }, 11},
		{"the takeover's lease", func(o string) bool { return strings.Count(o, `class="band lease`) == 2 }, 13},
		{"the retry's 201", func(o string) bool { return strings.Contains(o, ">retry: 201</text>") }, 16},
	}
	for step := 0; step <= run.Steps(); step++ {
		out, _ := runAt(t, &Lease, nil, step)
		for _, m := range marks {
			if got, want := m.shown(out), step >= m.from; got != want {
				t.Errorf("step %d: %s drawn %v, want %v (from step %d)", step, m.what, got, want, m.from)
			}
		}
	}
}

// engine/cas's figures: ship(order, version 7) twice ships once and
// leaves version 8; without the compare, twice and version 9.
func TestCASFigures(t *testing.T) {
	want(t, "defaults", stepThrough(t, &CAS, nil, "data-shipments", "data-version"),
		map[string]string{"data-shipments": "1", "data-version": "8", "data-updated": "1,0", "data-verdict": "good"})
	want(t, "no compare", figures(t, render(t, &CAS, map[string]string{"cas": "off"})),
		map[string]string{"data-shipments": "2", "data-version": "9", "data-updated": "1,1", "data-verdict": "bad"})
	html := render(t, &CAS, map[string]string{"calls": "5"})
	want(t, "five calls", figures(t, html), map[string]string{"data-shipments": "1", "data-version": "8", "data-updated": "1,0,0,0,0"})
	if !strings.Contains(html, "AND version = 7</code>") {
		t.Error("the statement with the compare is not shown")
	}
}

// engine/sentmarker's figures: the redelivered job sees the marker and skips:
// 1 message; without the marker, or with the crash before it, 2.
func TestSentMarkerFigures(t *testing.T) {
	want(t, "defaults", stepThrough(t, &SentMarker, nil, "data-sent", "data-runs", "data-skipped"),
		map[string]string{"data-sent": "1", "data-runs": "2", "data-skipped": "1", "data-verdict": "good"})
	want(t, "no marker", figures(t, render(t, &SentMarker, map[string]string{"marker": "off"})),
		map[string]string{"data-sent": "2", "data-runs": "2", "data-skipped": "0", "data-verdict": "bad"})
	html := render(t, &SentMarker, map[string]string{"crash": "before-marker"})
	want(t, "crash before the marker", figures(t, html), map[string]string{"data-sent": "2", "data-verdict": "bad"})
	if !strings.Contains(html, "window a marker cannot close") {
		t.Error("the verdict does not name the window")
	}
	want(t, "no crash", figures(t, render(t, &SentMarker, map[string]string{"crash": "none"})),
		map[string]string{"data-sent": "1", "data-runs": "1"})
}

// Without a crash the first answer is no retry, and the timeline draws
// none.
func TestLeaseNoCrashNoRetry(t *testing.T) {
	html := render(t, &Lease, map[string]string{"crash": "none"})
	want(t, "no crash", figures(t, html), map[string]string{"data-charges": "1", "data-retry": "none", "data-verdict": "good"})
	if strings.Contains(html, ">retry: ") || strings.Contains(html, ">crash</text>") {
		t.Error("the timeline draws a retry or a crash that did not happen")
	}
}
