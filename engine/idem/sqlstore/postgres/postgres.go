// Package postgres opens a sqlstore in a PostgreSQL database, with pgx:
// `retrylab api --db postgres://...`.
package postgres

import (
	"context"
	"database/sql"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers "pgx"
	"github.com/retrylab/retrylab/engine/idem/sqlstore"
)

// MaxConns is the size of the connection pool: 16, a quarter of
// PostgreSQL's default max_connections (100) less its reserved few, so
// that four servers can share one database, and more than the server's
// cores need to keep a small machine's database busy.
const MaxConns = 16

// Open connects to the PostgreSQL database named by dsn (a postgres://
// URL or key=value string, as libpq takes), creates the tables, and
// returns the store.
func Open(ctx context.Context, dsn string) (*sqlstore.Store, error) {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(MaxConns)
	db.SetMaxIdleConns(MaxConns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		db.Close()
		return nil, err
	}
	s := sqlstore.New(db, sqlstore.Postgres)
	if err := s.Migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}
