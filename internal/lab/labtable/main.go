// Command labtable is `make lab`: it starts a throwaway PostgreSQL server
// (pgtest, as the store tests do), runs `retrylab lab guard` for each of
// the three strategies against it, and prints the table the
// concurrent-duplicates chapter quotes, with the machine, the server's
// version and the date; then, for the isolation-levels chapter, the three
// strategies again with each request one transaction at each isolation
// level.
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/retrylab/retrylab/engine/guard"
	"github.com/retrylab/retrylab/engine/idem/sqlstore/postgres/pgtest"
	"github.com/retrylab/retrylab/internal/lab"
)

func main() {
	n := flag.Int("n", 20, "requests with one key, at once")
	runs := flag.Int("runs", 6, "runs per strategy")
	cardMS := flag.Int("card-ms", 50, "the card call, in milliseconds")
	shorter := flag.String("check-card-ms", "5,1,0", "shorter card calls to run check-then-insert with as well, comma-separated milliseconds")
	levels := flag.String("isolation", "read-committed,repeatable-read,serializable", "isolation levels to run every strategy at, each request one transaction, comma-separated")
	flag.Parse()
	type row struct {
		s    guard.Strategy
		card int
	}
	var table []row
	for _, s := range guard.Strategies {
		table = append(table, row{s, *cardMS})
	}
	for _, f := range strings.Split(*shorter, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		ms, err := strconv.Atoi(f)
		if err != nil {
			fmt.Fprintf(os.Stderr, "make lab: -check-card-ms: %q is not a number of milliseconds\n", f)
			os.Exit(2)
		}
		table = append(table, row{guard.CheckThenInsert, ms})
	}

	srv := &server{}
	dsn, ok := srv.start()
	defer srv.stop()
	if !ok {
		fmt.Fprintln(os.Stderr, "make lab: no PostgreSQL: "+srv.failure)
		srv.stop()
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	version := "PostgreSQL"
	if db, err := sql.Open("pgx", dsn); err == nil {
		var v string
		if db.QueryRowContext(ctx, "SHOW server_version").Scan(&v) == nil {
			version += " " + strings.Fields(v)[0]
		}
		db.Close()
	}
	fmt.Printf("Measured %s UTC on %d cores (%s/%s), %s on the loopback, fsync off.\n",
		time.Now().UTC().Format("2006-01-02 15:04"), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, version)
	fmt.Printf("Command: make lab, which runs for each strategy\n\n")
	fmt.Printf("    retrylab lab guard --db postgres://... --n %d --runs %d --card-ms MS --strategy NAME\n\n", *n, *runs)
	fmt.Println("| Strategy | Card call | Rows, run by run | Charges, run by run | Answers, first run |")
	fmt.Println("|---|---|---|---|---|")
	for _, r := range table {
		s := r.s
		res, err := lab.Guard(ctx, lab.Config{DB: dsn, N: *n, Runs: *runs, Strategy: s, Card: time.Duration(r.card) * time.Millisecond})
		if err != nil {
			fmt.Fprintf(os.Stderr, "make lab: %s, card %d ms: %v\n", s, r.card, err)
			srv.stop()
			os.Exit(1)
		}
		var rows, charges []string
		for _, r := range res.Runs {
			rows = append(rows, strconv.Itoa(r.Rows))
			charges = append(charges, strconv.Itoa(r.Charges))
		}
		fmt.Printf("| `%s` | %d ms | %s | %s | %s |\n", s, r.card, strings.Join(rows, ", "), strings.Join(charges, ", "), res.Runs[0].Answers())
	}

	var isos []lab.Isolation
	for _, f := range strings.Split(*levels, ",") {
		if f = strings.TrimSpace(f); f != "" {
			isos = append(isos, lab.Isolation(f))
		}
	}
	if len(isos) == 0 {
		return
	}
	fmt.Printf("\nEach request one transaction: the same, with --isolation LEVEL and a %d ms card call\n\n", *cardMS)
	fmt.Println("| Strategy | Isolation | Rows, run by run | Charges, run by run | Refused, by SQLSTATE, first run | Retries, first run | Answers, first run |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, iso := range isos {
		for _, s := range guard.Strategies {
			res, err := lab.Guard(ctx, lab.Config{DB: dsn, N: *n, Runs: *runs, Strategy: s, Card: time.Duration(*cardMS) * time.Millisecond, Isolation: iso})
			if err != nil {
				fmt.Fprintf(os.Stderr, "make lab: %s, %s: %v\n", s, iso, err)
				srv.stop()
				os.Exit(1)
			}
			var rows, charges []string
			for _, r := range res.Runs {
				rows = append(rows, strconv.Itoa(r.Rows))
				charges = append(charges, strconv.Itoa(r.Charges))
			}
			first := res.Runs[0]
			fmt.Printf("| `%s` | %s | %s | %s | %s | %d | %s |\n", s, iso, strings.Join(rows, ", "), strings.Join(charges, ", "), first.FailureText(), first.Retries, first.Answers())
		}
	}
}

// server holds a pgtest server outside a test: pgtest.Start asks a
// testing.TB for only Helper, Cleanup, Logf, Skip, Fatal and Fatalf, which
// server implements; the embedded TB is nil and never called.
type server struct {
	testing.TB
	cleanups []func()
	failure  string
}

// start runs pgtest.Start on a goroutine of its own, so that Fatal can
// end that goroutine as it ends a test's.
func (s *server) start() (dsn string, ok bool) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		dsn = pgtest.Start(s)
		ok = true
	}()
	<-done
	return dsn, ok
}

// stop runs the cleanups, last first, once.
func (s *server) stop() {
	for i := len(s.cleanups) - 1; i >= 0; i-- {
		s.cleanups[i]()
	}
	s.cleanups = nil
}

func (s *server) Helper()                    {}
func (s *server) Cleanup(f func())           { s.cleanups = append(s.cleanups, f) }
func (s *server) Logf(f string, args ...any) { fmt.Fprintf(os.Stderr, f+"\n", args...) }
func (s *server) Skip(args ...any)           { s.Fatal(args...) }
func (s *server) Fatal(args ...any)          { s.failure = fmt.Sprint(args...); runtime.Goexit() }
func (s *server) Fatalf(f string, args ...any) {
	s.failure = fmt.Sprintf(f, args...)
	runtime.Goexit()
}
