package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func loadUsage(w io.Writer) {
	fmt.Fprintln(w, "retrylab load [--url http://localhost:8787] [--n 5000] [--replays 20000] [--c 32] [--json]")
	fmt.Fprintln(w, "sends n payments with new keys, then replays of them, to a retrylab API, and counts the charges.")
}

// Bounds of `retrylab load`, so that no typo turns it into a flood.
const (
	maxLoadRequests    = 1_000_000
	maxLoadConcurrency = 1024
)

// loadPhase is one phase's figures.
type loadPhase struct {
	Requests  int     `json:"requests"`
	Seconds   float64 `json:"seconds"`
	PerSecond float64 `json:"per_second"`
	P50ms     float64 `json:"p50_ms"`
	P99ms     float64 `json:"p99_ms"`
	Wrong     int     `json:"wrong"` // answers other than the expected one
}

// loadReport is what `retrylab load` prints.
type loadReport struct {
	URL           string    `json:"url"`
	Concurrency   int       `json:"concurrency"`
	NewKeys       loadPhase `json:"new_keys"`
	Replays       loadPhase `json:"replays"`
	DistinctKeys  int       `json:"distinct_keys"`
	Charges       int       `json:"charges"`
	DoubleCharges int       `json:"double_charges"`
}

func runLoad(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("retrylab load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { loadUsage(stderr); fs.PrintDefaults() }
	base := fs.String("url", "http://localhost:8787", "the API's base `URL`")
	n := fs.Int("n", 5000, "payments with new keys, each key used once")
	replays := fs.Int("replays", 20000, "replays: requests repeating those keys and bodies")
	conc := fs.Int("c", 32, "requests in flight at once")
	asJSON := fs.Bool("json", false, "print the report as one JSON object")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "retrylab load: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	case *n < 1 || *n > maxLoadRequests || *replays < 0 || *replays > maxLoadRequests:
		fmt.Fprintf(stderr, "retrylab load: --n must be from 1 and --replays from 0, both to %d\n", maxLoadRequests)
		return exitUsage
	case *conc < 1 || *conc > maxLoadConcurrency:
		fmt.Fprintf(stderr, "retrylab load: --c must be from 1 to %d\n", maxLoadConcurrency)
		return exitUsage
	}
	u, err := url.Parse(*base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		fmt.Fprintf(stderr, "retrylab load: --url %q is not an http(s) URL\n", *base)
		return exitUsage
	}
	rep, err := load(strings.TrimSuffix(*base, "/"), *n, *replays, *conc)
	if err != nil {
		fmt.Fprintf(stderr, "retrylab load: %v\n", err)
		return exitFail
	}
	if *asJSON {
		b, _ := json.Marshal(rep)
		fmt.Fprintln(stdout, string(b))
	} else {
		fmt.Fprintf(stdout, "%s, %d requests in flight\n", rep.URL, rep.Concurrency)
		for _, p := range []struct {
			name string
			ph   loadPhase
		}{{"new keys", rep.NewKeys}, {"replays", rep.Replays}} {
			fmt.Fprintf(stdout, "  %-8s %7d requests in %6.2fs: %8.0f/s  p50 %.2f ms  p99 %.2f ms  wrong answers %d\n",
				p.name, p.ph.Requests, p.ph.Seconds, p.ph.PerSecond, p.ph.P50ms, p.ph.P99ms, p.ph.Wrong)
		}
		fmt.Fprintf(stdout, "  charges %d for %d distinct keys: %d double charges\n", rep.Charges, rep.DistinctKeys, rep.DoubleCharges)
	}
	if rep.DoubleCharges != 0 || rep.NewKeys.Wrong != 0 || rep.Replays.Wrong != 0 {
		return exitFail
	}
	return exitOK
}

// load runs both phases against base as a fresh account.
func load(base string, n, replays, conc int) (loadReport, error) {
	var rnd [8]byte
	rand.Read(rnd[:])
	run := hex.EncodeToString(rnd[:])
	token := "load_" + run // a new account: its charges are this run's
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		MaxIdleConns: conc, MaxIdleConnsPerHost: conc, MaxConnsPerHost: conc, DisableCompression: true,
	}}
	defer client.CloseIdleConnections()
	const body = `{"amount": 100, "currency": "usd"}`
	pay := func(i int) (status int, replayed bool, err error) {
		req, err := http.NewRequest("POST", base+"/v1/payments", strings.NewReader(body))
		if err != nil {
			return 0, false, err
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Idempotency-Key", "load-"+run+"-"+strconv.Itoa(i))
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return 0, false, err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("Idempotent-Replayed") == "true", nil
	}
	rep := loadReport{URL: base, Concurrency: conc, DistinctKeys: n}
	var err error
	if rep.NewKeys, err = phase(n, conc, func(i int) (bool, error) {
		status, replayed, err := pay(i)
		return status == 201 && !replayed, err
	}); err != nil {
		return rep, fmt.Errorf("new keys: %w", err)
	}
	if rep.Replays, err = phase(replays, conc, func(i int) (bool, error) {
		status, replayed, err := pay(i % n)
		return status == 201 && replayed, err
	}); err != nil {
		return rep, fmt.Errorf("replays: %w", err)
	}

	if rep.Charges, err = countCharges(client, base, token); err != nil {
		return rep, fmt.Errorf("counting charges: %w", err)
	}
	rep.DoubleCharges = rep.Charges - n
	return rep, nil
}

// countCharges counts the account's charges, paging through GET
// /v1/charges a thousand at a time (the API counts nothing itself: a list
// costs what its page does).
func countCharges(client *http.Client, base, token string) (int, error) {
	n, after := 0, ""
	for {
		req, _ := http.NewRequest("GET", base+"/v1/charges?limit=1000&starting_after="+url.QueryEscape(after), nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		var list struct {
			HasMore bool `json:"has_more"`
			Data    []struct{ ID string }
		}
		err = json.NewDecoder(resp.Body).Decode(&list)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			return 0, fmt.Errorf("GET /v1/charges: %s (%v)", resp.Status, err)
		}
		n += len(list.Data)
		if !list.HasMore || len(list.Data) == 0 {
			return n, nil
		}
		after = list.Data[len(list.Data)-1].ID
	}
}

// phase sends count requests, conc at a time; do reports whether the
// answer was the one expected.
func phase(count, conc int, do func(i int) (bool, error)) (loadPhase, error) {
	lat := make([]time.Duration, count)
	var next, wrong atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	start := time.Now()
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= count {
					return
				}
				t := time.Now()
				ok, err := do(i)
				lat[i] = time.Since(t)
				if err != nil {
					once.Do(func() { firstErr = err })
					next.Store(int64(count)) // stop
					return
				}
				if !ok {
					wrong.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	took := time.Since(start)
	if firstErr != nil {
		return loadPhase{}, firstErr
	}
	p := loadPhase{Requests: count, Seconds: took.Seconds(), Wrong: int(wrong.Load())}
	if count > 0 {
		p.PerSecond = float64(count) / took.Seconds()
		slices.Sort(lat)
		p.P50ms = ms(lat[count/2])
		p.P99ms = ms(lat[count*99/100])
	}
	return p, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
