package sqlstore_test

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/engine/idem/sqlstore"
)

var update = flag.Bool("update", false, "rewrite build/worker/schema.sql from sqlstore.SQLite.Schema")

// d1Schema is the worker's D1 schema file, applied by wrangler d1 execute.
const d1Schema = "../../../build/worker/schema.sql"

// The worker's D1 tables are the ones the SQLite store makes, so that the
// statements the conformance suite checks on SQLite are D1's too.
func TestD1SchemaIsSQLiteSchema(t *testing.T) {
	want := "-- The D1 schema of the worker (cmd/worker): sqlstore's SQLite schema.\n" +
		"-- Written by `go test ./engine/idem/sqlstore -run D1Schema -update`; a test keeps the two the same.\n\n" +
		strings.Join(sqlstore.SQLite.Schema(), ";\n\n") + ";\n"
	if *update {
		if err := os.WriteFile(d1Schema, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(d1Schema)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("%s differs from sqlstore.SQLite.Schema(); rewrite it with go test ./engine/idem/sqlstore -run D1Schema -update", d1Schema)
	}
	if strings.Contains(want, "$") || strings.Contains(strings.Join(sqlstore.Postgres.Schema(), ""), "BLOB") {
		t.Fatal("dialects mixed up")
	}
}
