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

// Schema declares the parameters; the defaults are the chapter's case: a
// crash after the charge, a retry halfway through the keeper's default
// lease of a minute, and recovery points.
var Schema = param.Schema{
	{Name: "crash", Label: "First request crashes", Kind: param.Enum, Default: string(AfterCharge), Allowed: param.Strings(Crashes),
		Help: "where the first request's server dies: before the charge, after it (before saving the answer), after saving (before sending it), or not at all; or it pauses before the charge for two leases and wakes"},
	{Name: "retry", Label: "Retry at (s)", Kind: param.Int, Default: "30", Min: MinRetry, Max: MaxRetry,
		Help: "when the client, with no answer, retries with the same key, in seconds after its first send; a 409 tells it when to come back"},
	{Name: "lease", Label: "Lease (s)", Kind: param.Int, Default: strconv.Itoa(int(idem.DefaultLease / time.Second)), Min: MinLease, Max: MaxLease,
		Help: "how long a claim holds the key before a retry may take it over"},
	{Name: "recovery", Label: "Recovery points", Kind: param.Bool, Default: "on",
		Help: "the work records each finished step on the key, and a takeover resumes after the last one instead of starting over"},
}

// Defaults are Schema's defaults.
func Defaults() Params {
	return defaults
}

// defaults are Schema's defaults, parsed once as the package starts
// rather than on every call of Defaults.
var defaults = FromValues(Schema.Defaults())

// FromValues reads parameters checked against Schema.
func FromValues(v param.Values) Params {
	return Params{
		Crash:    Crash(v.String("crash")),
		Retry:    time.Duration(v.Int("retry")) * time.Second,
		Lease:    time.Duration(v.Int("lease")) * time.Second,
		Recovery: v.Bool("recovery"),
	}
}

// Raw writes the parameters as Schema reads them.
func (p Params) Raw() map[string]string {
	return map[string]string{
		"crash":    string(p.Crash),
		"retry":    strconv.FormatInt(int64(p.Retry/time.Second), 10),
		"lease":    strconv.FormatInt(int64(p.Lease/time.Second), 10),
		"recovery": param.OnOff(p.Recovery),
	}
}

// Validate checks the parameters against Schema. A duration that is not
// a whole number of seconds is refused too, since Raw would round it.
func (p Params) Validate() error {
	for _, d := range []struct {
		name string
		d    time.Duration
	}{{"retry", p.Retry}, {"lease", p.Lease}} {
		if d.d%time.Second != 0 {
			return &param.Error{Param: d.name, Value: d.d.String(), Msg: "is not a whole number of seconds"}
		}
	}
	return Schema.CheckFields(p.Raw, param.Word(p.Crash), param.Num(p.Retry.Seconds()), param.Num(p.Lease.Seconds()), param.Flag(p.Recovery))
}
