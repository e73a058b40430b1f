// Package sqlstore keeps the API's idempotency keys and ledger in a SQL
// database through database/sql: SQLite (and Cloudflare D1, which is
// SQLite) or PostgreSQL. It imports no driver: package sqlite and package
// postgres below open a database with theirs, and cmd/worker hands it D1's.
//
// Every method is one statement, or two where the first may find nothing
// to do and the second reads what is there, never a transaction: D1 has
// none, and one statement is atomic everywhere. Times are stored as
// microseconds since 1970 (UTC), in integers that D1's JavaScript numbers
// hold exactly: 2^53 µs is 285 years past 1970.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/retrylab/retrylab/engine/idem"
	"github.com/retrylab/retrylab/engine/idem/ledger"
)

// Dialect is a SQL flavour.
type Dialect struct {
	name     string
	blob     string // the type of binary columns
	identity string // the charges' sequence column, in order of insertion
	question bool   // placeholders ?1, ?2 (SQLite, D1) instead of $1, $2
	// lockRow ends the sub-select that checks a claim's fence before a
	// charge: PostgreSQL's FOR SHARE waits for a takeover updating the
	// row and reads its new fence. SQLite needs none: one writer at a time.
	lockRow string
}

var (
	// SQLite is SQLite's SQL, and Cloudflare D1's.
	SQLite = Dialect{name: "sqlite", blob: "BLOB", identity: "seq INTEGER PRIMARY KEY", question: true}
	// Postgres is PostgreSQL's SQL.
	Postgres = Dialect{name: "postgres", blob: "BYTEA", identity: "seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY", lockRow: " FOR SHARE"}
)

// String returns the dialect's name.
func (d Dialect) String() string { return d.name }

// fenced fills stillHeld's parameters in q.
func fenced(q, account, key, fence string) string {
	return strings.NewReplacer("{account}", account, "{key}", key, "{fence}", fence).Replace(q)
}

// sql rewrites a query written with $1 placeholders for the dialect.
func (d Dialect) sql(q string) string {
	q = strings.ReplaceAll(q, "{lockRow}", d.lockRow)
	if d.question {
		return strings.ReplaceAll(q, "$", "?")
	}
	return q
}

