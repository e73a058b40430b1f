package outbox

import (
	"strconv"

	"github.com/retrylab/retrylab/engine/param"
)

// Schema declares the parameters; the defaults are the article's case:
// one order, a relay that crashes once, an inbox.
var Schema = param.Schema{
	{Name: "relay-crash", Label: "Relay crashes", Kind: param.Bool, Default: "on",
		Help: "the relay crashes once: after publishing the first event, before marking it sent"},
	{Name: "inbox", Label: "Consumer inbox", Kind: param.Bool, Default: "on",
		Help: "the consumer records event ids and skips the ones it has seen"},
	{Name: "orders", Label: "Orders", Kind: param.Int, Default: "1", Min: 1, Max: MaxOrders,
		Help: "orders placed, each with its event (at most 5)"},
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
	return Params{Orders: v.Int("orders"), RelayCrash: v.Bool("relay-crash"), Inbox: v.Bool("inbox")}
}

// Raw writes the parameters as Schema reads them.
func (p Params) Raw() map[string]string {
	return map[string]string{"orders": strconv.Itoa(p.Orders), "relay-crash": param.OnOff(p.RelayCrash), "inbox": param.OnOff(p.Inbox)}
}

// Validate checks the parameters against Schema.
func (p Params) Validate() error {
	return Schema.CheckFields(p.Raw, param.Flag(p.RelayCrash), param.Flag(p.Inbox), param.Num(float64(p.Orders)))
}
