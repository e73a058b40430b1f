package stream

import "github.com/retrylab/retrylab/engine/param"

// Bind declares the parameters, for the widget and the CLI alike. The
// defaults are Kafka's exactly-once pipeline at its strongest, a
// transactional processor and a read_committed consumer, in front of a
// sink that sends its emails without a key: the output is exact, and an
// email still goes twice.
func (p *Params) Bind(b *param.Binder) {
	param.OneOf(b, &p.Producer, Producers, param.Param{Name: "producer", Label: "Processor's producer", Default: string(Transactional),
		Help: "plain: enable.idempotence=false; idempotent: Kafka's default since 3.0; transactional: a transactional.id, output and input offset in one transaction"})
	param.OneOf(b, &p.Isolation, Isolations, param.Param{Name: "isolation", Label: "Consumer's isolation.level", Default: string(ReadCommitted),
		Help: "read_committed hides records of aborted transactions; read_uncommitted, the Kafka consumer's default, returns them"})
	b.Bool(&p.Dedupe, param.Param{Name: "dedupe", Label: "Email keyed by order id", Default: "off",
		Help: "the sink sends each email with the order id as its idempotency key, and the provider sends a key once"})
}

// Binding is the parameters as Bind declares them: their Schema, their
// Defaults, and the reading, writing and checking of Params.
var Binding = param.NewBinding((*Params).Bind)

// Validate checks every parameter against its declaration; the error is a
// *param.Error naming the parameter, the value and what is allowed.
func (p Params) Validate() error { return Binding.Check(p) }
