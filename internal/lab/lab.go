// Package lab runs the guard simulator's strategies (engine/guard) on a
// real database: N goroutines with one idempotency key, each on its own
// connection, run the statements the simulator's handlers describe against
// real tables, either one autocommitted statement per step or, with an
// isolation level, the whole handler as one transaction at that level. The
// card call is a sleep, and each charge it makes is a row in a charges
// table, so that rows and charges are counted by the database, not by the
// program.
//
// The engine stays pure; this is the measurement it is checked against.
package lab

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // registers "pgx"
	"modernc.org/sqlite"

	"github.com/retrylab/retrylab/engine/guard"
)

// Config is one measurement: Runs runs of N requests at once.
type Config struct {
	DB       string         // sqlite:FILE or postgres://...
	N        int            // requests with one key, at once
	Runs     int            // runs, each on fresh tables
	Strategy guard.Strategy // as in the simulator
	Card     time.Duration  // how long the card network takes per charge
	// Isolation is Autocommit (each statement its own transaction, at the
	// server's default level) or the level of the one transaction each
	// request's handler runs in; only PostgreSQL takes a level.
	Isolation Isolation
}

// Isolation is how a request's statements are grouped into transactions.
type Isolation string

const (
	Autocommit     Isolation = "autocommit"
	ReadCommitted  Isolation = "read-committed"
	RepeatableRead Isolation = "repeatable-read"
	Serializable   Isolation = "serializable"
)

// Isolations lists the allowed values, the default first.
var Isolations = []Isolation{Autocommit, ReadCommitted, RepeatableRead, Serializable}

// IsolationNames lists the isolations, comma-separated.
func IsolationNames() string {
	var names []string
	for _, i := range Isolations {
		names = append(names, string(i))
	}
	return strings.Join(names, ", ")
}

func (i Isolation) level() sql.IsolationLevel {
	switch i {
	case RepeatableRead:
		return sql.LevelRepeatableRead
	case Serializable:
		return sql.LevelSerializable
	}
	return sql.LevelReadCommitted
}

// MaxAttempts bounds how often one request's transaction runs: the first
// time and, after each serialization failure (40001) or deadlock (40P01),
// again from its first statement.
const MaxAttempts = 10

// Bounds of a Config.
const (
	MaxN    = 500 // goroutines, each holding a connection: PostgreSQL's default max_connections is 100, so above ~95 it needs a server configured for more
	MaxRuns = 100
	MaxCard = 10 * time.Second
)

// DBAllowed says what --db may be.
const DBAllowed = "sqlite:FILE or postgres://USER@HOST:PORT/DATABASE"

// Validate reports the first field out of bounds, by its flag name.
func (c Config) Validate() error {
	if _, _, err := ParseDB(c.DB); err != nil {
		return err
	}
	if c.N < 1 || c.N > MaxN {
		return fmt.Errorf("n: %d is out of bounds (allowed: 1 to %d)", c.N, MaxN)
	}
	if c.Runs < 1 || c.Runs > MaxRuns {
		return fmt.Errorf("runs: %d is out of bounds (allowed: 1 to %d)", c.Runs, MaxRuns)
	}
	if !validStrategy(c.Strategy) {
		return fmt.Errorf("strategy: %q is not allowed (allowed: %s)", c.Strategy, StrategyNames())
	}
	if c.Card < 0 || c.Card > MaxCard {
		return fmt.Errorf("card-ms: %d is out of bounds (allowed: 0 to %d)", c.Card.Milliseconds(), MaxCard.Milliseconds())
	}
	if !validIsolation(c.Isolation) {
		return fmt.Errorf("isolation: %q is not allowed (allowed: %s)", c.Isolation, IsolationNames())
	}
	// SQLite has no isolation levels to choose from: its transactions are
	// serializable, one writer at a time, so a level would name nothing
	// that the run could change.
	if kind, _, _ := ParseDB(c.DB); kind == SQLite && c.isolation() != Autocommit {
		return fmt.Errorf("isolation: %s needs a postgres:// --db; SQLite runs every transaction serializably and takes only %s", c.Isolation, Autocommit)
	}
	return nil
}

func validIsolation(i Isolation) bool {
	if i == "" {
		return true
	}
	for _, k := range Isolations {
		if k == i {
			return true
		}
	}
	return false
}

