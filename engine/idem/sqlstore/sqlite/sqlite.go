// Package sqlite opens a sqlstore in a SQLite file, with the pure-Go
// driver modernc.org/sqlite: the embedded default of `retrylab api`.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"time"

	"github.com/retrylab/retrylab/engine/idem/sqlstore"
	"modernc.org/sqlite" // registers "sqlite"
)

// Open opens (creating if need be) the SQLite database at path, creates
// the tables, and returns the store.
//
// It keeps one connection: SQLite lets one writer in at a time anyway, and
// a single connection queues the statements in Go instead of making them
// wait on SQLite's busy lock. busy_timeout comes first, so that every
// statement after it, the switch to a write-ahead log and the schema
// included, waits up to 5 s for another process's lock (a second server
// started at the same moment on a new file) instead of failing with
// SQLITE_BUSY. The journal is a write-ahead log with synchronous=FULL: a
// commit waits for the disk, so an answer the API has sent (a 201, a
// saved claim) survives a power cut. NORMAL would be faster and could
// lose the last commits, which here means a charge the key store forgot.
func Open(ctx context.Context, path string) (*sqlstore.Store, error) {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() +
		"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	s := sqlstore.New(db, sqlstore.SQLite)
	if err := migrate(ctx, s); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// migrate creates the tables, trying again for up to 10 s while another
// process holds the file: SQLite answers SQLITE_BUSY without waiting
// when a write would conflict with a snapshot it already read (the
// schema check inside CREATE TABLE IF NOT EXISTS), which busy_timeout
// does not cover.
func migrate(ctx context.Context, s *sqlstore.Store) error {
	deadline := time.Now().Add(10 * time.Second)
	for wait := time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		err := s.Migrate(ctx)
		var se *sqlite.Error
		if err == nil || !errors.As(err, &se) || se.Code()&0xff != sqliteBusy || time.Now().After(deadline) {
			return err
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// sqliteBusy is SQLITE_BUSY, the primary result code of a locked file.
const sqliteBusy = 5
