//go:build !(js && wasm)

package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The worker, built as build/worker/build.sh builds it, under wrangler dev
// --local with a local D1 database, answers the protocol over real HTTP:
// a new payment, its replay, 422 for another body, 409 while the first
// request runs, and a lost response that the retry recovers.
func TestWorkerUnderWrangler(t *testing.T) {
	base := startWrangler(t)

	const body = `{"amount": 2500, "currency": "usd"}`
	first := pay(t, base, "k_1", body)
	if first.status != 201 || first.replayed || !strings.HasPrefix(first.id, "pay_") {
		t.Fatalf("new key: %d replayed=%v %s", first.status, first.replayed, first.body)
	}
	again := pay(t, base, "k_1", "{\"currency\":\"usd\",\n \"amount\":2500}")
	if again.status != 201 || !again.replayed || again.body != first.body {
		t.Fatalf("retry: %d replayed=%v %s", again.status, again.replayed, again.body)
	}
	if r := pay(t, base, "k_1", `{"amount": 9900, "currency": "usd"}`); r.status != 422 || r.contentType != "application/problem+json" {
		t.Fatalf("another body: %d %s %s", r.status, r.contentType, r.body)
	}

	// The first request with k_2 works for 4 s; a retry 1 s in (the claim
	// itself takes some 50 ms) finds it in flight: 409.
	slow := make(chan answer, 1)
	go func() { slow <- pay(t, base, "k_2", body, "slow=4000") }()
	time.Sleep(time.Second)
	// Retry-After is the claim's lease left, rounded up: the lease is a
	// minute and the claim is about a second old.
	busy := pay(t, base, "k_2", body)
	if ra, _ := strconv.Atoi(busy.retryAfter); busy.status != 409 || ra < 50 || ra > 60 {
		t.Fatalf("retry while the first runs: %d Retry-After %q %s; want 409 with the lease left, 50 to 60", busy.status, busy.retryAfter, busy.body)
	}
	if r := <-slow; r.status != 201 || r.replayed {
		t.Fatalf("the slow first request: %d %s", r.status, r.body)
	}
	if r := pay(t, base, "k_2", body); r.status != 201 || !r.replayed {
		t.Fatalf("retry after the first finished: %d replayed=%v", r.status, r.replayed)
	}

	// A lost response is a 504 on Workers; the retry gets the payment.
	if r := pay(t, base, "k_3", body, "lose-response"); r.status != 504 {
		t.Fatalf("lose-response: %d %s", r.status, r.body)
	}
	if r := pay(t, base, "k_3", body); r.status != 201 || !r.replayed {
		t.Fatalf("retry after a lost response: %d replayed=%v", r.status, r.replayed)
	}

	// One charge per key: every instance saw the same D1 database.
	if all := charges(t, base, ""); len(all.Data) != 3 || all.HasMore {
		t.Fatalf("charges: %d (has_more %v), want 3, one per key", len(all.Data), all.HasMore)
	}

	// D1 pages the list as the other stores do.
	page := charges(t, base, "?limit=2")
	if len(page.Data) != 2 || !page.HasMore {
		t.Fatalf("first page of 2: %+v", page)
	}
	rest := charges(t, base, "?limit=2&starting_after="+page.Data[1].ID)
	if len(rest.Data) != 1 || rest.HasMore || rest.Data[0].ID == page.Data[0].ID || rest.Data[0].ID == page.Data[1].ID {
		t.Fatalf("second page: %+v after %+v", rest, page)
	}

	// A body nested 9,999 deep is refused before it is parsed: a 400 of
	// the API's own, not the runtime's death.
	deep := pay(t, base, "k_4", strings.Repeat(`{"a":`, 9999)+"1"+strings.Repeat("}", 9999))
	if deep.status != 400 || deep.contentType != "application/problem+json" || !strings.Contains(deep.body, "deeper than 32") {
		t.Fatalf("a body nested 9,999 deep: %d %s %.200s", deep.status, deep.contentType, deep.body)
	}
}

type chargeList struct {
	HasMore bool `json:"has_more"`
	Data    []struct{ ID string }
}

func charges(t *testing.T, base, query string) chargeList {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/v1/charges"+query, nil)
	req.Header.Set("Authorization", "Bearer sk_test_worker")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var l chargeList
	if err := json.NewDecoder(resp.Body).Decode(&l); err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /v1/charges%s: %d %v", query, resp.StatusCode, err)
	}
	return l
}

type answer struct {
	status      int
	replayed    bool
	retryAfter  string
	contentType string
	body        string
	id          string
}

func pay(t *testing.T, base, key, body string, faults ...string) answer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", base+"/v1/payments", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer sk_test_worker")
	req.Header.Set("Idempotency-Key", key)
	for _, f := range faults {
		req.Header.Add("Retrylab-Fault", f)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Errorf("POST %s: %v", key, err)
		return answer{}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var p struct{ ID string }
	json.Unmarshal(b, &p)
	return answer{status: resp.StatusCode, replayed: resp.Header.Get("Idempotent-Replayed") == "true",
		retryAfter: resp.Header.Get("Retry-After"), contentType: resp.Header.Get("Content-Type"), body: string(b), id: p.ID}
}
