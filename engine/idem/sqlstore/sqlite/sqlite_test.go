package sqlite_test

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/retrylab/retrylab/engine/idem/idemhttp"
	"github.com/retrylab/retrylab/engine/idem/sqlstore/sqlite"
	"github.com/retrylab/retrylab/engine/idem/storetest"
)

func TestSQLiteConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) idemhttp.Store {
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
	storetest.RunProperty(t, func(t *testing.T) idemhttp.Store {
		n++
		s, err := sqlite.Open(context.Background(), filepath.Join(dir, "p"+strconv.Itoa(n)+".db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}, 150)
}
