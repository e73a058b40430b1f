// Package sqlite opens a sqlstore in a SQLite file, with the pure-Go
// driver modernc.org/sqlite: the embedded default of `retrylab api`.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"strconv"
	"time"

	"github.com/retrylab/retrylab/engine/idem/sqlstore"
	"modernc.org/sqlite" // registers "sqlite"
)

// Open opens (creating if need be) the SQLite database at path, creates
// the tables, and returns the store.
//
// It writes through one connection: SQLite lets one writer in at a time
// anyway, and a single connection queues the statements in Go instead of
// making them wait on SQLite's busy lock. It reads what the API lists
// through a pool of Readers more (sqlstore.Options.Reader), which the
// write-ahead log lets read while the writer writes: a long list never
// holds up a payment, nor a payment a list. At each, the accounts take
// turns, a statement each (sqlstore.Options.Turns). busy_timeout comes first, so
// that every statement after it, the switch to a write-ahead log and the
// schema included, waits up to 5 s for another process's lock (a second
// server started at the same moment on a new file) instead of failing with
// SQLITE_BUSY; a statement that still fails so did not run, and its error
// is ledger.ErrNotWritten. The journal is a write-ahead log with
// synchronous=FULL: a commit waits for the disk, so an answer the API has
// sent (a 201, a saved claim) survives a power cut. NORMAL would be faster
// and could lose the last commits, which here means a charge the key
// store forgot.
func Open(ctx context.Context, path string) (*sqlstore.Store, error) {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() +
		"?_pragma=busy_timeout(" + strconv.Itoa(int(busyTimeout/time.Millisecond)) + ")&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)"
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
	// The readers open the file once the writer made it a write-ahead
	// log, and can change nothing in it.
	reader, err := sql.Open("sqlite", dsn+"&_pragma=query_only(1)")
	if err != nil {
		db.Close()
		return nil, err
	}
	reader.SetMaxOpenConns(Readers)
	reader.SetMaxIdleConns(Readers)
	return sqlstore.NewWith(db, sqlstore.SQLite, sqlstore.Options{Reader: reader, NotRun: notRun,
		Turns: true, WriteConns: 1, ReadConns: Readers}), nil
}

// Readers is how many connections read lists at once: 4, twice the cores
// of a small server, so that the reads keep both busy while one waits on
// the disk. A list costs one indexed read of at most 1,001 rows.
const Readers = 4

// notRun reports whether err says that SQLite did not run the statement:
// SQLITE_BUSY or SQLITE_LOCKED, a lock it could not get, in which case
// nothing was written (every statement here is its own transaction).
func notRun(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	code := se.Code() & 0xff // the primary code of an extended one (SQLITE_BUSY_SNAPSHOT is 517)
	return code == sqliteBusy || code == sqliteLocked
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

// busyTimeout is how long a statement waits for another process's
// lock: 5 s (see Open).
var busyTimeout = 5 * time.Second

// SQLite's primary result codes of a lock not got: SQLITE_BUSY, the
// file's (another connection writes), and SQLITE_LOCKED, a table's.
const (
	sqliteBusy   = 5
	sqliteLocked = 6
)
