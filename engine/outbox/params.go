package outbox

import "github.com/retrylab/retrylab/engine/param"

// Bind declares the parameters; the defaults are the article's case:
// one order, a relay that crashes once, an inbox.
func (p *Params) Bind(b *param.Binder) {
	b.Bool(&p.RelayCrash, param.Param{Name: "relay-crash", Label: "Relay crashes", Default: "on",
		Help: "the relay crashes once: after publishing the first event, before marking it sent"})
	b.Bool(&p.Inbox, param.Param{Name: "inbox", Label: "Consumer inbox", Default: "on",
		Help: "the consumer records each event id after sending its email, and skips the ids it has recorded"})
	b.Int(&p.Orders, param.Param{Name: "orders", Label: "Orders", Default: "1", Min: 1, Max: MaxOrders,
		Help: "orders placed, each with its event (at most 5)"})
}

// Binding is the parameters as Bind declares them: their Schema, their
// Defaults, and the reading, writing and checking of Params.
var Binding = param.NewBinding((*Params).Bind)

// Validate checks every parameter against its declaration; the error is a
// *param.Error naming the parameter, the value and what is allowed.
func (p Params) Validate() error { return Binding.Check(p) }
