package sqlite_test

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

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
