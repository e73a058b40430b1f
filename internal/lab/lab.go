// Package lab runs the guard simulator's strategies (engine/guard) on a
// real database: N goroutines with one idempotency key, each on its own
// connection, run the statements the simulator's handlers describe, one
// autocommitted statement per step, against real tables. The card call is
// a sleep, and each charge it makes is a row in a charges table, so that
// rows and charges are counted by the database, not by the program.
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
}

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
	return nil
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
}

// Result is a measurement, in the shape `retrylab lab guard --json` prints.
type Result struct {
	Strategy guard.Strategy `json:"strategy"`
	DB       string         `json:"db"` // the kind and place, no password
	N        int            `json:"n"`
	CardMS   int64          `json:"card_ms"`
	Runs     []Run          `json:"runs"`
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
	db.SetMaxOpenConns(c.N + 1)
	db.SetMaxIdleConns(c.N + 1)
	res := Result{Strategy: c.Strategy, DB: Describe(c.DB), N: c.N, CardMS: c.Card.Milliseconds()}
	for i := 0; i < c.Runs; i++ {
		r, err := run(ctx, db, kind, c)
		if err != nil {
			return res, fmt.Errorf("run %d of %d: %w", i+1, c.Runs, err)
		}
		res.Runs = append(res.Runs, r)
	}
	return res, nil
}

// answer is what one request answered.
type answer struct {
	status   int
	replayed bool
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

	// Every request holds its own connection before any starts, so that
	// none of them waits for a connection to be opened once released.
	conns := make([]*sql.Conn, c.N)
	defer func() {
		for _, cn := range conns {
			if cn != nil {
				cn.Close()
			}
		}
	}()
	for i := range conns {
		cn, err := db.Conn(ctx)
		if err == nil {
			err = cn.PingContext(ctx)
		}
		if err != nil {
			return Run{}, fmt.Errorf("opening connection %d of %d: %w", i+1, c.N, err)
		}
		conns[i] = cn
	}

	var pays atomic.Int64 // the card network's payment ids
	h := handler{kind: kind, card: c.Card, q: q, pays: &pays}
	start := make(chan struct{})
	answers := make([]answer, c.N)
	errs := make([]error, c.N)
	var wg sync.WaitGroup
	for i, cn := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			answers[i], errs[i] = h.serve(ctx, cn, c.Strategy)
		}()
	}
	close(start)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return Run{}, err
	}

	r := Run{Statuses: map[int]int{}}
	for _, a := range answers {
		r.Statuses[a.status]++
		if a.replayed {
			r.Replayed++
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

// handler runs one request's steps, each statement on its own
// connection, autocommitted, as the simulator's handlers do.
type handler struct {
	kind Kind
	card time.Duration
	q    func(string) string
	pays *atomic.Int64
}

func (h handler) serve(ctx context.Context, cn *sql.Conn, s guard.Strategy) (answer, error) {
	switch s {
	case guard.CheckThenInsert:
		// SELECT the key; if absent, charge, then INSERT the payment row
		// (no unique index).
		if a, found, err := h.find(ctx, cn); err != nil || found {
			return a, err
		}
		pay, err := h.charge(ctx, cn)
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
		pay, err := h.charge(ctx, cn)
		if err != nil {
			return answer{}, err
		}
		if _, err := cn.ExecContext(ctx, h.q(insertSQL), guard.Key, guard.Amount, 201, pay); err != nil {
			if uniqueViolation(err) {
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
		pay, err := h.charge(ctx, cn)
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
func (h handler) find(ctx context.Context, cn *sql.Conn) (answer, bool, error) {
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
// one row in the charges table.
func (h handler) charge(ctx context.Context, cn *sql.Conn) (string, error) {
	select {
	case <-time.After(h.card):
	case <-ctx.Done():
		return "", ctx.Err()
	}
	pay := "pay_" + strconv.FormatInt(h.pays.Add(1), 10)
	if _, err := cn.ExecContext(ctx, h.q(chargeSQL), pay, guard.Key, guard.Amount); err != nil {
		return "", fmt.Errorf("recording charge %s: %w", pay, err)
	}
	return pay, nil
}

// sqliteConstraintUnique is SQLite's extended result code for a unique
// index refusing a row: SQLITE_CONSTRAINT (19) | 8<<8 = 2067.
const sqliteConstraintUnique = 2067

// uniqueViolation reports whether err is the unique index refusing a row:
// PostgreSQL's SQLSTATE 23505, SQLite's SQLITE_CONSTRAINT_UNIQUE.
func uniqueViolation(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code == "23505"
	}
	var lite *sqlite.Error
	if errors.As(err, &lite) {
		return lite.Code() == sqliteConstraintUnique
	}
	return false
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
