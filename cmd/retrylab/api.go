package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/retrylab/retrylab/engine/idem"
	"github.com/retrylab/retrylab/engine/idem/idemhttp"
	"github.com/retrylab/retrylab/engine/idem/ledger"
	"github.com/retrylab/retrylab/engine/idem/sqlstore/postgres"
	"github.com/retrylab/retrylab/engine/idem/sqlstore/sqlite"
	"github.com/retrylab/retrylab/internal/cors"
)

// apiConfig is what `retrylab api` is told.
type apiConfig struct {
	addr  string
	db    string // a SQLite file, a postgres:// URL, or "memory"
	lease time.Duration
	ttl   time.Duration
	// The server's limits; zero means the default below (tests set
	// shorter ones).
	readHeader, read, write, idle time.Duration
	maxConns                      int
	sites                         string // origins whose pages may call the API from a browser (CORS), comma-separated
}

// The server's limits against slow and greedy clients.
const (
	// readHeaderTimeout: a client has 10 s to send its headers.
	readHeaderTimeout = 10 * time.Second
	// readTimeout is the deadline for the whole request, headers and
	// body: 15 s. The largest body is 64 KiB (idemhttp.MaxBody), which a
	// phone on a poor 64 kbit/s link sends in about 8 s; a client slower
	// than that is holding a connection, not paying.
	readTimeout = 15 * time.Second
	// writeTimeout runs from the end of the headers to the end of the
	// answer: the body (at most 15 s), the work (slow=MS, at most 10 s,
	// and a few store statements) and the answer itself: 30 s.
	writeTimeout = 30 * time.Second
	// idleTimeout closes a kept-alive connection with no request for a
	// minute.
	idleTimeout = time.Minute
	// maxConns caps the connections served at once: 512, half of the
	// common 1,024 file descriptors a process gets, leaving the rest to
	// the database and the log. A connection beyond it takes the slot of
	// one that does the least (idle, or still sending its request: see
	// conns), and waits only while every one runs a request.
	maxConns = 512
	// maxConnBytes bounds the heap one connection may hold: 320 KiB. Its
	// request's head, parsed, is at most about 150 KiB (8 KiB of
	// distinct one-letter fields, each a map entry: measured by
	// TestAPIMemoryPerConnection), its body at most twice MaxBody as it
	// is read (128 KiB), and its buffers and goroutine some 16 KiB more.
	maxConnBytes = 320 << 10
	// memoryLimit is the soft limit on the Go runtime's memory that
	// retrylab api sets (runtime/debug.SetMemoryLimit) unless GOMEMLIMIT
	// sets another: 512 MiB. What the server can hold at once is a memory
	// store's 100,000 keys at about 1.7 KB each (idem.DefaultMaxRecords:
	// 170 MB; a SQL store's are on disk) and 512 connections at
	// maxConnBytes each (160 MiB), some 340 MB, which the collector
	// otherwise lets grow to twice that before it runs (GOGC=100); under
	// the limit it runs sooner instead, and the heap stays within it.
	memoryLimit = 512 << 20
)

// apiFlags declares `retrylab api`'s flags on fs.
func apiFlags(fs *flag.FlagSet) *apiConfig {
	c := &apiConfig{}
	fs.StringVar(&c.addr, "addr", "localhost:8787", "`host:port` to listen on")
	fs.StringVar(&c.db, "db", "retrylab.db", "where keys and payments are kept: a SQLite `file` (or sqlite:FILE), a postgres:// URL, or memory")
	fs.DurationVar(&c.lease, "lease", idem.DefaultLease, "how long a claim on a key holds before a retry may take it over")
	fs.DurationVar(&c.ttl, "ttl", idem.DefaultTTL, "how long a key is remembered after its request finished; after that the same key is a new request (at least 2 leases)")
	fs.StringVar(&c.sites, "site-origins", "", "`origins` (comma-separated, such as https://retrylab.example) whose pages may call the API from a browser")
	return c
}

func apiUsage(w io.Writer) {
	fmt.Fprintln(w, "retrylab api [--addr localhost:8787] [--db retrylab.db | sqlite:FILE | postgres://... | memory] [--lease 1m] [--ttl 24h]")
	fmt.Fprintln(w, "serves the sandbox payments API (POST /v1/payments with Idempotency-Key) until Ctrl-C.")
}

