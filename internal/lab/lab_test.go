package lab_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/retrylab/retrylab/engine/guard"
	"github.com/retrylab/retrylab/engine/idem/sqlstore/postgres/pgtest"
	"github.com/retrylab/retrylab/internal/lab"
)

// Small bursts, a short card call: the figures asserted here do not depend
// on timing. Claim-before-work's only decision is one atomic INSERT, so one
// request charges whatever the interleaving; constraint-after-charge charges
// before it inserts, so every request charges and the unique index keeps
// one row; check-then-insert inserts once per charge.
const (
	testN    = 5
	testRuns = 3
	testCard = 20 * time.Millisecond
)

func TestGuardSQLite(t *testing.T) {
	t.Parallel()
	checkStrategies(t, func(t *testing.T) string {
		return "sqlite:" + filepath.Join(t.TempDir(), "lab.db")
	})
}

func TestGuardPostgres(t *testing.T) {
	t.Parallel()
	dsn := pgtest.Start(t)
	checkStrategies(t, func(t *testing.T) string { return pgtest.Schema(t, dsn) })
}

func checkStrategies(t *testing.T, db func(t *testing.T) string) {
	measure := func(t *testing.T, s guard.Strategy) lab.Result {
		t.Helper()
		res, err := lab.Guard(context.Background(), lab.Config{DB: db(t), N: testN, Runs: testRuns, Strategy: s, Card: testCard})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Runs) != testRuns {
			t.Fatalf("%d runs, want %d", len(res.Runs), testRuns)
		}
		return res
	}
	t.Run("claim-before-work", func(t *testing.T) {
		for i, r := range measure(t, guard.ClaimBeforeWork).Runs {
			if r.Rows != 1 || r.Charges != 1 {
				t.Errorf("run %d: %d rows, %d charges, want 1 and 1", i+1, r.Rows, r.Charges)
			}
			// One 201 that is not a replay; the others a 409 or a replay.
			if got := r.Statuses[201] - r.Replayed; got != 1 || r.Statuses[201]+r.Statuses[409] != testN {
				t.Errorf("run %d: answers %s, want one new 201, the rest 409 or replayed", i+1, r.Answers())
			}
		}
	})
	t.Run("constraint-after-charge", func(t *testing.T) {
		for i, r := range measure(t, guard.ConstraintAfterCharge).Runs {
			if r.Rows != 1 || r.Charges != testN {
				t.Errorf("run %d: %d rows, %d charges, want 1 and %d", i+1, r.Rows, r.Charges, testN)
			}
			if r.Statuses[201] != 1 || r.Statuses[409] != testN-1 {
				t.Errorf("run %d: answers %s, want 201 × 1, 409 × %d", i+1, r.Answers(), testN-1)
			}
		}
	})
	t.Run("check-then-insert", func(t *testing.T) {
		for i, r := range measure(t, guard.CheckThenInsert).Runs {
			if r.Rows != r.Charges || r.Rows < 1 || r.Rows > testN {
				t.Errorf("run %d: %d rows, %d charges, want as many rows as charges, 1 to %d", i+1, r.Rows, r.Charges, testN)
			}
			if r.Statuses[201] != testN || r.Statuses[201]-r.Replayed != r.Charges {
				t.Errorf("run %d: answers %s with %d charges, want %d 201s, a new one per charge", i+1, r.Answers(), r.Charges, testN)
			}
		}
	})
}

