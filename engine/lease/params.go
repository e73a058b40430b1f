package lease

import (
	"strconv"
	"time"

	"github.com/retrylab/retrylab/engine/idem"
	"github.com/retrylab/retrylab/engine/param"
)

// Bounds of the lease and the retry, in seconds. The lease must outlast
// the work (Call, 1 s) with room to spare: 5 s at the least. At most
// 300 s, five times the keeper's default of a minute (idem.DefaultLease).
// The client retries once the first request is over (at Call), so from
// 2 s, and at most after 600 s, past the longest lease: every case of
// "before" and "after" the lease can be set.
const (
	MinLease, MaxLease = 5, 300
	MinRetry, MaxRetry = 2, 600
)

// Bind declares the parameters; the defaults are the chapter's case: a
// crash after the charge, a retry halfway through the keeper's default
// lease of a minute, and recovery points.
func (p *Params) Bind(b *param.Binder) {
	param.OneOf(b, &p.Crash, Crashes, param.Param{Name: "crash", Label: "First request crashes", Default: string(AfterCharge),
		Help: "where the first request's server dies: before the charge, after it (before saving the answer), after saving (before sending it), or not at all; or it pauses before the charge for two leases and wakes"})
	b.Seconds(&p.Retry, param.Param{Name: "retry", Label: "Retry at (s)", Default: "30", Min: MinRetry, Max: MaxRetry,
		Help: "when the client, with no answer, retries with the same key, in seconds after its first send; a 409 tells it when to come back"})
	b.Seconds(&p.Lease, param.Param{Name: "lease", Label: "Lease (s)", Default: strconv.Itoa(int(idem.DefaultLease / time.Second)), Min: MinLease, Max: MaxLease,
		Help: "how long a claim holds the key before a retry may take it over"})
	b.Bool(&p.Recovery, param.Param{Name: "recovery", Label: "Recovery points", Default: "on",
		Help: "the work records each finished step on the key, and a takeover resumes after the last one instead of starting over"})
}

// Binding is the parameters as Bind declares them: their Schema, their
// Defaults, and the reading, writing and checking of Params.
var Binding = param.NewBinding((*Params).Bind)

// Validate checks every parameter against its declaration; the error is a
// *param.Error naming the parameter, the value and what is allowed.
func (p Params) Validate() error { return Binding.Check(p) }
