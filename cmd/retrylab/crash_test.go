package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/retrylab/retrylab/engine/idem/sqlstore/postgres/pgtest"
	_ "modernc.org/sqlite"
)

// The API keeps its promise across kill -9: `retrylab api` runs as a
// child process, clients pay with distinct keys and retry until they get
// their 201, and the process is killed at random moments and started
// again on the same database. At the end every key has exactly one
// payment and one charge, and no claim is left in flight.
func TestAPISurvivesKill9SQLite(t *testing.T) {
	db := filepath.Join(t.TempDir(), "crash.db")
	killAndCheck(t, db, func() *sql.DB {
		d, err := sql.Open("sqlite", "file:"+db)
		if err != nil {
			t.Fatal(err)
		}
		return d
	})
}

func TestAPISurvivesKill9Postgres(t *testing.T) {
	dsn := pgtest.Schema(t, pgtest.Start(t))
	killAndCheck(t, dsn, func() *sql.DB {
		d, err := sql.Open("pgx", dsn)
		if err != nil {
			t.Fatal(err)
		}
		return d
	})
}

// apiBinary builds retrylab once per test binary.
var apiBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "retrylab-crash")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "retrylab")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})

func killAndCheck(t *testing.T, db string, open func() *sql.DB) {
	bin, err := apiBinary()
	if err != nil {
		t.Fatal(err)
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("RETRYLAB_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (RETRYLAB_SEED=%d replays the kill points)", seed, seed)
	r := rand.New(rand.NewPCG(seed, 9))

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	base := "http://" + addr

	var mu sync.Mutex
	var proc *exec.Cmd
	start := func() {
		cmd := exec.Command(bin, "api", "--addr", addr, "--db", db, "--lease", "1s", "--ttl", "1h")
		cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
		if err := cmd.Start(); err != nil {
			t.Error(err)
			return
		}
		mu.Lock()
		proc = cmd
		mu.Unlock()
	}
	start()
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		proc.Process.Kill()
		proc.Wait()
	})

	const keys, workers = 240, 12
	ids := make([]string, keys)
	work := make(chan int, keys)
	for i := range keys {
		work <- i
	}
	close(work)
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	var paid atomic.Int32
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 15 * time.Second}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				id, err := payUntilDone(ctx, client, base, "crash-key-"+strconv.Itoa(i))
				if err != nil {
					t.Errorf("key %d: %v", i, err)
					return
				}
				ids[i] = id
				paid.Add(1)
			}
		}()
	}

	// Kill it four times while keys are being paid, each at a random
	// point of the run measured in keys paid, not in time: on a loaded
	// machine a clock-paced killer saw every key paid after one kill. The
	// k-th kill comes once between k/6 and k/6 + 1/12 of the keys are paid
	// (20 to 40, 60 to 80, 100 to 120, 140 to 160 of 240), and the server
	// is started again on the same database.
	kills := 0
	for k := 1; k <= 4 && ctx.Err() == nil; k++ {
		at := int32(k*keys/6 + r.IntN(keys/12))
		for paid.Load() < at && ctx.Err() == nil {
			time.Sleep(2 * time.Millisecond)
		}
		if ctx.Err() != nil {
			break
		}
		mu.Lock()
		p := proc
		mu.Unlock()
		p.Process.Signal(syscall.SIGKILL)
		p.Wait()
		kills++
		start()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if kills < 4 {
		t.Fatalf("killed %d times before every key was paid, want 4", kills)
	}
	t.Logf("%d keys paid through %d kills", keys, kills)

	d := open()
	defer d.Close()
	var payments, charges, distinctKeys, inFlight int
	q := func(query string, dst *int) {
		if err := d.QueryRow(query).Scan(dst); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}
	q(`SELECT COUNT(*) FROM payments`, &payments)
	q(`SELECT COUNT(*) FROM charges`, &charges)
	q(`SELECT COUNT(DISTINCT idem_key) FROM charges`, &distinctKeys)
	q(`SELECT COUNT(*) FROM idempotency_keys WHERE state = 'in-flight'`, &inFlight)
	if payments != keys || charges != keys || distinctKeys != keys || inFlight != 0 {
		t.Fatalf("after %d kills: %d payments, %d charges for %d distinct keys, %d claims in flight; want %d, %d, %d, 0",
			kills, payments, charges, distinctKeys, inFlight, keys, keys, keys)
	}
	// Each key's 201 names the payment its one charge is for.
	for i, id := range ids {
		var n int
		if err := d.QueryRow(`SELECT COUNT(*) FROM charges WHERE payment_id = $1 AND idem_key = $2`, // $N: SQLite and PostgreSQL alike
			id, "crash-key-"+strconv.Itoa(i)).Scan(&n); err != nil || n != 1 {
			t.Fatalf("key %d answered payment %s, which has %d charges under it (%v)", i, id, n, err)
		}
	}
}

// payUntilDone pays 25.00 with key until the API answers 201, retrying
// refused connections, lost answers, 409s and 5xx, as a careful client
// would; it returns the payment's id.
func payUntilDone(ctx context.Context, client *http.Client, base, key string) (string, error) {
	for {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		req, _ := http.NewRequestWithContext(ctx, "POST", base+"/v1/payments", strings.NewReader(`{"amount":2500,"currency":"usd"}`))
		req.Header.Set("Authorization", "Bearer sk_crash")
		req.Header.Set("Idempotency-Key", key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err == nil {
			body, rerr := io.ReadAll(resp.Body)
			resp.Body.Close()
			switch {
			case rerr != nil:
			case resp.StatusCode == 201:
				var p struct{ ID string }
				if err := json.Unmarshal(body, &p); err != nil || p.ID == "" {
					return "", fmt.Errorf("201 without an id: %s", body)
				}
				return p.ID, nil
			case resp.StatusCode == 409 || resp.StatusCode >= 500:
			default:
				return "", fmt.Errorf("%d: %s", resp.StatusCode, body)
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
}
