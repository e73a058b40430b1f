// Package cors lets the handbook's pages, and only them, call the sandbox
// API from a reader's browser: a wrapper around the API's handler that
// answers CORS preflights and marks answers readable for the configured
// site origins, and says nothing to any other origin (whose browser then
// keeps the answer from its page).
package cors

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
)

// What a page of the site may send and read. Authorization carries the
// reader's sandbox token, Idempotency-Key and Retrylab-Fault are the
// protocol and its faults; the exposed headers are the ones the live
// widget shows.
const (
	allowMethods  = "GET, POST"
	allowHeaders  = "Authorization, Content-Type, Idempotency-Key, Retrylab-Fault"
	exposeHeaders = "Idempotency-Key, Idempotent-Replayed, Retry-After, Location"
	// A browser may reuse a preflight's answer for 10 minutes (600 s):
	// a reader's Send and Retry, a few seconds apart, cost one preflight.
	maxAge = "600"
)

// ParseOrigins reads a comma-separated list of origins, each a scheme and
// a host (and port), no path: "https://retrylab.example,
// http://localhost:8080". An empty list is allowed and allows no origin.
func ParseOrigins(list string) ([]string, error) {
	var out []string
	for _, o := range strings.Split(list, ",") {
		o = strings.TrimSpace(o)
		if o == "" {
			continue
		}
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" ||
			(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			return nil, errors.New("site origin " + `"` + o + `"` + " is not a scheme and host such as https://retrylab.example")
		}
		out = append(out, u.Scheme+"://"+u.Host)
	}
	return out, nil
}

// Allow wraps h so that pages from origins may call it from a browser.
// With no origins it returns h itself.
func Allow(h http.Handler, origins []string) http.Handler {
	if len(origins) == 0 {
		return h
	}
	ok := map[string]bool{}
	for _, o := range origins {
		ok[o] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		hd := w.Header()
		// The answer differs by Origin: caches must keep them apart.
		hd.Add("Vary", "Origin")
		allowed := origin != "" && ok[origin]
		preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
		if preflight {
			if !allowed {
				// Nothing to say to another origin: its browser refuses.
				w.WriteHeader(http.StatusForbidden)
				return
			}
			hd.Set("Access-Control-Allow-Origin", origin)
			hd.Set("Access-Control-Allow-Methods", allowMethods)
			hd.Set("Access-Control-Allow-Headers", allowHeaders)
			hd.Set("Access-Control-Max-Age", maxAge)
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if allowed {
			hd.Set("Access-Control-Allow-Origin", origin)
			hd.Set("Access-Control-Expose-Headers", exposeHeaders)
		}
		h.ServeHTTP(w, r)
	})
}
