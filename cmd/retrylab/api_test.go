package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/retrylab/retrylab/engine/idem/sqlstore/postgres/pgtest"
)

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startAPI runs `retrylab api` in-process on a free port and returns its
// URL, its output, and a stop function that returns its exit status.
func startAPI(t *testing.T, db string) (base string, stdout, stderr *syncBuffer, stop func() int) {
	t.Helper()
	return startAPIWith(t, apiConfig{addr: "127.0.0.1:0", db: db, lease: time.Minute, ttl: 24 * time.Hour})
}

func startAPIWith(t *testing.T, cfg apiConfig) (base string, stdout, stderr *syncBuffer, stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stdout, stderr = &syncBuffer{}, &syncBuffer{}
	ready := make(chan string, 1)
	done := make(chan int, 1)
	go func() {
		done <- serveAPI(ctx, cfg, stdout, stderr, ready)
	}()
	select {
	case base = <-ready:
	case code := <-done:
		t.Fatalf("retrylab api exited with %d: %s", code, stderr)
	case <-time.After(30 * time.Second):
		t.Fatal("retrylab api did not start")
	}
	var once sync.Once
	var code int
	stop = func() int {
		once.Do(func() {
			cancel()
			code = <-done
		})
		return code
	}
	t.Cleanup(func() { stop() })
	return base, stdout, stderr, stop
}

