package widget

import (
	"regexp"
	"strings"
	"testing"
)

func renderPayment(t *testing.T, raw map[string]string) string {
	t.Helper()
	v, err := Payment.Schema.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	var h HTML
	if err := Render(&h, &Payment, v, Place{ID: "w-payment-1", Origin: "https://retrylab.example"}); err != nil {
		t.Fatal(err)
	}
	return h.String()
}

var outcomeRE = regexp.MustCompile(`<p class="w-outcome" data-charges="(\d+)" data-receipt="([^"]*)"`)

func outcome(t *testing.T, html string) (charges, receipt string) {
	t.Helper()
	m := outcomeRE.FindStringSubmatch(html)
	if m == nil {
		t.Fatalf("no outcome element in:\n%s", html)
	}
	return m[1], m[2]
}

func TestPaymentWidgetShowsTheDoubleCharge(t *testing.T) {
	html := renderPayment(t, map[string]string{"keys": "off", "faults": "lose-response, ok"})
	if c, r := outcome(t, html); c != "2" || r != "ch_2" {
		t.Fatalf("keys off: charges %s receipt %s, want 2 ch_2", c, r)
	}
	for _, want := range []string{
		`data-widget="payment"`,
		`data-params="{&#34;keys&#34;:&#34;off&#34;,&#34;faults&#34;:[&#34;lose-response&#34;],&#34;attempts&#34;:3,&#34;amount&#34;:2500}"`,
		`<select id="w-payment-1-keys" name="keys">`,
		`<label class="w-field" for="w-payment-1-keys"`,
		`<tr class="orphan"><td>ch_1</td>`, // the charge the client never heard of
		`data-action="play"`,
		// the one fault in use, what the other attempts meet, and Add
		`<select name="faults" aria-label="Network, attempt by attempt 1">`,
		`<p class="w-item-rest">After these: ok</p>`,
		`data-action="add-item" aria-label="Add to Network, attempt by attempt">`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("missing %s", want)
		}
	}
}

func TestPaymentWidgetWithKeysChargesOnce(t *testing.T) {
	html := renderPayment(t, map[string]string{"keys": "per-intent", "faults": "lose-response, ok"})
	if c, r := outcome(t, html); c != "1" || r != "ch_1" {
		t.Fatalf("per-intent: charges %s receipt %s, want 1 ch_1", c, r)
	}
	if !strings.Contains(html, "a replayed answer") {
		t.Error("the receipt does not say it was replayed")
	}
}

func TestPaymentOutputAtEachStep(t *testing.T) {
	v, _ := Payment.Schema.Parse(map[string]string{"keys": "off", "faults": "lose-response, ok"})
	run, err := Payment.Run(v)
	if err != nil {
		t.Fatal(err)
	}
	steps := run.Steps()
	if steps < 6 {
		t.Fatalf("only %d steps", steps)
	}
	prev := -1
	for s := 0; s <= steps; s++ {
		var h HTML
		run.Output(&h, s)
		html := h.String()
		c, r := outcome(t, html)
		n := int(c[0] - '0')
		if n < prev {
			t.Fatalf("step %d: charges went down to %d", s, n)
		}
		prev = n
		if got := strings.Count(html, " future"); got != steps-s {
			t.Fatalf("step %d: %d rows hidden, want %d", s, got, steps-s)
		}
		if s < steps && r != "" && s < steps-1 {
			t.Fatalf("step %d: receipt %q before the receipt event", s, r)
		}
	}
	if prev != 2 {
		t.Fatalf("end: %d charges, want 2", prev)
	}
	var h HTML
	run.Output(&h, 0)
	if c, _ := outcome(t, h.String()); c != "0" {
		t.Fatalf("step 0 shows %s charges", c)
	}
}