// Schema returns the statements that create the tables, each safe to run
// again.
func (d Dialect) Schema() []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS idempotency_keys (
  account        TEXT    NOT NULL,
  idem_key       TEXT    NOT NULL,
  fingerprint    TEXT    NOT NULL,
  state          TEXT    NOT NULL, -- 'in-flight' or 'done'
  status         INTEGER NOT NULL, -- the saved answer's status; 0 while in flight
  body           ` + d.blob + `,          -- the saved answer's body; NULL while in flight
  created        BIGINT  NOT NULL, -- µs since 1970, as every time here
  expires_at     BIGINT  NOT NULL,
  locked_until   BIGINT  NOT NULL,
  fence          BIGINT  NOT NULL,
  recovery_point TEXT    NOT NULL,
  PRIMARY KEY (account, idem_key)
)`,
		`CREATE INDEX IF NOT EXISTS idempotency_keys_expires_at ON idempotency_keys (expires_at)`,
		// The in-flight claims, by the end of their lease: what a sweep
		// of the abandoned ones reads, without the done rows.
		`CREATE INDEX IF NOT EXISTS idempotency_keys_in_flight ON idempotency_keys (locked_until) WHERE state = 'in-flight'`,
		`CREATE TABLE IF NOT EXISTS payments (
  id        TEXT    PRIMARY KEY,
  account   TEXT    NOT NULL,
  amount    BIGINT  NOT NULL,
  currency  TEXT    NOT NULL,
  status    TEXT    NOT NULL,
  charge_id TEXT    NOT NULL,
  idem_key  TEXT    NOT NULL,
  created   BIGINT  NOT NULL
)`,
		`CREATE TABLE IF NOT EXISTS charges (
  ` + d.identity + `,
  id         TEXT   NOT NULL UNIQUE,
  account    TEXT   NOT NULL,
  payment_id TEXT   NOT NULL UNIQUE, -- one charge per payment: the card network's idempotency
  amount     BIGINT NOT NULL,
  currency   TEXT   NOT NULL,
  idem_key   TEXT   NOT NULL,
  created    BIGINT NOT NULL
)`,
		`CREATE INDEX IF NOT EXISTS charges_account_created ON charges (account, created)`,
		// What a key made, for the purge to delete with it.
		`CREATE INDEX IF NOT EXISTS charges_key ON charges (account, idem_key)`,
		`CREATE INDEX IF NOT EXISTS payments_key ON payments (account, idem_key)`,
	}
}

// Store is a ledger.Store in a SQL database.
type Store struct {
	db     *sql.DB
	reader *sql.DB // Options.Reader, or db
	notRun func(error) bool
	turns  *turns // Options.Turns: db's
	rturns *turns // and reader's
	d      Dialect
	q      queries
}

// Options are what a store's opener knows of its database besides its
// dialect. The zero Options are fine: one pool for everything.
type Options struct {
	// Reader, if set, is a pool that reads what the API lists (a payment,
	// a page of charges) while db writes: SQLite's one writer connection
	// then never queues a payment behind reads, nor a read behind
	// payments. It must see every write once committed (another pool on
	// the same SQLite file in WAL mode does). The protocol's own reads,
	// between its writes, stay on db.
	Reader *sql.DB
	// NotRun, if set, reports whether a driver's error means that the
	// statement did not run at all (SQLite's SQLITE_BUSY): the store's
	// error is then also ledger.ErrNotWritten.
	NotRun func(error) bool
	// Turns, if set, has the accounts take turns at db and Reader, one
	// statement each (see turns), for pools of a few connections:
	// WriteConns and ReadConns (SQLite's one writer and its readers). One
	// client's many statements then hold up another's by one each, not
	// by all of theirs.
	Turns                 bool
	WriteConns, ReadConns int
}

// New returns a store on db, which speaks d. The tables must exist: see
// Migrate.
func New(db *sql.DB, d Dialect) *Store { return NewWith(db, d, Options{}) }

// NewWith is New with o.
func NewWith(db *sql.DB, d Dialect, o Options) *Store {
	s := &Store{db: db, reader: o.Reader, notRun: o.NotRun, d: d}
	if o.Turns {
		s.turns, s.rturns = &turns{slots: max(o.WriteConns, 1)}, &turns{slots: max(o.ReadConns, 1)}
	}
	if s.reader == nil {
		s.reader = db
	}
	s.q = queries{
		claim:         d.sql(claimSQL),
		get:           d.sql(getSQL),
		complete:      d.sql(completeSQL),
		checkpoint:    d.sql(checkpointSQL),
		release:       d.sql(releaseSQL),
		purge:         d.sql(purgeSQL),
		purgeCharges:  d.sql(strings.ReplaceAll(purgeLedgerSQL, "{table}", "charges")),
		purgePayments: d.sql(strings.ReplaceAll(purgeLedgerSQL, "{table}", "payments")),
		abandoned:     d.sql(abandonedSQL),
		chargeFor:     d.sql(chargeForSQL),
		charge:        d.sql(fenced(chargeSQL, "$2", "$6", "$8")),
		chargeOf:      d.sql(chargeOfSQL),
		save:          d.sql(fenced(saveSQL, "$2", "$7", "$9")),
		paymentID:     d.sql(paymentIDSQL),
		payment:       d.sql(paymentSQL),
		cursor:        d.sql(cursorSQL),
		charges:       d.sql(chargesSQL),
	}
	return s
}

// Migrate creates the tables that do not exist yet.
func (s *Store) Migrate(ctx context.Context) error {
	for _, stmt := range s.d.Schema() {
		if _, err := s.db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("sqlstore: creating the %s schema: %w", s.d.name, err)
		}
	}
	return nil
}

// DB returns the store's database.
func (s *Store) DB() *sql.DB { return s.db }

// turn waits for account's turn at the writer, if the accounts take
// turns, and returns the function that ends it.
func (s *Store) turn(ctx context.Context, account string) (func(), error) {
	return take(ctx, s.turns, account)
}

// readTurn is turn at the reader.
func (s *Store) readTurn(ctx context.Context, account string) (func(), error) {
	return take(ctx, s.rturns, account)
}

// row runs q, a statement of account's, on db at account's turn at t
// (nil: no turns), and scans its one row.
func row[T any](ctx context.Context, t *turns, account string, scan func(scanner) (T, error), db *sql.DB, q string, args ...any) (T, error) {
	end, err := take(ctx, t, account)
	if err != nil {
		var zero T
		return zero, err
	}
	defer end()
	return scan(db.QueryRowContext(ctx, q, args...))
}

// take waits for account's turn at t, if t is not nil, and returns the
// function that ends it.
func take(ctx context.Context, t *turns, account string) (func(), error) {
	if t == nil {
		return func() {}, nil
	}
	if err := t.enter(ctx, account); err != nil {
		return nil, err
	}
	return t.leave, nil
}

// Reader returns the pool the store reads lists with: Options.Reader, or
// DB.
func (s *Store) Reader() *sql.DB { return s.reader }

// Close closes the database, and the reader's pool if it is another.
func (s *Store) Close() error {
	err := s.db.Close()
	if s.reader != s.db {
		err = errors.Join(err, s.reader.Close())
	}
	return err
}

type queries struct {
	claim, get, complete, checkpoint, release, purge  string
	abandoned, chargeFor, purgeCharges, purgePayments string
	charge, chargeOf, save, paymentID, payment        string
	charges, cursor                                   string
}

const recordCols = `account, idem_key, fingerprint, state, status, body, created, expires_at, locked_until, fence, recovery_point`

// claimSQL inserts a claim, or replaces the stored record when it is done
// and expired (a fresh claim: new Created, no recovery point), or takes it
// over when it is in flight, its lease lapsed and the body is the same (a
// takeover, keeping Created and the recovery point); either way with the
// next fence. An in-flight record is never replaced, however old: its
// claimant may have charged. The fence never repeats for a key (see
// idem.FreshFence), even after its row was deleted. It returns the row
// only when the caller holds it.
const claimSQL = `INSERT INTO idempotency_keys (` + recordCols + `)
VALUES ($1, $2, $3, 'in-flight', 0, NULL, $4, $5, $6, $7, '')
ON CONFLICT (account, idem_key) DO UPDATE SET
  fence = CASE WHEN excluded.fence > idempotency_keys.fence THEN excluded.fence ELSE idempotency_keys.fence + 1 END,
  state = 'in-flight',
  status = 0,
  body = NULL,
  fingerprint = excluded.fingerprint,
  locked_until = excluded.locked_until,
  created = CASE WHEN idempotency_keys.state = 'done' THEN excluded.created ELSE idempotency_keys.created END,
  expires_at = CASE WHEN idempotency_keys.state = 'done' THEN excluded.expires_at ELSE idempotency_keys.expires_at END,
  recovery_point = CASE WHEN idempotency_keys.state = 'done' THEN '' ELSE idempotency_keys.recovery_point END
