package cors

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestAllowOnlyTheSite(t *testing.T) {
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Idempotent-Replayed", "true")
		w.WriteHeader(http.StatusCreated)
	})
	h := Allow(inner, []string{"https://retrylab.example"})
	do := func(method, origin string, extra ...string) *http.Response {
		r := httptest.NewRequest(method, "/v1/payments", nil)
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		for i := 0; i+1 < len(extra); i += 2 {
			r.Header.Set(extra[i], extra[i+1])
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Result()
	}

	// The site's preflight: allowed, with the headers the widget sends.
	res := do("OPTIONS", "https://retrylab.example", "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "authorization,idempotency-key,retrylab-fault")
	if res.StatusCode != 204 || res.Header.Get("Access-Control-Allow-Origin") != "https://retrylab.example" ||
		!strings.Contains(res.Header.Get("Access-Control-Allow-Headers"), "Idempotency-Key") ||
		!strings.Contains(res.Header.Get("Access-Control-Allow-Headers"), "Retrylab-Fault") ||
		!strings.Contains(res.Header.Get("Access-Control-Allow-Headers"), "Authorization") {
		t.Errorf("site preflight: %d %v", res.StatusCode, res.Header)
	}
	// The site's POST: the answer, readable, Idempotent-Replayed exposed.
	res = do("POST", "https://retrylab.example")
	if res.StatusCode != 201 || res.Header.Get("Access-Control-Allow-Origin") != "https://retrylab.example" ||
		!strings.Contains(res.Header.Get("Access-Control-Expose-Headers"), "Idempotent-Replayed") {
		t.Errorf("site POST: %d %v", res.StatusCode, res.Header)
	}
	// Another origin: no CORS header at all, its preflight refused.
	for _, m := range []string{"OPTIONS", "POST"} {
		res = do(m, "https://evil.example", "Access-Control-Request-Method", "POST")
		if got := res.Header.Get("Access-Control-Allow-Origin"); got != "" {
			t.Errorf("%s from another origin: Access-Control-Allow-Origin %q", m, got)
		}
		if m == "OPTIONS" && res.StatusCode != 403 {
			t.Errorf("preflight from another origin: %d, want 403", res.StatusCode)
		}
	}
	// curl sends no Origin: served as before, nothing added.
	res = do("POST", "")
	if res.StatusCode != 201 || res.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("no Origin: %d %v", res.StatusCode, res.Header)
	}
	if res.Header.Get("Vary") != "Origin" {
		t.Errorf("Vary %q, want Origin", res.Header.Get("Vary"))
	}
}

func TestParseOrigins(t *testing.T) {
	got, err := ParseOrigins(" https://retrylab.example, http://localhost:8080/ ,")
	if err != nil || strings.Join(got, " ") != "https://retrylab.example http://localhost:8080" {
		t.Errorf("got %v, %v", got, err)
	}
	for _, bad := range []string{"retrylab.example", "https://retrylab.example/api", "ftp://x", "https://u:p@x"} {
		if _, err := ParseOrigins(bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("ParseOrigins(%q): %v, want an error naming it", bad, err)
		}
	}
	if got, err := ParseOrigins(""); err != nil || got != nil {
		t.Errorf("empty: %v, %v", got, err)
	}
	if h := http.NotFoundHandler(); Allow(h, nil) == nil {
		t.Error("Allow with no origins returned nil")
	}
}
