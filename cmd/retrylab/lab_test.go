package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/engine/idem/sqlstore/postgres/pgtest"
)

func TestLabGuardJSON(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "lab.db")
	code, out, errs := cli("lab", "guard", "--db", db, "--n", "4", "--runs", "2", "--strategy", "constraint-after-charge", "--card-ms", "10", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct {
		Strategy string `json:"strategy"`
		DB       string `json:"db"`
		N        int    `json:"n"`
		Runs     []struct {
			Rows    *int `json:"rows"`
			Charges *int `json:"charges"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v in %q", err, out)
	}
	if got.Strategy != "constraint-after-charge" || got.DB != db || got.N != 4 || len(got.Runs) != 2 {
		t.Fatalf("got %+v, want the strategy, the db, n 4 and 2 runs", got)
	}
	for i, r := range got.Runs {
		if r.Rows == nil || r.Charges == nil || *r.Rows != 1 || *r.Charges != 4 {
			t.Errorf("run %d: %s, want rows 1 and charges 4", i+1, out)
		}
	}
}

// --isolation serializable on PostgreSQL: the JSON names the level and
// counts the 40001s, the retries and what the retries answered.
func TestLabGuardIsolationJSON(t *testing.T) {
	db := pgtest.Schema(t, pgtest.Start(t))
	code, out, errs := cli("lab", "guard", "--db", db, "--n", "4", "--runs", "1", "--strategy", "check-then-insert", "--card-ms", "20", "--isolation", "serializable", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct {
		Isolation string `json:"isolation"`
		Runs      []struct {
			Rows         int            `json:"rows"`
			Charges      int            `json:"charges"`
			Failures     map[string]int `json:"failures"`
			Retries      int            `json:"retries"`
			RetryAnswers map[string]int `json:"retry_answers"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v in %q", err, out)
	}
	if got.Isolation != "serializable" || len(got.Runs) != 1 {
		t.Fatalf("got %s, want isolation serializable and 1 run", out)
	}
	r := got.Runs[0]
	if n := r.Failures["40001"]; r.Rows != 1 || n < 1 || r.Charges != 1+n || r.Retries != n || r.RetryAnswers["201"] != n {
		t.Errorf("got %s, want 1 row, a charge for the winner and for each 40001, each 40001 retried to a 201", out)
	}
}

func TestLabGuardTable(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "lab.db")
	code, out, errs := cli("lab", "guard", "--db", db, "--n", "3", "--runs", "2", "--strategy", "claim-before-work", "--card-ms", "10")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"claim-before-work: 3 requests with one key at once, card call 10 ms, autocommit", "run  rows  charges  answers           failures  retries\n1    1     1        201 × 1, 409 × 2  none      0\n", "over 2 runs: rows 1 every run, charges 1 every run"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestLabUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"lab"}, "which experiment? (known: guard)"},
		{[]string{"lab", "race"}, `unknown experiment "race" (known: guard)`},
		{[]string{"lab", "guard", "--strategy", "claim-before-work"}, "--db is required (allowed: sqlite:FILE or postgres://"},
		{[]string{"lab", "guard", "--db", "mysql://h/db", "--strategy", "claim-before-work"}, `--db: "mysql://h/db" is not allowed (allowed: sqlite:FILE or postgres://`},
		{[]string{"lab", "guard", "--db", "sqlite:x.db"}, "--strategy is required (allowed: check-then-insert, constraint-after-charge, claim-before-work)"},
		{[]string{"lab", "guard", "--db", "sqlite:x.db", "--strategy", "lock-first"}, `--strategy: "lock-first" is not allowed (allowed: check-then-insert, constraint-after-charge, claim-before-work)`},
		{[]string{"lab", "guard", "--db", "sqlite:x.db", "--strategy", "claim-before-work", "--n", "0"}, "--n: 0 is out of bounds (allowed: 1 to 500)"},
		{[]string{"lab", "guard", "--db", "sqlite:x.db", "--strategy", "check-then-insert", "--isolation", "serializable"}, "--isolation: serializable needs a postgres:// --db; SQLite runs every transaction serializably and takes only autocommit"},
		{[]string{"lab", "guard", "--db", "sqlite:x.db", "--strategy", "check-then-insert", "--isolation", "snapshot"}, `--isolation: "snapshot" is not allowed (allowed: autocommit, read-committed, repeatable-read, serializable)`},
	} {
		code, _, errs := cli(c.args...)
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("retrylab %s: exit %d, %q; want exit 2 and %q", strings.Join(c.args, " "), code, errs, c.want)
		}
	}
}
