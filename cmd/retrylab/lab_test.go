package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
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

func TestLabGuardTable(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "lab.db")
	code, out, errs := cli("lab", "guard", "--db", db, "--n", "3", "--runs", "2", "--strategy", "claim-before-work", "--card-ms", "10")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"claim-before-work: 3 requests with one key at once, card call 10 ms", "run  rows  charges  answers\n1    1     1", "over 2 runs: rows 1 every run, charges 1 every run"} {
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
	} {
		code, _, errs := cli(c.args...)
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("retrylab %s: exit %d, %q; want exit 2 and %q", strings.Join(c.args, " "), code, errs, c.want)
		}
	}
}
