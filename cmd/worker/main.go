//go:build js && wasm

// Command worker serves the sandbox payments API (the handler of
// `retrylab api`) on Cloudflare Workers, with github.com/syumai/workers,
// compiled by Go (not TinyGo) to WebAssembly.
//
// One instance of the module may serve many requests, and the next may
// go to another: nothing it keeps in memory can be counted on from one
// request to the next, so all state is in the D1 database bound as DB,
// reached through database/sql (sqlstore, in its SQLite dialect, which
// is D1's). D1 has no transaction a Worker opens and commits around its
// own code, and sqlstore needs none: each store step is one statement,
// the claim an INSERT ... ON CONFLICT ... RETURNING.
//
// Where a local server drops the connection to lose an answer, the worker
// cannot: it answers 504 (lose-request, lose-response) or 502
// (crash-after-charge) instead.
//
// build/worker holds the wrangler configuration, the D1 schema and the
// build script; `make worker-dev` runs it under wrangler dev --local.
package main

import (
	"database/sql"
	"fmt"
	"time"

	"github.com/retrylab/retrylab/engine/idem"
	"github.com/retrylab/retrylab/engine/idem/idemhttp"
	"github.com/retrylab/retrylab/engine/idem/sqlstore"
	"github.com/retrylab/retrylab/internal/cors"
	"github.com/syumai/workers"
	"github.com/syumai/workers/cloudflare"
	"github.com/syumai/workers/cloudflare/d1"
)

func main() {
	conn, err := d1.OpenConnector("DB")
	if err != nil {
		panic("retrylab worker: no D1 database bound as DB (see build/worker/wrangler.toml): " + err.Error())
	}
	lease, ttl := duration("RETRYLAB_LEASE", idem.DefaultLease), duration("RETRYLAB_TTL", idem.DefaultTTL)
	if err := idem.CheckWindows(lease, ttl); err != nil {
		panic("retrylab worker: RETRYLAB_LEASE=" + lease.String() + ", RETRYLAB_TTL=" + ttl.String() + ": " + err.Error())
	}
	h := &idemhttp.Sandbox{
		Store: sqlstore.New(sql.OpenDB(conn), sqlstore.SQLite),
		Lease: lease,
		TTL:   ttl,
		Log:   func(e idemhttp.Entry) { fmt.Println(e.String()) },
	}
	// The handbook's pages call the API from readers' browsers: CORS for
	// the site origins in RETRYLAB_SITE_ORIGINS, and for no other.
	sites, err := cors.ParseOrigins(cloudflare.Getenv("RETRYLAB_SITE_ORIGINS"))
	if err != nil {
		panic("retrylab worker: RETRYLAB_SITE_ORIGINS: " + err.Error())
	}
	workers.Serve(cors.Allow(h, sites))
}

// duration reads a Go duration from the worker's vars; def when unset.
func duration(name string, def time.Duration) time.Duration {
	s := cloudflare.Getenv(name)
	if s == "" {
		return def
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		panic("retrylab worker: " + name + "=" + s + " is not a positive duration such as 1m or 24h")
	}
	return d
}
