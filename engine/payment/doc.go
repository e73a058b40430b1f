// Package payment is the double-charge simulator: a client pays over a
// network that can lose a request or its answer, retries when it hears
// nothing, and a payment server charges the card, with or without
// idempotency keys. The model is deterministic: the network's faults are
// given attempt by attempt and every delay is fixed, so a run needs no
// seed.
//
// # Rules
//
// The network takes one fault per attempt, in order, and every attempt
// past the list goes through: ok delivers the request and its answer;
// lose-request drops the request, which the server never sees;
// lose-response lets the server do the work and drops its answer. A
// client that hears nothing within Timeout tries again, up to attempts
// tries in all, then gives up.
//
// The server (Server, over engine/idem's ledger) charges every request
// that carries no key, naming the charges ch_1, ch_2, ... in order. A
// request with a key is checked against what the server keeps for that
// account and key: the canonical fingerprint of the body (its JSON with
// the keys sorted and no white space, hashed with SHA-256) and the answer.
// An unknown key is charged and remembered; a known key with the same
// fingerprint gets the saved answer again, replayed, and charges nothing;
// a known key with another body is refused with 422.
//
// The client makes its keys in one of three ways: none (off); one key
// for the payment, made before the first attempt and sent with every
// retry (per-intent, the correct use); or a new key for every attempt
// (per-attempt, the classic client bug, which makes every retry look new
// to the server).
//
// # Parameters
//
// keys (off, per-intent, per-attempt; default off); faults, the network's
// fault for attempt 1, 2, ... (default lose-response, ok); attempts
// (default 3); amount in cents (default 2500). Params.Bind declares their
// bounds.
//
// # Published figures
//
// With the amount at 2500 and the faults as given, the charges on the
// server's ledger and the charge id the client ends up holding:
//
//   - lose-request, ok, no keys: 1 charge, receipt ch_1. The server never
//     saw attempt 1, so attempt 2 is its first request.
//   - lose-response, ok, no keys: 2 charges, receipt ch_2. Attempt 1 was
//     charged as ch_1 and its answer lost; attempt 2 is a new request to
//     the server and is charged again. ch_1 exists, and the client never
//     heard of it: the double charge.
//   - lose-response, ok, a key per intent: 1 charge, receipt ch_1.
//     Attempt 2 carries attempt 1's key and body, and gets ch_1's answer
//     again, replayed.
//   - lose-response, ok, a key per attempt: 2 charges, receipt ch_2, as
//     with no key: attempt 2's key is unknown to the server.
//
// The server's own figures (server_test.go): the same key with the body's
// fields in another order is the same request, since the fingerprint is
// canonical (1 charge, ch_1 both times); the same key with amount 9900
// after 2500 is answered 422, and the second amount is not charged.
package payment
