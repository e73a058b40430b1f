package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/retrylab/retrylab/engine/idem/idemhttp"
	"github.com/retrylab/retrylab/engine/idem/ledger"
	"github.com/retrylab/retrylab/engine/idem/sqlstore/sqlite"
)

// The api section: retrylab api under every attack at once, on the
// loopback, while one well-behaved client on an account of its own pays,
// replays, reads and lists; and what a key costs each store.
//
//	go run ./cmd/bench -only api
const (
	// soakSlowest is the slowest answer the well-behaved client may get
	// under attack: 1 s.
	soakSlowest = 1000.0 // ms
	// soakRSS is the most the server may hold resident under attack: the
	// runtime's soft memory limit (512 MiB, retrylab api's memoryLimit)
	// and 64 MiB for what the limit does not count (the binary's text,
	// SQLite's page caches, memory the collector has yet to return).
	soakRSS = (512 + 64) << 20
	// soakCharges is how many charges the SQLite run's one big account
	// holds before the attack, for its lists: 200,000, a tenth of the 2M
	// of the slow lists the limit+1 read answers, and enough that a
	// COUNT(*) per list would show (about 17 ms each).
	soakCharges = 200_000
)

func (b *bench) measureAPI(ctx context.Context) {
	bin := filepath.Join(b.tmp, "retrylab")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/retrylab")
	cmd.Dir = b.root
	if out, err := cmd.CombinedOutput(); err != nil {
		b.add(missing("api", "retrylab api under attack", fmt.Sprintf("go build ./cmd/retrylab: %v\n%s", err, out)))
		return
	}
	for _, run := range []struct {
		db, what string
		attacks  bool // all but the payment floods
		payments bool // the payment floods: ten tokens filling the store, slow=10000
	}{
		{"memory", "--db memory", true, true},
		{"sqlite", "--db sqlite", true, true},
		{"sqlite", "--db sqlite, without the payment floods", true, false},
		// The disk's own times, for reference: the same client alone.
		{"sqlite", "--db sqlite, no attack at all", false, false},
	} {
		b.logf("retrylab api %s under attack for %s", run.what, b.cfg.Soak)
		s, err := b.soak(ctx, bin, run.db, run.attacks, run.payments)
		what, db := run.what, run.db
		if err != nil {
			b.add(missing("api", what+": the good client's slowest answer", err.Error()))
			continue
		}
		slow := measured("api", what+": the good client's slowest answer", s.slowest, "ms")
		if run.attacks {
			slow.Target = AtMost(soakSlowest, "≤ 1 s")
		}
		slow.Note = fmt.Sprintf("%d answers, p99 %s; %d sent again after their connection failed", s.answers, formatMs(s.p99), s.retried)
		slow.Detail = map[string]any{"attacks": s.attacks, "wrong": s.wrongs, "slowest": s.slowestWas}
		wrong := measured("api", what+": the good client's wrong answers or failures", float64(s.wrong), "")
		wrong.Target = AtMost(0, "0")
		rss := measured("api", what+": the server's peak RSS under attack", float64(s.peakRSS), "bytes")
		rss.Target = AtMost(soakRSS, "≤ 576 MiB")
		rss.Note = fmt.Sprintf("%s resident at the end", formatValue(float64(s.endRSS), "bytes"))
		if db == "sqlite" && run.payments {
			slow.Note += "; every payment is six commits, each waiting for the disk (synchronous=FULL), one writer for all"
		}
		b.add(slow, wrong, rss)
	}
	if perKey, err := memoryBytesPerKey(); err != nil {
		b.add(missing("api", "--db memory: heap per key", err.Error()))
	} else {
		r := measured("api", "--db memory: heap per key, with its payment and charge", perKey, "bytes")
		r.Note = fmt.Sprintf("%d keys of 41 bytes over 10 accounts, through the handler", idemMaxRecords)
		b.add(r)
	}
	if perKey, err := sqliteBytesPerKey(ctx, b.tmp); err != nil {
		b.add(missing("api", "--db sqlite: disk per key", err.Error()))
	} else {
		r := measured("api", "--db sqlite: disk per key, with its payment and charge", perKey, "bytes")
		r.Note = "the file's size, checkpointed, over 5,000 keys"
		b.add(r)
	}
}

// idemMaxRecords is the memory store's bound, which memoryBytesPerKey
// fills.
const idemMaxRecords = 100_000

