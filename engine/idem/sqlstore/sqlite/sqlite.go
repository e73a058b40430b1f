// Package sqlite opens a sqlstore in a SQLite file, with the pure-Go
// driver modernc.org/sqlite: the embedded default of `retrylab api`.
package sqlite

import (
	"context"
	"database/sql"
	"net/url"

	"github.com/retrylab/retrylab/engine/idem/sqlstore"
	_ "modernc.org/sqlite" // registers "sqlite"
)

// Open opens (creating if need be) the SQLite database at path, creates
// the tables, and returns the store.
//
// It keeps one connection: SQLite lets one writer in at a time anyway, and
// a single connection queues the statements in Go instead of making them
// wait on SQLite's busy lock. The journal is a write-ahead log with
// synchronous=NORMAL, so a statement commits without waiting for the disk
// (a power cut may lose the last commits, never corrupt the file), and
// busy_timeout lets another process, a second server on the same file,
// wait 5 s for the lock instead of failing at once.
func Open(ctx context.Context, path string) (*sqlstore.Store, error) {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() +
		"?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=busy_timeout(5000)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	s := sqlstore.New(db, sqlstore.SQLite)
	if err := s.Migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}
