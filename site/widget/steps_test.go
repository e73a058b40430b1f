package widget

import (
	"strconv"
	"strings"
	"testing"
)

// stepThrough renders every step of a replayable widget and checks what all
// replays share: one outcome, the step and done flags, the events not
// reached hidden in place, and numeric figures that never go down. It
// returns the figures at the end.
func stepThrough(t *testing.T, w *Widget, raw map[string]string, counts ...string) map[string]string {
	t.Helper()
	_, run := runAt(t, w, raw, 0)
	steps := run.Steps()
	if steps == 0 {
		t.Fatalf("%s: nothing to replay", w.Name)
	}
	prev := map[string]int{}
	var f map[string]string
	for s := 0; s <= steps; s++ {
		html, _ := runAt(t, w, raw, s)
		f = figures(t, html)
		if f["data-step"] != strconv.Itoa(s) || (f["data-done"] == "true") != (s == steps) {
			t.Fatalf("%s step %d: data-step %s, data-done %s", w.Name, s, f["data-step"], f["data-done"])
		}
		if hidden := strings.Count(html, " future"); hidden != steps-s {
			t.Fatalf("%s step %d: %d events hidden, want %d", w.Name, s, hidden, steps-s)
		}
		for _, c := range counts {
			n := mustAtoi(t, f[c])
			if n < prev[c] {
				t.Fatalf("%s step %d: %s went down from %d to %d", w.Name, s, c, prev[c], n)
			}
			prev[c] = n
		}
	}
	return f
}

// engine/outbox's figures: the relay publishes the event twice, the inbox
// sends one email; without the inbox, two.
func TestOutboxFigures(t *testing.T) {
	want(t, "defaults", stepThrough(t, &Outbox, nil, "data-published", "data-emails"),
		map[string]string{"data-published": "2", "data-emails": "1", "data-skipped": "1", "data-verdict": "good"})
	want(t, "no inbox", figures(t, render(t, &Outbox, map[string]string{"inbox": "off"})),
		map[string]string{"data-published": "2", "data-emails": "2", "data-verdict": "bad"})
	want(t, "no crash", figures(t, render(t, &Outbox, map[string]string{"relay-crash": "off", "inbox": "off"})),
		map[string]string{"data-published": "1", "data-emails": "1"})
}

// The outbox widget says what the chapter says of its inbox: the id is
// recorded after the email, which no transaction can hold with it, so the
// inbox skips repeats and does not make the email exactly-once. Without an
// inbox there is nothing to record, and the note is not shown.
func TestOutboxInboxIsAfterTheEmail(t *testing.T) {
	const note = "Each id is recorded after its email: a crash between the two would send it again."
	if html := render(t, &Outbox, nil); !strings.Contains(html, note) {
		t.Fatalf("with the inbox, the consumer's panel does not say when the id is recorded:\n%s", html)
	}
	if html := render(t, &Outbox, map[string]string{"inbox": "off"}); strings.Contains(html, note) {
		t.Fatal("without an inbox, the panel speaks of recording ids")
	}
}

// engine/saga's figures: the runner crashes after the flight, resumes
// from its log and compensates with keys: the card sees one charge and one
// undo. Without keys the repeated call books the flight twice, and one
// booking is left in place.
func TestSagaFigures(t *testing.T) {
	want(t, "defaults", stepThrough(t, &Saga, nil, "data-charges", "data-undos"),
		map[string]string{"data-charges": "1", "data-undos": "1", "data-outcome": "compensated", "data-stray": "0", "data-verdict": "good"})
	html := render(t, &Saga, map[string]string{"keys": "off"})
	want(t, "no keys", figures(t, html), map[string]string{"data-charges": "1", "data-undos": "1", "data-stray": "1", "data-verdict": "bad"})
	if !strings.Contains(html, "The Airline made 2 bookings") {
		t.Error("the double booking is not told")
	}
	want(t, "crash after the charge, no keys", figures(t, render(t, &Saga, map[string]string{"keys": "off", "crash-after": "charge"})),
		map[string]string{"data-charges": "2", "data-undos": "1"})
	want(t, "nothing fails", figures(t, render(t, &Saga, map[string]string{"fail": "none"})),
		map[string]string{"data-charges": "1", "data-undos": "0", "data-outcome": "completed"})
}

// engine/ordering's figures: evt_2 (pro, t=60), evt_1 (starter, t=0), evt_2
// again. Dedupe ends on starter (wrong); a version guard ends on pro.
func TestOrderingFigures(t *testing.T) {
	want(t, "dedupe", stepThrough(t, &Ordering, nil, "data-skipped"),
		map[string]string{"data-plan": "starter", "data-correct": "false", "data-skipped": "1"})
	want(t, "version-guard", stepThrough(t, &Ordering, map[string]string{"strategy": "version-guard"}, "data-skipped"),
		map[string]string{"data-plan": "pro", "data-correct": "true", "data-skipped": "2"})
	want(t, "in order", figures(t, render(t, &Ordering, map[string]string{"arrival": "evt_1, evt_2"})),
		map[string]string{"data-plan": "pro", "data-correct": "true"})
	// The plan moves as the replay goes: pro after the first delivery.
	html, _ := runAt(t, &Ordering, nil, 2)
	want(t, "step 2", figures(t, html), map[string]string{"data-plan": "pro"})
}

// The payment widget replays like the others.
func TestPaymentSteps(t *testing.T) {
	want(t, "payment", stepThrough(t, &Payment, nil, "data-charges"), map[string]string{"data-charges": "2", "data-receipt": "ch_2"})
}
