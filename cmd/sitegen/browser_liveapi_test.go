package main

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// liveRoot is the API page's live panel.
const liveRoot = `[data-widget="live"]`

// On the development server (the site's handler with the sandbox API at
// /v1/, as serve mounts it), the API page's live panel sends real requests
// from the browser. Keys per intent, the response lost, Retry: the retry
// is the saved 201, replayed, and the card has one charge. Keys per
// attempt: the retry is a new payment, two charges. Keys off: the API
// refuses the payment, no charge.
func TestBrowserLiveAPIPanel(t *testing.T) {
	srv := newServer(builtSite(t), productionRules(t), true)
	srv.api = devAPI()
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	t.Cleanup(srv.live.close)

	ctx := newBrowser(t)
	con := watchConsole(ctx)
	addCSPProbe(t, ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/api/")); err != nil {
		t.Fatal(err)
	}
	wait := func(sel string) {
		t.Helper()
		wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		if err := chromedp.Do(wctx, chromedp.WaitReady(chromedp.CSS(sel))); err != nil {
			t.Fatalf("waiting for %s: %v; the panel says %q", sel, err,
				evalT[string](t, ctx, `document.querySelector('`+liveRoot+` [data-region=status]').textContent`))
		}
	}
	click := func(sel string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(liveRoot+" "+sel))); err != nil {
			t.Fatalf("clicking %s: %v", sel, err)
		}
	}
	choose := func(keys, fault string) {
		t.Helper()
		click(`input[name=keys][value="` + keys + `"]`)
		if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS(liveRoot+` select[name=fault]`), fault)); err != nil {
			t.Fatal(err)
		}
	}
	// answer reads the n-th exchange: [kind, state, status, replayed].
	answer := func(n int) []string {
		return evalT[[]string](t, ctx, `(() => { const e = document.querySelectorAll('`+liveRoot+` .live-exchange')[`+string(rune('0'+n-1))+`];
			return [e.dataset.kind, e.dataset.state, e.dataset.status || "", e.dataset.replayed || ""]; })()`)
	}
	charges := func() string {
		return evalT[string](t, ctx, `document.querySelector('`+liveRoot+` [data-region=ledger]').dataset.charges`)
	}

	// The page asks nothing of the API until the reader reaches for the
	// panel.
	wait(liveRoot + `[data-live-ready]`)
	if r := evalT[string](t, ctx, `document.querySelector('`+liveRoot+`').dataset.reachable || "not asked"`); r != "not asked" {
		t.Errorf("before any touch, reachable = %s", r)
	}
	// The token the page made is kept for the next visit.
	if tok := evalT[string](t, ctx, `localStorage.getItem("retrylab.live.token") || ""`); !strings.HasPrefix(tok, "sk_test_") {
		t.Fatalf("token in localStorage: %q", tok)
	}

	// Keys per intent, the answer lost, then Retry.
	choose("per-intent", "lose-response")
	click(`[data-action=send]`)
	wait(liveRoot + `[data-reachable="true"]`)
	wait(liveRoot + ` .live-exchange[data-kind=send]:not([data-state=waiting])`)
	click(`[data-action=retry]`)
	wait(liveRoot + ` [data-region=ledger][data-after="2"]`)
	if got := answer(1); got[1] != "lost" {
		t.Errorf("the send with lose-response: %v, want no answer", got)
	}
	if got := answer(2); got[0] != "retry" || got[2] != "201" || got[3] != "true" {
		t.Errorf("the retry: %v, want a 201, replayed", got)
	}
	if c := charges(); c != "1" {
		t.Errorf("keys per intent: %s charges, want 1", c)
	}
	text := evalT[string](t, ctx, `document.querySelectorAll('`+liveRoot+` .live-exchange')[1].textContent`)
	for _, want := range []string{"Idempotency-Key: order-", "Idempotent-Replayed: true", "HTTP 201", `"status": "succeeded"`} {
		if !strings.Contains(text, want) {
			t.Errorf("the retry's exchange lacks %q:\n%s", want, text)
		}
	}

	// A new account, keys per attempt: the retry is a new payment.
	click(`[data-action=account]`)
	wait(liveRoot + ` [data-region=ledger][data-after="0"][data-charges="0"]`)
	choose("per-attempt", "lose-response")
	click(`[data-action=send]`)
	wait(liveRoot + ` .live-exchange[data-kind=send]:not([data-state=waiting])`)
	click(`[data-action=retry]`)
	wait(liveRoot + ` [data-region=ledger][data-after="2"]`)
	if got := answer(2); got[2] != "201" || got[3] != "false" {
		t.Errorf("keys per attempt, the retry: %v, want a new 201", got)
	}
	if c := charges(); c != "2" {
		t.Errorf("keys per attempt: %s charges, want 2", c)
	}

	// A new account, keys off: refused before anything happens.
	click(`[data-action=account]`)
	wait(liveRoot + ` [data-region=ledger][data-after="0"][data-charges="0"]`)
	choose("off", "")
	click(`[data-action=send]`)
	wait(liveRoot + ` [data-region=ledger][data-after="1"]`)
	if got := answer(1); got[2] != "400" {
		t.Errorf("keys off: %v, want 400", got)
	}
	if c := charges(); c != "0" {
		t.Errorf("keys off: %s charges, want 0", c)
	}

	if csp := evalT[[]string](t, ctx, `window.__csp`); len(csp) > 0 {
		t.Errorf("CSP violations: %v", csp)
	}
	// The lost answer is a failed fetch, which the browser reports on its
	// console; nothing else may be there.
	for _, p := range con.problems() {
		if !strings.Contains(p, "ERR_EMPTY_RESPONSE") && !strings.Contains(p, "Failed to load resource") {
			t.Errorf("console: %s", p)
		}
	}
}

// With no API to reach (the site as deployed, without its API), the panel
// says so when Send is pressed, sends nothing, and shows the same requests
// as curl commands.
func TestBrowserLiveAPIUnreachable(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	ctx := newBrowser(t)
	addCSPProbe(t, ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/api/")); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(wctx, chromedp.WaitReady(chromedp.CSS(liveRoot+`[data-live-ready]`)),
		chromedp.Click(chromedp.CSS(liveRoot+` [data-action=send]`)),
		chromedp.WaitReady(chromedp.CSS(liveRoot+`[data-reachable="false"]`))); err != nil {
		t.Fatalf("the panel never said the API is out of reach: %v", err)
	}
	got := evalT[[]string](t, ctx, `(() => { const r = document.querySelector('`+liveRoot+`');
		return [r.querySelector('[data-region=status]').textContent, String(r.querySelector('[data-region=curl]').open),
			r.querySelector('[data-region=curl] code').textContent, String(r.querySelector('[data-action=send]').disabled)]; })()`)
	if !strings.Contains(got[0], "cannot be reached") || !strings.Contains(got[0], "https://api.retrylab.example") {
		t.Errorf("status %q, want it to say the API at its configured origin cannot be reached", got[0])
	}
	if got[1] != "true" || got[3] != "true" {
		t.Errorf("curl shown %s, Send disabled %s; want both", got[1], got[3])
	}
	for _, want := range []string{"curl -i http://localhost:8787/v1/payments", "Idempotency-Key: order-", "Authorization: Bearer sk_test_", "curl http://localhost:8787/v1/charges"} {
		if !strings.Contains(got[2], want) {
			t.Errorf("the curl commands lack %q:\n%s", want, got[2])
		}
	}
	if csp := evalT[[]string](t, ctx, `window.__csp`); len(csp) > 0 {
		t.Errorf("CSP violations: %v", csp)
	}
}