// isolation is c.Isolation, Autocommit when unset.
func (c Config) isolation() Isolation {
	if c.Isolation == "" {
		return Autocommit
	}
	return c.Isolation
}

func validStrategy(s guard.Strategy) bool {
	for _, k := range guard.Strategies {
		if k == s {
			return true
		}
	}
	return false
}

// StrategyNames lists the strategies, comma-separated, in the article's
// order.
func StrategyNames() string {
	var names []string
	for _, s := range guard.Strategies {
		names = append(names, string(s))
	}
	return strings.Join(names, ", ")
}

// Kind is a database's flavour.
type Kind string

const (
	SQLite   Kind = "sqlite"
	Postgres Kind = "postgres"
)

// ParseDB reads a --db value: the kind and what to hand the driver.
func ParseDB(db string) (Kind, string, error) {
	switch {
	case strings.HasPrefix(db, "sqlite:"):
		path := strings.TrimPrefix(db, "sqlite:")
		if path == "" {
			return "", "", fmt.Errorf("db: %q names no file (allowed: %s)", db, DBAllowed)
		}
		// Each connection waits up to 5 s for SQLite's write lock instead
		// of failing at once: twenty writers queue, they do not error.
		return SQLite, "file:" + (&url.URL{Path: path}).EscapedPath() +
			"?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=busy_timeout(5000)", nil
	case strings.HasPrefix(db, "postgres://"), strings.HasPrefix(db, "postgresql://"):
		if _, err := url.Parse(db); err != nil {
			return "", "", fmt.Errorf("db: not a URL: %v (allowed: %s)", err, DBAllowed)
		}
		return Postgres, db, nil
	}
	return "", "", fmt.Errorf("db: %q is not allowed (allowed: %s)", db, DBAllowed)
}

// Describe is a --db value fit to print: a PostgreSQL URL without its
// password.
func Describe(db string) string {
	if u, err := url.Parse(db); err == nil && u.Scheme != "sqlite" {
		return u.Redacted()
	}
	return db
}

// Run is what one run came to, counted in the tables once every request
// has answered.
type Run struct {
	Rows     int         `json:"rows"`     // rows for the key
	Charges  int         `json:"charges"`  // rows in the charges table
	Statuses map[int]int `json:"statuses"` // the answers, counted per status code
	Replayed int         `json:"replayed"` // answers that were a saved answer sent again
	// Failures counts the statements the database refused, by SQLSTATE
	// (SQLite's unique violation as SQLITE_CONSTRAINT_UNIQUE), retried
	// transactions' failures included.
	Failures map[string]int `json:"failures"`
	// Retries counts transactions run again after a 40001 or 40P01;
	// RetryAnswers counts what the last run of each retried request
	// answered, per status.
	Retries      int         `json:"retries"`
	RetryAnswers map[int]int `json:"retry_answers"`
}

// Result is a measurement, in the shape `retrylab lab guard --json` prints.
type Result struct {
	Strategy  guard.Strategy `json:"strategy"`
	Isolation Isolation      `json:"isolation"`
	DB        string         `json:"db"` // the kind and place, no password
	N         int            `json:"n"`
	CardMS    int64          `json:"card_ms"`
	Runs      []Run          `json:"runs"`
}

// The tables, made afresh for each run. The rows table is the simulator's
// database: one row per payment (check-then-insert, constraint-after-
// charge) or per claimed key (claim-before-work), with a unique index on
// the key for the two strategies that have one. The last run's tables are
// left in the database to look at.
const (
	rowsTable    = "lab_guard_rows"
	chargesTable = "lab_guard_charges"
)

func schema(s guard.Strategy) []string {
	q := []string{
		`DROP TABLE IF EXISTS ` + rowsTable,
		`DROP TABLE IF EXISTS ` + chargesTable,
		`CREATE TABLE ` + rowsTable + ` (
  idem_key TEXT    NOT NULL,
  amount   BIGINT  NOT NULL,
  status   INTEGER NOT NULL DEFAULT 0,   -- the saved answer; 0 while the first request works
  payment  TEXT    NOT NULL DEFAULT ''
)`,
		`CREATE TABLE ` + chargesTable + ` (
  payment  TEXT   NOT NULL PRIMARY KEY,
  idem_key TEXT   NOT NULL,
  amount   BIGINT NOT NULL
)`,
	}
	if s != guard.CheckThenInsert {
		q = append(q, `CREATE UNIQUE INDEX `+rowsTable+`_key ON `+rowsTable+` (idem_key)`)
	}
	return q
}