WHERE (idempotency_keys.state = 'done' AND idempotency_keys.expires_at <= excluded.created)
   OR (idempotency_keys.state = 'in-flight' AND idempotency_keys.locked_until <= excluded.created
       AND idempotency_keys.fingerprint = excluded.fingerprint)
RETURNING ` + recordCols

// stillHeld is the condition, in a sub-select, that the claim on the key
// of the row being written, at the fence given as the last parameter,
// still holds it: what every write of the ledger checks in its own
// statement, so that a claimant that lost its key to a takeover can
// neither charge nor save. {account}, {key} and {fence} are replaced by
// the statement's parameters.
const stillHeld = `EXISTS (SELECT 1 FROM idempotency_keys WHERE account = {account} AND idem_key = {key}
  AND state = 'in-flight' AND fence = CAST({fence} AS BIGINT){lockRow})`

const (
	getSQL        = `SELECT ` + recordCols + ` FROM idempotency_keys WHERE account = $1 AND idem_key = $2`
	completeSQL   = `UPDATE idempotency_keys SET state = 'done', status = $4, body = $5, recovery_point = $6, expires_at = $7 WHERE account = $1 AND idem_key = $2 AND state = 'in-flight' AND fence = $3`
	checkpointSQL = `UPDATE idempotency_keys SET recovery_point = $4 WHERE account = $1 AND idem_key = $2 AND state = 'in-flight' AND fence = $3`
	releaseSQL    = `DELETE FROM idempotency_keys WHERE account = $1 AND idem_key = $2 AND state = 'in-flight' AND fence = $3`
	purgeSQL      = `DELETE FROM idempotency_keys WHERE (account, idem_key) IN (` + expiredSQL + `)`
	// expiredSQL is a batch of the done keys expired by $1, the earliest
	// first, at most $2 of them.
	expiredSQL = `SELECT account, idem_key FROM idempotency_keys WHERE state = 'done' AND expires_at <= $1 ORDER BY expires_at LIMIT $2`
	// purgeLedgerSQL deletes from {table} (charges or payments) what a
	// batch of expired keys made, before purgeSQL deletes the keys.
	purgeLedgerSQL = `DELETE FROM {table} WHERE (account, idem_key) IN (` + expiredSQL + `)`
	abandonedSQL   = `SELECT ` + recordCols + ` FROM idempotency_keys WHERE state = 'in-flight' AND locked_until <= $1 ORDER BY locked_until LIMIT $2`

	chargeCols = `id, account, payment_id, amount, currency, idem_key, created`
	// The casts tell PostgreSQL the parameters' types, which a SELECT list
	// does not.
	chargeSQL = `INSERT INTO charges (` + chargeCols + `)