func runAPI(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("retrylab api", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { apiUsage(stderr); fs.PrintDefaults() }
	cfg := apiFlags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "retrylab api: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if _, err := cors.ParseOrigins(cfg.sites); err != nil {
		fmt.Fprintf(stderr, "retrylab api: --site-origins: %v\n", err)
		return exitUsage
	}
	if _, err := sqliteFile(cfg.db); err != nil {
		fmt.Fprintf(stderr, "retrylab api: --db %q: %v\n", cfg.db, err)
		return exitUsage
	}
	if err := idem.CheckWindows(cfg.lease, cfg.ttl); err != nil {
		fmt.Fprintf(stderr, "retrylab api: --lease %v --ttl %v: %v\n", cfg.lease, cfg.ttl, err)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serveAPI(ctx, *cfg, stdout, stderr, nil)
}

// apiStore is a store the server can close.
type apiStore interface {
	ledger.Store
	Close() error
}

type memoryStore struct{ *ledger.MemoryStore }

func (memoryStore) Close() error { return nil }

// openStore opens the store db names and describes it.
func openStore(ctx context.Context, db string) (apiStore, string, error) {
	switch {
	case db == "memory":
		return memoryStore{ledger.NewMemoryStore()}, "in memory (gone when the server stops)", nil
	case strings.HasPrefix(db, "postgres://"), strings.HasPrefix(db, "postgresql://"):
		s, err := postgres.Open(ctx, db)
		if err != nil {
			return nil, "", fmt.Errorf("opening PostgreSQL: %w", err)
		}
		return s, "PostgreSQL", nil
	}
	path, err := sqliteFile(db)
	if err != nil {
		return nil, "", err
	}
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		return nil, "", fmt.Errorf("opening SQLite file %s: %w", path, err)
	}
	return s, "SQLite file " + path, nil
}

// sqliteFile is the SQLite file --db names, given as it is or in the
// sqlite:FILE form of `retrylab lab`; "" for memory and PostgreSQL. A
// name of nothing, or only of spaces, names no file.
func sqliteFile(db string) (string, error) {
	if db == "memory" || strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://") {
		return "", nil
	}
	path := strings.TrimPrefix(db, "sqlite:")
	if strings.TrimSpace(path) == "" {
		return "", errors.New("names no database: give a SQLite file (retrylab.db, or sqlite:retrylab.db), a postgres:// URL, or memory")
	}
	return path, nil
}

// purgeEvery is how often expired keys are deleted, with the payments
// and charges they made: an hour, a twenty-fourth of the default TTL, so
// that a SQL store holds at most about 25 hours of keys (a full memory
// store drops expired ones at once).
const purgeEvery = time.Hour

// sweepEvery is how often the abandoned claims (in flight, their lease
// run out, no retry come) are finished (idemhttp.Sandbox.Sweep): 10 s, a
// sixth of the default lease, so that a crashed claim is in flight at
// most a lease and 10 s.
const sweepEvery = 10 * time.Second

