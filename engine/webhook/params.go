package webhook

import (
	"time"

	"github.com/retrylab/retrylab/engine/param"
)

// Bind declares the parameters, for the widget and the CLI alike. The
// defaults are an endpoint with every defence on: it checks the
// signature and the timestamp, keeps event ids for a day, and answers
// before it works; and the first answer is lost, so that the sender
// delivers again.
func (p *Params) Bind(b *param.Binder) {
	b.Bool(&p.Signature, param.Param{Name: "signature", Label: "Check the signature", Default: "on",
		Help: "refuse a delivery whose HMAC of its timestamp and body does not match"})
	b.Seconds(&p.Tolerance, param.Param{Name: "tolerance", Label: "Timestamp tolerance (s)", Default: "300", Min: 0, Max: 604800,
		Help: "refuse a delivery signed longer ago than this; 0 checks no timestamp"})
	b.Bool(&p.Dedupe, param.Param{Name: "dedupe", Label: "Skip seen event ids", Default: "on",
		Help: "record each event id handled and answer a repeat without working"})
	b.Int(&p.Keep, param.Param{Name: "keep", Label: "Keep ids for (hours)", Default: "24", Min: 1, Max: 720,
		Help: "how long an event id is kept before it is forgotten"})
	param.OneOf(b, &p.Reply, Replies, param.Param{Name: "reply", Label: "Answer", Default: string(BeforeWork),
		Help: "before-work: queue the work and answer at once; after-work: work, then answer"})
	b.Seconds(&p.Work, param.Param{Name: "work", Label: "Work takes (s)", Default: "20", Min: 1, Max: 120,
		Help: "how long fulfilling the order takes"})
	b.Bool(&p.Lost, param.Param{Name: "lost", Label: "First answer lost", Default: "on",
		Help: "the answer to the first delivery is lost on its way back to the sender"})
}

// Binding is the parameters as Bind declares them: their Schema, their
// Defaults, and the reading, writing and checking of Params.
var Binding = param.NewBinding((*Params).Bind)

// Validate checks every parameter against its declaration; the error is a
// *param.Error naming the parameter, the value and what is allowed.
func (p Params) Validate() error { return Binding.Check(p) }

// keep is how long the endpoint keeps an event id.
func (p Params) keep() time.Duration { return time.Duration(p.Keep) * time.Hour }