func post(t *testing.T, base, token, key, body string, faults ...string) (*http.Response, string, error) {
	req, _ := http.NewRequest("POST", base+"/v1/payments", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Idempotency-Key", key)
	for _, f := range faults {
		req.Header.Add("Retrylab-Fault", f)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b), nil
}

func chargeCount(t *testing.T, base, token string) int {
	t.Helper()
	n, err := countCharges(http.DefaultClient, base, token)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// apiStores names a --db of each store the command opens: memory, a new
// SQLite file, and a throwaway PostgreSQL server unless -short.
func apiStores(t *testing.T) map[string]string {
	dbs := map[string]string{
		"memory": "memory",
		"sqlite": filepath.Join(t.TempDir(), "retrylab.db"),
	}
	if !testing.Short() {
		dbs["postgres"] = pgtest.Start(t)
	}
	return dbs
}

// The double charge and its cure, over real HTTP against each store the
// command opens; the state survives a restart on SQLite.
func TestAPICommand(t *testing.T) {
	for name, db := range apiStores(t) {
		t.Run(name, func(t *testing.T) {
			base, stdout, stderr, stop := startAPI(t, db)
			if out := stdout.String(); !strings.Contains(out, "curl -i "+base+"/v1/payments") || !strings.Contains(out, "Idempotency-Key: order-1001") {
				t.Fatalf("no curl example in the banner:\n%s", out)
			}
			const body = `{"amount": 2500, "currency": "usd"}`
			// The response is lost: the connection closes with no answer.
			if resp, _, err := post(t, base, "tok", "k_1", body, "lose-response"); err == nil {
				t.Fatalf("lose-response answered %s", resp.Status)
			}
			// A retry with a new key charges again; with the same key, it
			// gets the first payment back.
			resp, _, err := post(t, base, "tok", "k_2", body)
			if err != nil || resp.StatusCode != 201 {
				t.Fatalf("new key: %v %v", resp, err)
			}
			resp, _, err = post(t, base, "tok", "k_1", body)
			if err != nil || resp.StatusCode != 201 || resp.Header.Get("Idempotent-Replayed") != "true" {
				t.Fatalf("retry with the same key: %v %v", resp, err)
			}
			if n := chargeCount(t, base, "tok"); n != 2 {
				t.Fatalf("%d charges, want 2 (k_1 once, k_2 once)", n)
			}
			if code := stop(); code != 0 {
				t.Fatalf("exit status %d after the signal: %s", code, stderr)
			}
			log := stderr.String()
			if got := strings.Count(log, "POST /v1/payments "); got != 3 {
				t.Fatalf("%d POST log lines, want 3:\n%s", got, log)
			}
			for _, want := range []string{`POST /v1/payments --- executed, response lost`, `POST /v1/payments 201 replayed acct_`, "retrylab api: stopped"} {
				if !strings.Contains(log, want) {
					t.Fatalf("log lacks %q:\n%s", want, log)
				}
			}
			if name != "sqlite" {
				return
			}
			// The file keeps the keys: after a restart the retry still replays.
			base, _, _, _ = startAPI(t, db)
			resp, _, err = post(t, base, "tok", "k_1", body)
			if err != nil || resp.Header.Get("Idempotent-Replayed") != "true" {
				t.Fatalf("retry after a restart: %v %v", resp, err)
			}
		})
	}
}

func TestLoadCommand(t *testing.T) {
	base, _, _, _ := startAPI(t, filepath.Join(t.TempDir(), "retrylab.db"))
	code, out, errs := cli("load", "--url", base, "--n", "300", "--replays", "600", "--c", "8", "--json")
	if code != 0 {
		t.Fatalf("retrylab load: exit %d\n%s%s", code, out, errs)
	}
	var rep loadReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v in %q", err, out)
	}
	if rep.NewKeys.Requests != 300 || rep.Replays.Requests != 600 || rep.NewKeys.Wrong != 0 || rep.Replays.Wrong != 0 ||
		rep.Charges != 300 || rep.DoubleCharges != 0 || rep.NewKeys.PerSecond <= 0 || rep.Replays.PerSecond <= 0 {
		t.Fatalf("report %+v", rep)
	}
}

func TestAPIAndLoadUsage(t *testing.T) {
	for _, args := range [][]string{
		{"api", "--nope"}, {"api", "extra"}, {"api", "--lease", "0s"},
		{"load", "--n", "0"}, {"load", "--c", "5000"}, {"load", "--url", "ftp://x"},
	} {
		if code, _, errs := cli(args...); code != exitUsage || errs == "" {
			t.Errorf("retrylab %v: exit %d, stderr %q; want a usage error", args, code, errs)
		}
	}
	// A TTL shorter than two leases is refused before anything starts,
	// with the reason.
	for _, args := range [][]string{{"--ttl", "5s", "--lease", "1m"}, {"--lease", "5s", "--ttl", "8s"}} {
		code, _, errs := cli(append([]string{"api", "--db", "memory", "--addr", "127.0.0.1:0"}, args...)...)
		if code != exitUsage || !strings.Contains(errs, "at least 2 leases") {
			t.Errorf("retrylab api %v: exit %d, stderr %q; want exit 2 saying the TTL must be at least 2 leases", args, code, errs)
		}
	}
	if code, _, errs := cli("api", "--db", filepath.Join(t.TempDir(), "no", "such", "dir", "x.db"), "--addr", "127.0.0.1:0"); code != exitFail || !strings.Contains(errs, "SQLite") {
		t.Errorf("unopenable database: exit %d, %q", code, errs)
	}
}

// --db takes the sqlite:FILE form `retrylab lab` takes, as that file, and
// refuses an empty name rather than opening a database nobody named.
func TestAPIDBNames(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	s, desc, err := openStore(t.Context(), "sqlite:"+path)
	if err != nil {
		t.Fatalf("--db sqlite:%s: %v", path, err)
	}
	s.Close()
	if _, err := os.Stat(path); err != nil || desc != "SQLite file "+path {
		t.Fatalf("--db sqlite:%s: %q, and the file: %v; want the SQLite file %s", path, desc, err, path)
	}
	for _, db := range []string{"", "sqlite:", " "} {
		if s, desc, err := openStore(t.Context(), db); err == nil {
			s.Close()
			t.Errorf("--db %q: opened %s, want a refusal", db, desc)
		}
	}
	if code, _, errs := cli("api", "--db", "", "--addr", "127.0.0.1:0"); code != exitUsage || !strings.Contains(errs, "--db") {
		t.Errorf("--db '': exit %d, %q; want a usage error naming --db", code, errs)
	}
}
