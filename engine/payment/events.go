package payment

import "github.com/retrylab/retrylab/engine/sim"

// Kinds of the trace's events, in lanes "client", "network" and "server".
const (
	EvAttempt      sim.Kind = "attempt"       // the client sends a request: Ref its key, if any
	EvRequestLost  sim.Kind = "request-lost"  // the network loses the request
	EvResponseLost sim.Kind = "response-lost" // the network loses the response
	EvTimeout      sim.Kind = "timeout"       // the client hears nothing in time
	EvGiveUp       sim.Kind = "give-up"       // the client stops retrying
	EvReceipt      sim.Kind = "receipt"       // the client holds a charge: Ref its id
	EvCharge       sim.Kind = "charge"        // the server charges the card: Ref the charge
	EvReplay       sim.Kind = "replay"        // the server replays a saved answer
	EvReject       sim.Kind = "reject"        // the server refuses the request
	EvResponse     sim.Kind = "response"      // the server answers
)

// Lost reports whether k is the network losing a message.
func Lost(k sim.Kind) bool { return k == EvRequestLost || k == EvResponseLost }