// serveAPI runs the server until ctx is done, then shuts it down,
// letting requests in progress finish. ready, if not nil, receives the
// server's base URL once it listens.
func serveAPI(ctx context.Context, cfg apiConfig, stdout, stderr io.Writer, ready chan<- string) int {
	for _, d := range []struct {
		v   *time.Duration
		def time.Duration
	}{{&cfg.readHeader, readHeaderTimeout}, {&cfg.read, readTimeout}, {&cfg.write, writeTimeout}, {&cfg.idle, idleTimeout}} {
		if *d.v <= 0 {
			*d.v = d.def
		}
	}
	if cfg.maxConns <= 0 {
		cfg.maxConns = maxConns
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	store, desc, err := openStore(ctx, cfg.db)
	if err != nil {
		fmt.Fprintf(stderr, "retrylab api: %v\n", err)
		return exitFail
	}
	defer store.Close()
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		fmt.Fprintf(stderr, "retrylab api: %v\n", err)
		return exitFail
	}
	cl := newConns(ln, cfg.maxConns)
	ln = cl
	base := "http://" + displayAddr(cfg.addr, ln.Addr())

	var logMu sync.Mutex
	h := &idemhttp.Sandbox{Store: store, Lease: cfg.lease, TTL: cfg.ttl, Log: func(e idemhttp.Entry) {
		logMu.Lock()
		fmt.Fprintln(stderr, e.Time.Format("15:04:05.000"), e.String())
		logMu.Unlock()
	}}
	sites, _ := cors.ParseOrigins(cfg.sites) // checked by runAPI
	srv := &http.Server{Handler: cl.track(cors.Allow(h, sites)), ReadHeaderTimeout: cfg.readHeader, ReadTimeout: cfg.read,
		WriteTimeout: cfg.write, IdleTimeout: cfg.idle,
		// net/http allows 4,096 bytes more than MaxHeaderBytes (its
		// initialReadLimitSize): this makes the limit idemhttp's.
		MaxHeaderBytes: idemhttp.MaxHeaderBytes - 4096,
		ConnState:      cl.state, ConnContext: cl.context}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	fmt.Fprintf(stdout, "retrylab api: the sandbox payments API on %s\n", base)
	fmt.Fprintf(stdout, "  kept %s; keys remembered %s; a claim's lease %s\n\n", desc, cfg.ttl, cfg.lease)
	fmt.Fprintf(stdout, "Pay (run it twice: the second answer is a replay, Idempotent-Replayed: true):\n\n")
	fmt.Fprintf(stdout, "  curl -i %s/v1/payments \\\n", base)
	fmt.Fprintf(stdout, "    -H 'Authorization: Bearer sk_test_mine' \\\n")
	fmt.Fprintf(stdout, "    -H 'Idempotency-Key: order-1001' \\\n")
	fmt.Fprintf(stdout, "    -H 'Content-Type: application/json' \\\n")
	fmt.Fprintf(stdout, "    -d '{\"amount\": 2500, \"currency\": \"usd\"}'\n\n")
	fmt.Fprintf(stdout, "See the card's charges:\n\n  curl %s/v1/charges -H 'Authorization: Bearer sk_test_mine'\n\n", base)
	fmt.Fprintf(stdout, "Lose things on purpose with -H 'Retrylab-Fault: %s'.\n", idemhttp.FaultNames)
	fmt.Fprintf(stdout, "One line per request follows on stderr; Ctrl-C stops the server.\n")
	if ready != nil {
		ready <- base
	}

	var purge <-chan time.Time
	purger, canPurge := store.(interface {
		Purge(context.Context, time.Time) (int64, error)
	})
	if canPurge {
		t := time.NewTicker(purgeEvery)
		defer t.Stop()
		purge = t.C
		purger.Purge(ctx, time.Now())
	}
	sweeps := time.NewTicker(sweepEvery)
	defer sweeps.Stop()
	for {
		select {
		case <-sweeps.C:
			sw, err := h.Sweep(ctx)
			if err != nil {
				fmt.Fprintf(stderr, "retrylab api: finishing abandoned claims: %v\n", err)
			}
			if sw.Finished+sw.Dropped > 0 {
				fmt.Fprintf(stderr, "retrylab api: %d abandoned claims finished, %d released (nothing had happened)\n", sw.Finished, sw.Dropped)
			}
		case err := <-served:
			fmt.Fprintf(stderr, "retrylab api: %v\n", err)
			return exitFail
		case now := <-purge:
			if n, err := purger.Purge(ctx, now); err != nil {
				fmt.Fprintf(stderr, "retrylab api: deleting expired keys: %v\n", err)
			} else if n > 0 {
				fmt.Fprintf(stderr, "retrylab api: deleted %d expired keys\n", n)
			}
		case <-ctx.Done():
			// A slow request may take 10 s of work (idemhttp.MaxSlow):
			// give requests in progress 15 s to finish.
			fmt.Fprintln(stderr, "retrylab api: shutting down; requests in progress may finish")
			sctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			if err := srv.Shutdown(sctx); err != nil {
				fmt.Fprintf(stderr, "retrylab api: shutdown: %v\n", err)
				return exitFail
			}
			fmt.Fprintln(stderr, "retrylab api: stopped")
			return exitOK
		}
	}
}

// displayAddr is the address to show: the host as given (localhost stays
// localhost) with the port actually bound (for :0).
func displayAddr(given string, bound net.Addr) string {
	host, _, err := net.SplitHostPort(given)
	_, port, err2 := net.SplitHostPort(bound.String())
	if err != nil || err2 != nil {
		return bound.String()
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}