// memoryBytesPerKey fills a memory store to its bound through the
// sandbox's handler and returns the heap it took per key.
func memoryBytesPerKey() (float64, error) {
	store := ledger.NewMemoryStore()
	h := &idemhttp.Sandbox{Store: store}
	before := heapInUse()
	if err := payThrough(h, idemMaxRecords); err != nil {
		return 0, err
	}
	after := heapInUse()
	if n := store.Len(); n != idemMaxRecords {
		return 0, fmt.Errorf("%d keys held, want %d", n, idemMaxRecords)
	}
	runtime.KeepAlive(store)
	return float64(after-before) / idemMaxRecords, nil
}

// payThrough pays n times through h, each with a new key of 41 bytes, over
// 10 accounts.
func payThrough(h http.Handler, n int) error {
	for i := range n {
		req := httptest.NewRequest("POST", "/v1/payments", strings.NewReader(`{"amount":2500,"currency":"usd"}`))
		req.Header.Set("Authorization", "Bearer sk_test_"+strconv.Itoa(i%10))
		req.Header.Set("Idempotency-Key", fmt.Sprintf("8e03978e-40d5-43e8-bc93-%012d", i))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 201 {
			return fmt.Errorf("key %d: %d %s", i, rec.Code, rec.Body)
		}
	}
	return nil
}

func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}

// sqliteBytesPerKey pays 5,000 times through the handler into a new
// SQLite file and returns its size per key, the write-ahead log folded
// in. The commits do not wait for the disk here (synchronous=OFF): what
// is measured is the file's size, which that does not change.
func sqliteBytesPerKey(ctx context.Context, tmp string) (float64, error) {
	const n = 5000
	path := filepath.Join(tmp, "perkey.db")
	store, err := sqlite.Open(ctx, path)
	if err != nil {
		return 0, err
	}
	defer store.Close()
	if _, err := store.DB().ExecContext(ctx, "PRAGMA synchronous=OFF"); err != nil {
		return 0, err
	}
	h := &idemhttp.Sandbox{Store: store}
	if err := payThrough(h, n); err != nil {
		return 0, err
	}
	if _, err := store.DB().ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return 0, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return float64(fi.Size()) / n, nil
}

// soakResult is what one soak measured.
type soakResult struct {
	answers         int
	retried         int // requests sent again after their connection failed
	slowestWas      slowAnswer
	slowest, p99    float64 // ms
	wrong           int
	wrongs          []string // the first few, said
	peakRSS, endRSS int64
	attacks         map[string]int64 // requests or connections each attack made
}