// The statements, one per step of the simulator's handlers, written with
// $1 placeholders (rewritten to ?1 for SQLite).
const (
	selectSQL = `SELECT amount, status, payment FROM ` + rowsTable + ` WHERE idem_key = $1 LIMIT 1`
	insertSQL = `INSERT INTO ` + rowsTable + ` (idem_key, amount, status, payment) VALUES ($1, $2, $3, $4)`
	claimSQL  = `INSERT INTO ` + rowsTable + ` (idem_key, amount) VALUES ($1, $2) ON CONFLICT (idem_key) DO NOTHING RETURNING idem_key`
	saveSQL   = `UPDATE ` + rowsTable + ` SET status = $2, payment = $3 WHERE idem_key = $1`
	chargeSQL = `INSERT INTO ` + chargesTable + ` (payment, idem_key, amount) VALUES ($1, $2, $3)`
	rowsSQL   = `SELECT COUNT(*) FROM ` + rowsTable + ` WHERE idem_key = $1`
	countSQL  = `SELECT COUNT(*) FROM ` + chargesTable
)

// Guard measures c: c.Runs runs, each on fresh tables.
func Guard(ctx context.Context, c Config) (Result, error) {
	if err := c.Validate(); err != nil {
		return Result{}, err
	}
	kind, dsn, _ := ParseDB(c.DB)
	driver := "pgx"
	if kind == SQLite {
		driver = "sqlite"
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return Result{}, fmt.Errorf("opening %s: %w", Describe(c.DB), err)
	}
	defer db.Close()
	// A request in a transaction records its charge on a second
	// connection of its own: the card network's ledger is outside the
	// request's transaction.
	conns := c.N + 1
	if c.isolation() != Autocommit {
		conns = 2*c.N + 1
	}
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	res := Result{Strategy: c.Strategy, Isolation: c.isolation(), DB: Describe(c.DB), N: c.N, CardMS: c.Card.Milliseconds()}
	for i := 0; i < c.Runs; i++ {
		r, err := run(ctx, db, kind, c)
		if err != nil {
			return res, fmt.Errorf("run %d of %d: %w", i+1, c.Runs, err)
		}
		res.Runs = append(res.Runs, r)
	}
	return res, nil
}

// answer is what one request answered, and what the database refused on
// the way.
type answer struct {
	status   int
	replayed bool
	failures map[string]int // by SQLSTATE
	retries  int            // transactions run again
}

// run is one burst: fresh tables, c.N connections opened first, then
// released at once.
func run(ctx context.Context, db *sql.DB, kind Kind, c Config) (Run, error) {
	q := func(s string) string {
		if kind == SQLite {
			return strings.ReplaceAll(s, "$", "?")
		}
		return s
	}
	for _, s := range schema(c.Strategy) {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return Run{}, fmt.Errorf("creating the tables: %w", err)
		}
	}

	// Every request holds its own connection (and, in a transaction, its
	// ledger's) before any starts, so that none of them waits for a
	// connection to be opened once released.
	open := c.N
	if c.isolation() != Autocommit {
		open = 2 * c.N
	}
	all := make([]*sql.Conn, open)
	defer func() {
		for _, cn := range all {
			if cn != nil {
				cn.Close()
			}
		}
	}()
	for i := range all {
		cn, err := db.Conn(ctx)
		if err == nil {
			err = cn.PingContext(ctx)
		}
		if err != nil {
			return Run{}, fmt.Errorf("opening connection %d of %d: %w", i+1, open, err)
		}
		all[i] = cn
	}
	conns, ledgers := all[:c.N], all[:c.N]
	if c.isolation() != Autocommit {
		ledgers = all[c.N:]
	}

	var pays atomic.Int64 // the card network's payment ids
	h := handler{kind: kind, card: c.Card, q: q, pays: &pays, isolation: c.isolation()}
	start := make(chan struct{})
	answers := make([]answer, c.N)
	errs := make([]error, c.N)
	var wg sync.WaitGroup
	for i, cn := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			answers[i], errs[i] = h.request(ctx, cn, ledgers[i], c.Strategy)
		}()
	}
	close(start)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return Run{}, err
	}

	r := Run{Statuses: map[int]int{}, Failures: map[string]int{}, RetryAnswers: map[int]int{}}
	for _, a := range answers {
		r.Statuses[a.status]++
		if a.replayed {
			r.Replayed++
		}
		for code, k := range a.failures {
			r.Failures[code] += k
		}
		if a.retries > 0 {
			r.Retries += a.retries
			r.RetryAnswers[a.status]++
		}
	}
	if err := db.QueryRowContext(ctx, q(rowsSQL), guard.Key).Scan(&r.Rows); err != nil {
		return Run{}, fmt.Errorf("counting rows: %w", err)
	}
	if err := db.QueryRowContext(ctx, q(countSQL)).Scan(&r.Charges); err != nil {
		return Run{}, fmt.Errorf("counting charges: %w", err)
	}
	return r, nil
}

