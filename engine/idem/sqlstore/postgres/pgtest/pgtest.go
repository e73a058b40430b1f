// Package pgtest starts a throwaway PostgreSQL server for tests, from the
// binaries of Debian's postgresql package, in a temporary folder, on a
// free loopback port, and stops it when the test ends.
//
// RETRYLAB_PG_DSN names a running server to use instead. A test that needs
// PostgreSQL fails when neither is there, unless RETRYLAB_NO_POSTGRES=1
// says to skip it (build/install-deps.sh installs the package).
package pgtest

import (
	"database/sql"
	"errors"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // registers "pgx"
)

// Start returns the DSN of a PostgreSQL server that lives until the test
// ends, with a database "postgres" the DSN's user owns.
func Start(tb testing.TB) string {
	tb.Helper()
	if dsn := os.Getenv("RETRYLAB_PG_DSN"); dsn != "" {
		return dsn
	}
	bin, err := binDir()
	if err != nil {
		if os.Getenv("RETRYLAB_NO_POSTGRES") == "1" {
			tb.Skip("RETRYLAB_NO_POSTGRES=1: skipping the PostgreSQL tests (" + err.Error() + ")")
		}
		tb.Fatal("pgtest: " + err.Error() + ". Install Debian's postgresql (build/install-deps.sh does), " +
			"or set RETRYLAB_PG_DSN to a server's URL, or RETRYLAB_NO_POSTGRES=1 to skip")
	}

	// initdb and postgres refuse to run as root: as root, run them as the
	// postgres user the Debian package makes, in a folder it owns.
	var as []string
	var uid, gid int = -1, -1
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			tb.Fatal("pgtest: running as root and there is no user postgres to run the server as: " + err.Error())
		}
		uid, _ = strconv.Atoi(u.Uid)
		gid, _ = strconv.Atoi(u.Gid)
		as = []string{"runuser", "-u", "postgres", "--"}
	}
	dir, err := os.MkdirTemp("", "retrylab-pg-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	if uid >= 0 {
		if err := os.Chown(dir, uid, gid); err != nil {
			tb.Fatal(err)
		}
	}
	data := filepath.Join(dir, "data")
	run := func(name string, args ...string) {
		tb.Helper()
		cmd := exec.Command(filepath.Join(bin, name), args...)
		if as != nil {
			cmd = exec.Command(as[0], append(append(as[1:], filepath.Join(bin, name)), args...)...)
		}
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			log, _ := os.ReadFile(filepath.Join(dir, "server.log"))
			tb.Fatalf("pgtest: %s %s: %v\n%s\n%s", name, strings.Join(args, " "), err, out, log)
		}
	}
	// No fsync and no WAL archiving: a throwaway server's data need not
	// survive a crash, and initdb and every commit go faster without.
	run("initdb", "-D", data, "-U", "retrylab", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync")
	port := freePort(tb)
	run("pg_ctl", "-D", data, "-l", filepath.Join(dir, "server.log"), "-w", "-t", "60", "-o",
		"-p "+strconv.Itoa(port)+" -c listen_addresses=127.0.0.1 -k "+dir+" -c fsync=off -c synchronous_commit=off -c full_page_writes=off",
		"start")
	tb.Cleanup(func() {
		cmd := exec.Command(filepath.Join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop")
		if as != nil {
			cmd = exec.Command(as[0], append(append(as[1:], filepath.Join(bin, "pg_ctl")), "-D", data, "-m", "immediate", "-w", "stop")...)
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			tb.Logf("pgtest: stopping the server: %v\n%s", err, out)
		}
	})
	return "postgres://retrylab@127.0.0.1:" + strconv.Itoa(port) + "/postgres?sslmode=disable"
}

// binDir finds the folder of initdb and pg_ctl: on PATH, or Debian's
// /usr/lib/postgresql/VERSION/bin (the newest version installed).
func binDir() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", errors.New("no PostgreSQL server binaries (initdb, pg_ctl) on PATH or under /usr/lib/postgresql")
}

func version(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

func freePort(tb testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

var schemas atomic.Int64

// Schema creates a new, empty schema on the server at dsn and returns a
// DSN whose connections use it, so that each test starts from nothing.
func Schema(tb testing.TB, dsn string) string {
	tb.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	name := "t" + strconv.Itoa(os.Getpid()) + "_" + strconv.FormatInt(schemas.Add(1), 10)
	if _, err := db.Exec("CREATE SCHEMA " + name); err != nil {
		tb.Fatalf("pgtest: creating schema %s: %v", name, err)
	}
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return dsn + sep + "search_path=" + name
}