// soak starts retrylab api on db, runs every attack against it for
// b.cfg.Soak with the good client beside them, and stops it.
func (b *bench) soak(ctx context.Context, bin, db string, attacks, payments bool) (soakResult, error) {
	var res soakResult
	dbArg := db
	if db == "sqlite" {
		dbArg = filepath.Join(b.tmp, "soak.db")
		os.Remove(dbArg)
		if err := fillCharges(ctx, dbArg, "sk_test_big", soakCharges); err != nil {
			return res, fmt.Errorf("filling the big account: %w", err)
		}
	}
	port, err := freePort()
	if err != nil {
		return res, err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	srv := exec.Command(bin, "api", "--addr", addr, "--db", dbArg)
	srv.Stdout, srv.Stderr = io.Discard, io.Discard // the log: a line per request, hundreds of thousands
	if err := srv.Start(); err != nil {
		return res, err
	}
	defer func() {
		srv.Process.Kill()
		srv.Wait()
	}()
	base := "http://" + addr
	if err := waitUp(ctx, base); err != nil {
		return res, err
	}

	sctx, cancel := context.WithTimeout(ctx, b.cfg.Soak)
	defer cancel()
	counts := map[string]*atomic.Int64{}
	var wg sync.WaitGroup
	run := func(name string, n int, f func(ctx context.Context, i int, count *atomic.Int64)) {
		if !attacks {
			return
		}
		c := &atomic.Int64{}
		counts[name] = c
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				f(sctx, i, c)
			}()
		}
	}

	// 1. Ten tokens fill the store: new keys, every fourth with a crash
	// after the charge (the payment floods, 1 and 6, are left out when
	// payments is false).
	if payments {
		run("store fill (10 tokens)", 4, func(ctx context.Context, i int, n *atomic.Int64) {
			client := &http.Client{Timeout: 30 * time.Second}
			for k := 0; ctx.Err() == nil; k++ {
				fault := ""
				if k%4 == 0 {
					fault = "crash-after-charge"
				}
				rawPay(ctx, client, base, "attacker"+strconv.Itoa(k%10), "fill-"+strconv.Itoa(i)+"-"+strconv.Itoa(k), fault)
				n.Add(1)
			}
		})
	}
	// 2. Idle kept-alive connections, more than the cap: one GET each, then
	// nothing, and again once the server closes them.
	run("idle kept-alive connections (600)", 600, func(ctx context.Context, _ int, n *atomic.Int64) {
		connections(ctx, addr, n, 50*time.Millisecond, func(c net.Conn) {
			io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
			untilClosed(ctx, c)
		})
	})
	// 3. A megabyte of small header fields per request.
	fields := headerFields(1 << 20)
	run("header floods (1 MB of fields)", 4, func(ctx context.Context, _ int, n *atomic.Int64) {
		connections(ctx, addr, n, 10*time.Millisecond, func(c net.Conn) {
			c.Write(fields)
			untilClosed(ctx, c)
		})
	})
	// 4. Inputs an error could echo: a long path, a long member name.
	member := `{"` + strings.Repeat("<", 65_000) + `":1}`
	run("echo bait (long path, long member)", 2, func(ctx context.Context, i int, n *atomic.Int64) {
		requests(ctx, n, func() *http.Request {
			if i == 0 {
				req, _ := http.NewRequestWithContext(ctx, "GET", base+"/v1/payments/"+strings.Repeat("<", 7000), nil)
				return req
			}
			req, _ := http.NewRequestWithContext(ctx, "POST", base+"/v1/payments", strings.NewReader(member))
			req.Header.Set("Idempotency-Key", "echo")
			return req
		}, "attacker-echo")
	})
	// 5. Heads sent a byte a second, and bodies that stop short of their
	// Content-Length.
	run("half-sent heads and bodies (150)", 150, func(ctx context.Context, i int, n *atomic.Int64) {
		connections(ctx, addr, n, 50*time.Millisecond, func(c net.Conn) {
			if i%3 == 0 {
				io.WriteString(c, "POST /v1/payments HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer attacker-short\r\n"+
					"Idempotency-Key: short\r\nContent-Length: 1000\r\n\r\n{\"amount\"")
				untilClosed(ctx, c)
				return
			}
			for _, ch := range []byte("GET / HTTP/1.1\r\nHost: x\r\nX-Slow: " + strings.Repeat("s", 100)) {
				if _, err := c.Write([]byte{ch}); err != nil || !sleep(ctx, time.Second) {
					return
				}
			}
		})
	})
	// 6. Slow payments, asking for the longest wait, many at once.
	if payments {
		run("slow=10000 payments (100 at once)", 100, func(ctx context.Context, i int, n *atomic.Int64) {
			client := &http.Client{Timeout: 30 * time.Second}
			for k := 0; ctx.Err() == nil; k++ {
				if status := rawPay(ctx, client, base, "attacker-slow", "slow-"+strconv.Itoa(i)+"-"+strconv.Itoa(k), "slow=10000"); status == 429 {
					sleep(ctx, time.Second)
				}
				n.Add(1)
			}
		})
	}
	// 7. On SQLite, 64 lists at once of the account with the most charges,
	// a page of one each: what a COUNT(*) per list made cost the most.
	if db == "sqlite" {
		run("lists of 1 of 200,000 charges (64 at once)", 64, func(ctx context.Context, _ int, n *atomic.Int64) {
			requests(ctx, n, func() *http.Request {
				req, _ := http.NewRequestWithContext(ctx, "GET", base+"/v1/charges?limit=1", nil)
				return req
			}, "sk_test_big")
		})
	}

	// The well-behaved client, after the attacks have had a moment to
	// take hold.
	rss := &rssWatch{pid: srv.Process.Pid}
	go rss.run(sctx)
	sleep(sctx, 2*time.Second)
	lat, wrongs, retried, slowest := goodClient(sctx, base)
	wg.Wait()

	res.answers, res.retried, res.slowestWas = len(lat), retried, slowest
	if len(lat) == 0 {
		return res, errors.New("the good client got no answer")
	}
	slices.Sort(lat)
	res.slowest, res.p99 = lat[len(lat)-1], lat[len(lat)*99/100]
	res.wrong = len(wrongs)
	res.wrongs = wrongs[:min(len(wrongs), 5)]
	res.peakRSS, res.endRSS = rss.peak(), rss.now()
	res.attacks = map[string]int64{}
	for name, c := range counts {
		res.attacks[name] = c.Load()
	}
	return res, nil
}