// handler runs one request's steps on the request's connection, each
// statement autocommitted as the simulator's handlers do, or all of them
// in one transaction at h.isolation.
type handler struct {
	kind      Kind
	card      time.Duration
	q         func(string) string
	pays      *atomic.Int64
	isolation Isolation
}

// stmts is what a request's statements run on: its connection, or the
// transaction open on it.
type stmts interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// request answers one request. In a transaction: BEGIN at the level, the
// strategy's statements and the card call, COMMIT; a serialization
// failure or a deadlock, at any statement or at COMMIT, rolls back and
// runs the whole transaction again, its reads included, up to MaxAttempts
// times. The charge is recorded on ledger, outside the transaction, so a
// rollback does not take it back.
func (h handler) request(ctx context.Context, cn, ledger *sql.Conn, s guard.Strategy) (answer, error) {
	failures := map[string]int{}
	if h.isolation == Autocommit {
		a, err := h.serve(ctx, cn, ledger, s, failures)
		a.failures = failures
		return a, err
	}
	for attempt := 1; ; attempt++ {
		a, err := h.attempt(ctx, cn, ledger, s, failures)
		code := sqlstate(err)
		if code != "40001" && code != "40P01" {
			a.failures, a.retries = failures, attempt-1
			return a, err
		}
		failures[code]++
		if attempt == MaxAttempts {
			return answer{}, fmt.Errorf("%d attempts, each refused, the last: %w", attempt, err)
		}
	}
}

// attempt is one run of the request's transaction.
func (h handler) attempt(ctx context.Context, cn, ledger *sql.Conn, s guard.Strategy, failures map[string]int) (answer, error) {
	tx, err := cn.BeginTx(ctx, &sql.TxOptions{Isolation: h.isolation.level()})
	if err != nil {
		return answer{}, fmt.Errorf("BEGIN: %w", err)
	}
	a, err := h.serve(ctx, tx, ledger, s, failures)
	if err != nil || a.status == 409 && s == guard.ConstraintAfterCharge {
		// A refused statement has aborted the transaction: roll it back.
		tx.Rollback()
		return a, err
	}
	if err := tx.Commit(); err != nil {
		return answer{}, fmt.Errorf("COMMIT: %w", err)
	}
	return a, nil
}

func (h handler) serve(ctx context.Context, cn stmts, ledger *sql.Conn, s guard.Strategy, failures map[string]int) (answer, error) {
	switch s {
	case guard.CheckThenInsert:
		// SELECT the key; if absent, charge, then INSERT the payment row
		// (no unique index).
		if a, found, err := h.find(ctx, cn); err != nil || found {
			return a, err
		}
		pay, err := h.charge(ctx, ledger)
		if err != nil {
			return answer{}, err
		}
		if _, err := cn.ExecContext(ctx, h.q(insertSQL), guard.Key, guard.Amount, 201, pay); err != nil {
			return answer{}, fmt.Errorf("INSERT the payment row: %w", err)
		}
		return answer{status: 201}, nil

	case guard.ConstraintAfterCharge:
		// Charge, then INSERT the payment row under the unique index: a
		// unique violation is a 409, after the charge.
		pay, err := h.charge(ctx, ledger)
		if err != nil {
			return answer{}, err
		}
		if _, err := cn.ExecContext(ctx, h.q(insertSQL), guard.Key, guard.Amount, 201, pay); err != nil {
			if code := uniqueViolation(err); code != "" {
				failures[code]++
				return answer{status: 409}, nil
			}
			return answer{}, fmt.Errorf("INSERT the payment row: %w", err)
		}
		return answer{status: 201}, nil

	default: // guard.ClaimBeforeWork
		// INSERT the key ... ON CONFLICT DO NOTHING RETURNING; the winner
		// charges and saves its answer on the row, the others answer from
		// the row.
		var key string
		err := cn.QueryRowContext(ctx, h.q(claimSQL), guard.Key, guard.Amount).Scan(&key)
		if errors.Is(err, sql.ErrNoRows) {
			a, _, err := h.find(ctx, cn)
			return a, err
		}
		if err != nil {
			return answer{}, fmt.Errorf("INSERT the key ON CONFLICT DO NOTHING: %w", err)
		}
		pay, err := h.charge(ctx, ledger)
		if err != nil {
			return answer{}, err
		}
		if _, err := cn.ExecContext(ctx, h.q(saveSQL), guard.Key, 201, pay); err != nil {
			return answer{}, fmt.Errorf("UPDATE the key with the answer: %w", err)
		}
		return answer{status: 201}, nil
	}
}

