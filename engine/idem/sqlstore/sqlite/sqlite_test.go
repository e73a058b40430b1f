package sqlite_test

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/retrylab/retrylab/engine/idem"
	"github.com/retrylab/retrylab/engine/idem/ledger"
	"github.com/retrylab/retrylab/engine/idem/sqlstore/sqlite"
	"github.com/retrylab/retrylab/engine/idem/storetest"
)

func TestSQLiteConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) ledger.Store {
		s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "retrylab.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

func TestSQLiteProperty(t *testing.T) {
	dir := t.TempDir()
	n := 0
	storetest.RunProperty(t, func(t *testing.T) ledger.Store {
		n++
		s, err := sqlite.Open(context.Background(), filepath.Join(dir, "p"+strconv.Itoa(n)+".db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}, 150)
}

// Servers started together on a new file all open it: none fails with
// SQLITE_BUSY while another creates the schema.
func TestSQLiteOpenedAtOnce(t *testing.T) {
	for round := range 40 {
		path := filepath.Join(t.TempDir(), "new"+strconv.Itoa(round)+".db")
		const n = 8
		errs := make(chan error, n)
		start := make(chan struct{})
		for range n {
			go func() {
				<-start
				s, err := sqlite.Open(context.Background(), path)
				if err == nil {
					err = s.Close()
				}
				errs <- err
			}()
		}
		close(start)
		for range n {
			if err := <-errs; err != nil {
				t.Fatalf("round %d: %d servers opening a new file at once: %v", round, n, err)
			}
		}
	}
}

// The store commits with synchronous=FULL: a sent answer survives a power
// cut.
func TestSQLiteSynchronousFull(t *testing.T) {
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "sync.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var mode int
	if err := s.DB().QueryRow("PRAGMA synchronous").Scan(&mode); err != nil || mode != 2 {
		t.Fatalf("PRAGMA synchronous = %d (%v), want 2 (FULL)", mode, err)
	}
}

// A list does not wait for the writer's connection: with that one
// connection held (a long write, or a queue of them), an account's
// charges and payments are still read.
func TestSQLiteReadsDoNotQueueBehindWrites(t *testing.T) {
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "reads.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	conn, err := s.DB().Conn(t.Context()) // the writer's only connection
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if _, _, err := s.Charges(ctx, "acct_1", ledger.Page{Limit: 1}); err != nil {
		t.Fatalf("listing charges while the writer's connection is held: %v", err)
	}
	if _, _, err := s.Payment(ctx, "acct_1", "pay_1"); err != nil {
		t.Fatalf("reading a payment while the writer's connection is held: %v", err)
	}
}

// A charge the store cannot run, another process holding the file past
// the busy timeout, is ledger.ErrNotWritten: nothing was charged, and the
// API may say so instead of saving a failure.
func TestSQLiteBusyIsNotWritten(t *testing.T) {
	defer func(d time.Duration) { *sqlite.BusyTimeout = d }(*sqlite.BusyTimeout)
	*sqlite.BusyTimeout = 100 * time.Millisecond
	path := filepath.Join(t.TempDir(), "busy.db")
	s, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec, claimed, err := s.Claim(t.Context(), idem.Record{Account: "acct_1", Key: "k", Fingerprint: "fp",
		Created: storetest.T0, ExpiresAt: storetest.T0.Add(time.Hour), LockedUntil: storetest.T0.Add(time.Minute)})
	if err != nil || !claimed {
		t.Fatalf("claim: %v %v", claimed, err)
	}
	other, err := sqlite.Open(t.Context(), path) // another server on the same file
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	tx, err := other.DB().BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`DELETE FROM charges WHERE id = 'none'`); err != nil { // takes the write lock
		t.Fatal(err)
	}
	_, _, err = s.Charge(t.Context(), ledger.Charge{ID: "ch_1", Account: "acct_1", PaymentID: "pay_1", Amount: 100,
		Currency: "usd", Key: "k", Created: storetest.T0, Fence: rec.Fence})
	if !errors.Is(err, ledger.ErrNotWritten) {
		t.Fatalf("a charge while another connection holds the write lock: %v, want ledger.ErrNotWritten", err)
	}
	tx.Rollback()
	if list, _, err := s.Charges(t.Context(), "acct_1", ledger.Page{Limit: 10}); err != nil || len(list) != 0 {
		t.Fatalf("charges after the busy charge: %v %v, want none", list, err)
	}
}

// And the other way: with every reader's connection held (lists without
// end), a key is still claimed.
func TestSQLiteWritesDoNotQueueBehindReads(t *testing.T) {
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "writes.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for range sqlite.Readers {
		conn, err := s.Reader().Conn(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if _, claimed, err := s.Claim(ctx, idem.Record{Account: "acct_1", Key: "k", Fingerprint: "fp", Created: storetest.T0,
		ExpiresAt: storetest.T0.Add(time.Hour), LockedUntil: storetest.T0.Add(time.Minute)}); err != nil || !claimed {
		t.Fatalf("a claim while every reader is held: %v %v", claimed, err)
	}
}
