package postgres_test

import (
	"context"
	"testing"

	"github.com/retrylab/retrylab/engine/idem/ledger"
	"github.com/retrylab/retrylab/engine/idem/sqlstore/postgres"
	"github.com/retrylab/retrylab/engine/idem/sqlstore/postgres/pgtest"
	"github.com/retrylab/retrylab/engine/idem/storetest"
)

func TestPostgresConformance(t *testing.T) {
	dsn := pgtest.Start(t)
	storetest.Run(t, func(t *testing.T) ledger.Store {
		s, err := postgres.Open(context.Background(), pgtest.Schema(t, dsn))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}