// find SELECTs the key's row and, when there is one, answers from it as
// the simulator does: 422 for another amount, 409 while no answer is
// saved, else the saved answer, replayed.
func (h handler) find(ctx context.Context, cn stmts) (answer, bool, error) {
	var amount int64
	var status int
	var payment string
	err := cn.QueryRowContext(ctx, h.q(selectSQL), guard.Key).Scan(&amount, &status, &payment)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return answer{}, false, nil
	case err != nil:
		return answer{}, false, fmt.Errorf("SELECT the key: %w", err)
	case amount != guard.Amount:
		return answer{status: 422}, true, nil
	case status == 0:
		return answer{status: 409}, true, nil
	}
	return answer{status: status, replayed: true}, true, nil
}

// charge is the card network: it takes h.card, then the charge is made,
// one row in the charges table, autocommitted on ledger.
func (h handler) charge(ctx context.Context, ledger *sql.Conn) (string, error) {
	select {
	case <-time.After(h.card):
	case <-ctx.Done():
		return "", ctx.Err()
	}
	pay := "pay_" + strconv.FormatInt(h.pays.Add(1), 10)
	if _, err := ledger.ExecContext(ctx, h.q(chargeSQL), pay, guard.Key, guard.Amount); err != nil {
		return "", fmt.Errorf("recording charge %s: %w", pay, err)
	}
	return pay, nil
}

// sqliteConstraintUnique is SQLite's extended result code for a unique
// index refusing a row: SQLITE_CONSTRAINT (19) | 8<<8 = 2067.
const sqliteConstraintUnique = 2067

// uniqueViolation names err when it is the unique index refusing a row:
// PostgreSQL's SQLSTATE 23505, SQLite's SQLITE_CONSTRAINT_UNIQUE; else "".
func uniqueViolation(err error) string {
	if sqlstate(err) == "23505" {
		return "23505"
	}
	var lite *sqlite.Error
	if errors.As(err, &lite) && lite.Code() == sqliteConstraintUnique {
		return "SQLITE_CONSTRAINT_UNIQUE"
	}
	return ""
}

// sqlstate is the SQLSTATE of a PostgreSQL error in err's chain, else "".
func sqlstate(err error) string {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code
	}
	return ""
}

// FailureText renders the failures as "40001 × 19", by code.
func (r Run) FailureText() string {
	var codes []string
	for code := range r.Failures {
		codes = append(codes, code)
	}
	sort.Strings(codes)
	var parts []string
	for _, code := range codes {
		parts = append(parts, code+" × "+strconv.Itoa(r.Failures[code]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// Answers renders the answers counted per status as "201 × 1, 409 × 19",
// lowest status first, with replays named.
func (r Run) Answers() string {
	var codes []int
	for code := range r.Statuses {
		codes = append(codes, code)
	}
	sort.Ints(codes)
	var parts []string
	for _, code := range codes {
		parts = append(parts, strconv.Itoa(code)+" × "+strconv.Itoa(r.Statuses[code]))
	}
	s := strings.Join(parts, ", ")
	if r.Replayed > 0 {
		s += " (" + strconv.Itoa(r.Replayed) + " replayed)"
	}
	return s
}

// Span is the least and the most of f over the runs.
func (res Result) Span(f func(Run) int) (lo, hi int) {
	for i, r := range res.Runs {
		v := f(r)
		if i == 0 || v < lo {
			lo = v
		}
		if i == 0 || v > hi {
			hi = v
		}
	}
	return lo, hi
}
