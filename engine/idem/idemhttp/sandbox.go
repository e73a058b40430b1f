package idemhttp

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/retrylab/retrylab/engine/idem"
	"github.com/retrylab/retrylab/engine/idem/ledger"
)

// Sandbox is the sandbox payments API as retrylab api, the Cloudflare
// Worker and the handbook's dev server serve it: Handler's protocol, with
// each request's Retrylab-Fault injected (see Faults), and a log line per
// request if Log is set. Three layers, each in its own file: logging
// (log.go) around the fault middleware (faults.go) around the Handler,
// whose Store is wrapped in the fault-injecting store.
//
// The zero Sandbox is not usable: set Store. The rest has defaults.
type Sandbox struct {
	Store ledger.Store
	// Clock is the key store's time, and what slow=MS waits on; the
	// system clock if nil.
	Clock idem.Clock
	// Lease and TTL are the Handler's.
	Lease, TTL time.Duration
	// Log, if set, is called once per request, after it was answered, or
	// before its connection is dropped.
	Log func(Entry)

	once sync.Once
	h    http.Handler
}

// ServeHTTP implements http.Handler.
func (s *Sandbox) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.once.Do(func() {
		fs := faultStore{Store: s.Store, clock: s.Clock, slows: make(chan struct{}, MaxSlowAtOnce)}
		var h http.Handler = &Handler{Store: fs, Clock: s.Clock, Lease: s.Lease, TTL: s.TTL}
		api := &Handler{Clock: s.Clock, Lease: s.Lease} // for its clock and lease, as the faults see them
		h = faults{next: h, clock: api.clock(), lease: api.lease(), crashes: &crashes{}}
		if s.Log != nil {
			h = logging{next: h, log: s.Log}
		}
		s.h = h
	})
	s.h.ServeHTTP(w, r)
}

// Sweep finishes the abandoned claims in the store, as Handler.Sweep
// does, without faults: a server calls it every little while (retrylab
// api does) so that no crashed claim stays in flight for ever.
func (s *Sandbox) Sweep(ctx context.Context) (Swept, error) {
	return (&Handler{Store: s.Store, Clock: s.Clock, Lease: s.Lease, TTL: s.TTL}).Sweep(ctx)
}