SELECT $1, $2, $3, CAST($4 AS BIGINT), $5, $6, CAST($7 AS BIGINT) WHERE ` + stillHeld + `
ON CONFLICT (payment_id) DO NOTHING RETURNING ` + chargeCols
	chargeOfSQL  = `SELECT ` + chargeCols + ` FROM charges WHERE payment_id = $1`
	chargeForSQL = `SELECT ` + chargeCols + ` FROM charges WHERE payment_id = $1 AND account = $2`
	cursorSQL    = `SELECT created, seq FROM charges WHERE id = $1 AND account = $2`
	// chargesSQL lists newest first from the cursor ($2, $3: created and
	// seq of the charge to start after, or past every charge), one more
	// than asked to tell whether more follow; the index on (account,
	// created) finds the page without reading the rest.
	chargesSQL = `SELECT ` + chargeCols + ` FROM charges WHERE account = $1 AND (created < $2 OR (created = $2 AND seq < $3))
ORDER BY created DESC, seq DESC LIMIT $4`

	paymentCols = `id, account, amount, currency, status, charge_id, idem_key, created`
	saveSQL     = `INSERT INTO payments (` + paymentCols + `)
SELECT $1, $2, CAST($3 AS BIGINT), $4, $5, $6, $7, CAST($8 AS BIGINT) WHERE ` + stillHeld + `
ON CONFLICT (id) DO NOTHING RETURNING ` + paymentCols
	paymentIDSQL = `SELECT ` + paymentCols + ` FROM payments WHERE id = $1`
	paymentSQL   = `SELECT ` + paymentCols + ` FROM payments WHERE id = $1 AND account = $2`
)

func micros(t time.Time) int64      { return t.UnixMicro() }
func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

func scanRecord(row scanner) (idem.Record, error) {
	var r idem.Record
	var state string
	var created, expires, locked int64
	if err := row.Scan(&r.Account, &r.Key, &r.Fingerprint, &state, &r.Status, &r.Body,
		&created, &expires, &locked, &r.Fence, &r.RecoveryPoint); err != nil {
		return idem.Record{}, err
	}
	switch state {
	case "in-flight":
		r.State = idem.InFlight
	case "done":
		r.State = idem.Done
	default:
		return idem.Record{}, errors.New("sqlstore: unknown state " + state)
	}
	r.Created, r.ExpiresAt, r.LockedUntil = fromMicros(created), fromMicros(expires), fromMicros(locked)
	return r, nil
}

// claimRetries bounds Claim's loop: a claim finds no row to return only
// when the key's record was released between its two statements, and
// then the next round claims it.
const claimRetries = 8

// Claim implements idem.Store.
func (s *Store) Claim(ctx context.Context, rec idem.Record) (idem.Record, bool, error) {
	for range claimRetries {
		got, err := row(ctx, s.turns, rec.Account, scanRecord, s.db, s.q.claim, rec.Account, rec.Key, rec.Fingerprint,
			micros(rec.Created), micros(rec.ExpiresAt), micros(rec.LockedUntil), idem.FreshFence(rec.Created))
		if err == nil {
			return got, true, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return idem.Record{}, false, s.wrap("claim", err)
		}
		// Held by someone else: read what they hold.
		got, ok, err := s.Get(ctx, rec.Account, rec.Key)
		if err != nil || ok {
			return got, false, err
		}
	}
	return idem.Record{}, false, errors.New("sqlstore: claim: the key's record kept vanishing")
}

// Get implements idem.Store.
func (s *Store) Get(ctx context.Context, account, key string) (idem.Record, bool, error) {
	r, err := row(ctx, s.turns, account, scanRecord, s.db, s.q.get, account, key)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return idem.Record{}, false, nil
	case err != nil:
		return idem.Record{}, false, s.wrap("get", err)
	}
	return r, true, nil
}

// Complete implements idem.Store.
func (s *Store) Complete(ctx context.Context, rec idem.Record) error {
	body := rec.Body
	if body == nil {
		body = []byte{}
	}
	return s.held("complete", s.q.complete, ctx, rec.Account, rec.Account, rec.Key, rec.Fence, rec.Status, body, rec.RecoveryPoint, micros(rec.ExpiresAt))
}

// Checkpoint implements idem.Store.
func (s *Store) Checkpoint(ctx context.Context, rec idem.Record) error {
	return s.held("checkpoint", s.q.checkpoint, ctx, rec.Account, rec.Account, rec.Key, rec.Fence, rec.RecoveryPoint)
}

// Release implements idem.Store.
func (s *Store) Release(ctx context.Context, rec idem.Record) error {
	return s.held("release", s.q.release, ctx, rec.Account, rec.Account, rec.Key, rec.Fence)
}

// held runs a statement that changes one in-flight record of a given
// fence: no row changed means the claim is no longer held.
func (s *Store) held(op, q string, ctx context.Context, account string, args ...any) error {
	end, err := s.turn(ctx, account)
	if err != nil {
		return s.wrap(op, err)
	}
	res, err := s.db.ExecContext(ctx, q, args...)
	end()
	if err != nil {
		return s.wrap(op, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return s.wrap(op, err)
	}
	if n == 0 {
		return idem.ErrNotHeld
	}
	return nil
}

// Purge deletes the done records that expired by now, with the payments
// and charges their keys made, and returns how many records it deleted.
// Expired records are harmless (a claim replaces them), so this only
// keeps the tables from growing: they hold what the live keys made (and
// the past lives of a key claimed again after it expired, which go with
// it). In-flight records are kept, however old. It deletes purgeBatch
// keys at a time, the earliest expired first, each batch in three
// statements (charges, payments, keys) that each take a turn at the
// writer, so that no statement holds it long, however much expired.
func (s *Store) Purge(ctx context.Context, now time.Time) (int64, error) {
	var total int64
	for {
		var n int64
		for _, q := range []string{s.q.purgeCharges, s.q.purgePayments, s.q.purge} {
			end, err := s.turn(ctx, "") // a turn of its own, as an account's
			if err != nil {
				return total, s.wrap("purge", err)
			}
			res, err := s.db.ExecContext(ctx, q, micros(now), purgeBatch)
			end()
			if err != nil {
				return total, s.wrap("purge", err)
			}
			if n, err = res.RowsAffected(); err != nil {
				return total, s.wrap("purge", err)
			}
		}
		total += n
		if n < purgeBatch {
			return total, nil
		}
	}
}

// purgeBatch is how many expired keys Purge deletes in one statement:
// 500, a few milliseconds of SQLite's time with their ledger rows.
const purgeBatch = 500

// Abandoned implements idem.Store, on the reader's pool.
func (s *Store) Abandoned(ctx context.Context, now time.Time, limit int) ([]idem.Record, error) {
	end, err := s.readTurn(ctx, "")
	if err != nil {
		return nil, s.wrap("abandoned", err)
	}
	defer end()
	rows, err := s.reader.QueryContext(ctx, s.q.abandoned, micros(now), limit)
	if err != nil {
		return nil, s.wrap("abandoned", err)
	}
	defer rows.Close()
	var out []idem.Record
	for rows.Next() {
		r, err := scanRecord(rows)
		if err != nil {
			return nil, s.wrap("abandoned", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap("abandoned", err)
	}
	return out, nil
}

func scanCharge(row scanner) (ledger.Charge, error) {
	var c ledger.Charge
	var created int64
	err := row.Scan(&c.ID, &c.Account, &c.PaymentID, &c.Amount, &c.Currency, &c.Key, &created)
	c.Created = fromMicros(created)
	return c, err
}

// Charge implements ledger.Ledger.
func (s *Store) Charge(ctx context.Context, c ledger.Charge) (ledger.Charge, bool, error) {
	got, err := row(ctx, s.turns, c.Account, scanCharge, s.db, s.q.charge, c.ID, c.Account, c.PaymentID, c.Amount, c.Currency, c.Key, micros(c.Created), c.Fence)
	if err == nil {
		return got, true, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return ledger.Charge{}, false, s.wrap("charge", err)
	}
	// Either the payment was charged already, and that charge stands, or
	// the claim was lost and nothing may be charged.
	got, err = row(ctx, s.turns, c.Account, scanCharge, s.db, s.q.chargeOf, c.PaymentID)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return ledger.Charge{}, false, idem.ErrNotHeld
	case err != nil:
		return ledger.Charge{}, false, s.wrap("charge", err)
	}
	return got, false, nil
}

// ChargeOf implements ledger.Ledger.
func (s *Store) ChargeOf(ctx context.Context, account, paymentID string) (ledger.Charge, bool, error) {
	c, err := row(ctx, s.rturns, account, scanCharge, s.reader, s.q.chargeFor, paymentID, account)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return ledger.Charge{}, false, nil
	case err != nil:
		return ledger.Charge{}, false, s.wrap("charge of", err)
	}
	return c, true, nil
}

func scanPayment(row scanner) (ledger.Payment, error) {
	var p ledger.Payment
	var created int64
	err := row.Scan(&p.ID, &p.Account, &p.Amount, &p.Currency, &p.Status, &p.ChargeID, &p.Key, &created)
	p.Created = fromMicros(created)
	return p, err
}

// SavePayment implements ledger.Ledger.
func (s *Store) SavePayment(ctx context.Context, p ledger.Payment) (ledger.Payment, error) {
	got, err := row(ctx, s.turns, p.Account, scanPayment, s.db, s.q.save, p.ID, p.Account, p.Amount, p.Currency, p.Status, p.ChargeID, p.Key, micros(p.Created), p.Fence)
	if errors.Is(err, sql.ErrNoRows) {
		// Saved already, or the claim was lost.
		got, err = row(ctx, s.turns, p.Account, scanPayment, s.db, s.q.paymentID, p.ID)
		if errors.Is(err, sql.ErrNoRows) {
			return ledger.Payment{}, idem.ErrNotHeld
		}
	}
	if err != nil {
		return ledger.Payment{}, s.wrap("save payment", err)
	}
	return got, nil
}

// Payment implements ledger.Ledger.
func (s *Store) Payment(ctx context.Context, account, id string) (ledger.Payment, bool, error) {
	p, err := row(ctx, s.rturns, account, scanPayment, s.reader, s.q.payment, id, account)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return ledger.Payment{}, false, nil
	case err != nil:
		return ledger.Payment{}, false, s.wrap("payment", err)
	}
	return p, true, nil
}

// Charges implements ledger.Ledger: one indexed read of at most
// page.Limit+1 rows (the one more says whether more follow), however many
// the account has, on the reader's pool.
func (s *Store) Charges(ctx context.Context, account string, page ledger.Page) ([]ledger.Charge, bool, error) {
	end, err := s.readTurn(ctx, account)
	if err != nil {
		return nil, false, s.wrap("charges", err)
	}
	defer end()
	created, seq := int64(math.MaxInt64), int64(math.MaxInt64)
	if page.StartingAfter != "" {
		err := s.reader.QueryRowContext(ctx, s.q.cursor, page.StartingAfter, account).Scan(&created, &seq)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return nil, false, ledger.ErrNoSuchCharge
		case err != nil:
			return nil, false, s.wrap("charges", err)
		}
	}
	rows, err := s.reader.QueryContext(ctx, s.q.charges, account, created, seq, page.Limit+1)
	if err != nil {
		return nil, false, s.wrap("charges", err)
	}
	defer rows.Close()
	var list []ledger.Charge
	for rows.Next() {
		c, err := scanCharge(rows)
		if err != nil {
			return nil, false, s.wrap("charges", err)
		}
		list = append(list, c)
	}
	if err := rows.Err(); err != nil {
		return nil, false, s.wrap("charges", err)
	}
	more := len(list) > page.Limit
	if more {
		list = list[:page.Limit]
	}
	return list, more, nil
}

// wrap names the operation and keeps err in the chain, so callers can still
// ask errors.Is(err, context.DeadlineExceeded) or match a driver's error;
// and ledger.ErrNotWritten too if the statement did not run.
func (s *Store) wrap(op string, err error) error {
	if s.notRun != nil && s.notRun(err) {
		return fmt.Errorf("sqlstore: %s: %w: %w", op, ledger.ErrNotWritten, err)
	}
	return fmt.Errorf("sqlstore: %s: %w", op, err)
}

var _ ledger.Store = (*Store)(nil)