// Each request as one transaction on PostgreSQL, the card call inside it.
// Under serializable, check-then-insert keeps one row: of the requests
// whose SELECTs overlapped, all but the first to commit fail with 40001,
// each after its charge, which no rollback takes back; run again, each
// finds the row and replays its answer. Under repeatable read, nobody's
// snapshot holds a row, so every request inserts one.
func TestGuardPostgresIsolation(t *testing.T) {
	t.Parallel()
	dsn := pgtest.Start(t)
	measure := func(t *testing.T, s guard.Strategy, iso lab.Isolation) lab.Result {
		t.Helper()
		res, err := lab.Guard(context.Background(), lab.Config{DB: pgtest.Schema(t, dsn), N: testN, Runs: testRuns, Strategy: s, Card: testCard, Isolation: iso})
		if err != nil {
			t.Fatal(err)
		}
		if res.Isolation != iso || len(res.Runs) != testRuns {
			t.Fatalf("isolation %q, %d runs; want %q and %d", res.Isolation, len(res.Runs), iso, testRuns)
		}
		return res
	}
	t.Run("serializable check-then-insert", func(t *testing.T) {
		for i, r := range measure(t, guard.CheckThenInsert, lab.Serializable).Runs {
			aborted := r.Failures["40001"]
			if r.Rows != 1 || aborted < 1 || r.Charges != 1+aborted {
				t.Errorf("run %d: %d rows, %d charges, failures %s; want 1 row, at least one 40001 and a charge for the winner and each 40001", i+1, r.Rows, r.Charges, r.FailureText())
			}
			if r.Retries != aborted || r.RetryAnswers[201] != aborted {
				t.Errorf("run %d: %d retries answering %v after %d 40001s; want each aborted transaction run again, answering 201", i+1, r.Retries, r.RetryAnswers, aborted)
			}
			if r.Statuses[201] != testN || r.Replayed != testN-1 {
				t.Errorf("run %d: answers %s, want 201 × %d, all but one replayed", i+1, r.Answers(), testN)
			}
		}
	})
	t.Run("repeatable-read check-then-insert", func(t *testing.T) {
		for i, r := range measure(t, guard.CheckThenInsert, lab.RepeatableRead).Runs {
			if r.Rows != r.Charges || r.Rows < 2 || len(r.Failures) != 0 || r.Retries != 0 {
				t.Errorf("run %d: %d rows, %d charges, failures %s, %d retries; want a row per charge, more than one, nothing refused", i+1, r.Rows, r.Charges, r.FailureText(), r.Retries)
			}
		}
	})
	t.Run("read-committed constraint-after-charge", func(t *testing.T) {
		for i, r := range measure(t, guard.ConstraintAfterCharge, lab.ReadCommitted).Runs {
			if r.Rows != 1 || r.Charges != testN || r.Failures["23505"] != testN-1 || r.Statuses[409] != testN-1 {
				t.Errorf("run %d: %d rows, %d charges, failures %s, answers %s; want 1, %d, 23505 × %d and as many 409s", i+1, r.Rows, r.Charges, r.FailureText(), r.Answers(), testN, testN-1)
			}
		}
	})
}

func TestConfigErrors(t *testing.T) {
	ok := lab.Config{DB: "sqlite:x.db", N: 20, Runs: 6, Strategy: guard.ClaimBeforeWork, Card: 50 * time.Millisecond}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid config: %v", err)
	}
	for _, c := range []struct {
		mut  func(*lab.Config)
		want string
	}{
		{func(c *lab.Config) { c.DB = "mysql://x" }, `db: "mysql://x" is not allowed (allowed: sqlite:FILE or postgres://`},
		{func(c *lab.Config) { c.DB = "sqlite:" }, `db: "sqlite:" names no file`},
		{func(c *lab.Config) { c.DB = "x.db" }, `db: "x.db" is not allowed`},
		{func(c *lab.Config) { c.Strategy = "lock" }, `strategy: "lock" is not allowed (allowed: check-then-insert, constraint-after-charge, claim-before-work)`},
		{func(c *lab.Config) { c.N = 0 }, "n: 0 is out of bounds (allowed: 1 to 500)"},
		{func(c *lab.Config) { c.Runs = 101 }, "runs: 101 is out of bounds (allowed: 1 to 100)"},
		{func(c *lab.Config) { c.Card = -time.Millisecond }, "card-ms: -1 is out of bounds (allowed: 0 to 10000)"},
		{func(c *lab.Config) { c.Isolation = "snapshot" }, `isolation: "snapshot" is not allowed (allowed: autocommit, read-committed, repeatable-read, serializable)`},
		{func(c *lab.Config) { c.Isolation = lab.Serializable }, "isolation: serializable needs a postgres:// --db; SQLite runs every transaction serializably"},
	} {
		c2 := ok
		c.mut(&c2)
		err := c2.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an error containing %q", err, c.want)
		}
	}
}

func TestDescribeHidesPassword(t *testing.T) {
	if got := lab.Describe("postgres://u:secret@h:5432/db"); strings.Contains(got, "secret") {
		t.Errorf("Describe kept the password: %s", got)
	}
	if got := lab.Describe("sqlite:/tmp/x.db"); got != "sqlite:/tmp/x.db" {
		t.Errorf("Describe(sqlite:/tmp/x.db) = %s", got)
	}
}