// goodClient pays, replays, reads the payment and lists the last charges,
// every 50 ms until ctx is done, as a client of its own account would,
// and returns each answer's time in ms, what was wrong, and how many
// requests it sent again after their connection failed (as a careful
// client does: the payments with the same key). An answer's time
// includes its second try.
func goodClient(ctx context.Context, base string) (lat []float64, wrongs []string, retried int, slowest slowAnswer) {
	client := &http.Client{Timeout: 30 * time.Second}
	do := func(what string, want int, newReq func() *http.Request) []byte {
		start := time.Now()
		var resp *http.Response
		var err error
		fresh := 0 // connections dialled for it
		trace := &httptrace.ClientTrace{GotConn: func(ci httptrace.GotConnInfo) {
			if !ci.Reused {
				fresh++
			}
		}}
		for try := range 2 {
			req := newReq()
			req = req.WithContext(httptrace.WithClientTrace(req.Context(), trace))
			req.Header.Set("Authorization", "Bearer sk_test_good")
			if resp, err = client.Do(req); err == nil || ctx.Err() != nil {
				break
			}
			if try == 0 {
				retried++
			}
		}
		if ctx.Err() != nil {
			return nil // the soak ended under it
		}
		took := float64(time.Since(start).Microseconds()) / 1000
		lat = append(lat, took)
		if took > slowest.Ms {
			slowest = slowAnswer{what, took, fresh}
		}
		if err != nil {
			wrongs = append(wrongs, what+": "+err.Error())
			return nil
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != want {
			wrongs = append(wrongs, fmt.Sprintf("%s: %d %.200s", what, resp.StatusCode, body))
		}
		return body
	}
	const body = `{"amount": 2500, "currency": "usd"}`
	for k := 0; ctx.Err() == nil; k++ {
		key := "good-" + strconv.Itoa(k)
		pay := func() *http.Request {
			req, _ := http.NewRequestWithContext(ctx, "POST", base+"/v1/payments", strings.NewReader(body))
			req.Header.Set("Idempotency-Key", key)
			req.Header.Set("Content-Type", "application/json")
			return req
		}
		get := func(path string) func() *http.Request {
			return func() *http.Request {
				req, _ := http.NewRequestWithContext(ctx, "GET", base+path, nil)
				return req
			}
		}
		var p struct{ ID string }
		json.Unmarshal(do("pay", 201, pay), &p)
		do("replay", 201, pay)
		if p.ID != "" {
			do("read the payment", 200, get("/v1/payments/"+p.ID))
		}
		do("list the charges", 200, get("/v1/charges?limit=5"))
		sleep(ctx, 50*time.Millisecond)
	}
	return lat, wrongs, retried, slowest
}

// slowAnswer is the good client's slowest: what it asked, in how long,
// and on how many connections it had to dial (0: one kept alive).
type slowAnswer struct {
	What  string  `json:"what"`
	Ms    float64 `json:"ms"`
	Dials int     `json:"dials"`
}

// connections dials addr again and again until ctx is done, pausing
// between them, hands each connection to use, closes it after, and
// counts them in n.
func connections(ctx context.Context, addr string, n *atomic.Int64, pause time.Duration, use func(net.Conn)) {
	for ctx.Err() == nil {
		if c, err := dialCtx(ctx, addr); err == nil {
			n.Add(1)
			c.SetDeadline(time.Now().Add(time.Minute))
			use(c)
			c.Close()
		}
		sleep(ctx, pause)
	}
}

// requests sends the requests newReq makes, as token, one after the
// other until ctx is done, and counts them in n.
func requests(ctx context.Context, n *atomic.Int64, newReq func() *http.Request, token string) {
	client := &http.Client{Timeout: 30 * time.Second}
	for ctx.Err() == nil {
		req := newReq()
		req.Header.Set("Authorization", "Bearer "+token)
		if resp, err := client.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		n.Add(1)
	}
}

// rawPay posts a payment and returns its status, 0 for none.
func rawPay(ctx context.Context, client *http.Client, base, token, key, fault string) int {
	req, _ := http.NewRequestWithContext(ctx, "POST", base+"/v1/payments", strings.NewReader(`{"amount":100,"currency":"usd"}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Idempotency-Key", key)
	if fault != "" {
		req.Header.Set("Retrylab-Fault", fault)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// headerFields is a request head of about size bytes of distinct small
// header fields.
func headerFields(size int) []byte {
	var b bytes.Buffer
	b.WriteString("GET / HTTP/1.1\r\nHost: x\r\n")
	for i := 0; b.Len() < size; i++ {
		b.WriteString("X" + strconv.Itoa(i) + ": y\r\n")
	}
	b.WriteString("\r\n")
	return b.Bytes()
}

// fillCharges makes a SQLite store at path whose account of token holds
// n done keys, each with its payment and charge, written directly.
func fillCharges(ctx context.Context, path, token string, n int) error {
	store, err := sqlite.Open(ctx, path)
	if err != nil {
		return err
	}
	defer store.Close()
	account, err := idemhttp.AccountOf("Bearer " + token)
	if err != nil {
		return err
	}
	tx, err := store.DB().BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	now := time.Now()
	far := now.Add(24 * time.Hour).UnixMicro()
	stmts := []string{
		`INSERT INTO idempotency_keys (account, idem_key, fingerprint, state, status, body, created, expires_at, locked_until, fence, recovery_point)
VALUES (?1, ?2, 'fp', 'done', 201, X'7B7D', ?3, ?4, ?3, ?3, '')`,
		`INSERT INTO charges (id, account, payment_id, amount, currency, idem_key, created) VALUES ('ch_' || ?2, ?1, 'pay_' || ?2, 100, 'usd', ?2, ?3)`,
		`INSERT INTO payments (id, account, amount, currency, status, charge_id, idem_key, created) VALUES ('pay_' || ?2, ?1, 100, 'usd', 'succeeded', 'ch_' || ?2, ?2, ?3)`,
	}
	var prepared []*sql.Stmt
	for _, q := range stmts {
		st, err := tx.PrepareContext(ctx, q)
		if err != nil {
			return err
		}
		defer st.Close()
		prepared = append(prepared, st)
	}
	for i := range n {
		at := now.Add(time.Duration(i-n) * time.Millisecond).UnixMicro()
		for j, st := range prepared {
			args := []any{account, "big-" + strconv.Itoa(i), at}
			if j == 0 {
				args = append(args, far)
			}
			if _, err := st.ExecContext(ctx, args...); err != nil {
				return err
			}
		}
	}
	return tx.Commit()
}

// rssWatch samples a process's resident set.
type rssWatch struct {
	pid  int
	mu   sync.Mutex
	last int64
}

func (w *rssWatch) run(ctx context.Context) {
	for ctx.Err() == nil {
		if v, ok := procStatus(w.pid, "VmRSS"); ok {
			w.mu.Lock()
			w.last = v
			w.mu.Unlock()
		}
		sleep(ctx, 100*time.Millisecond)
	}
}

// peak is the most the process ever held resident (VmHWM).
func (w *rssWatch) peak() int64 {
	v, _ := procStatus(w.pid, "VmHWM")
	return v
}

func (w *rssWatch) now() int64 {
	if v, ok := procStatus(w.pid, "VmRSS"); ok {
		return v
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.last
}

// procStatus reads a "kB" field of /proc/PID/status, in bytes.
func procStatus(pid int, field string) (int64, bool) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, v, ok := strings.Cut(sc.Text(), ":")
		if ok && name == field {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// waitUp waits for the server at base to answer, for up to 30 s.
func waitUp(ctx context.Context, base string) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(base + "/")
		if err == nil {
			resp.Body.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("retrylab api did not answer in 30 s: %v", err)
		}
		if !sleep(ctx, 50*time.Millisecond) {
			return ctx.Err()
		}
	}
}

func dialCtx(ctx context.Context, addr string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "tcp", addr)
}

// untilClosed reads and drops what c receives until the server closes it,
// its deadline passes or ctx is done; then closes it.
func untilClosed(ctx context.Context, c net.Conn) {
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	io.Copy(io.Discard, c)
	c.Close()
}

// sleep waits d, or until ctx is done; it reports whether ctx is still
// going.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
