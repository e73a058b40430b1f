// Package idemhttp serves the Idempotency-Key protocol of package idem as
// a sandbox payments API over HTTP: the Sandbox of `retrylab api`, of
// the Cloudflare Worker in cmd/worker and of the handbook's dev server.
//
// POST /v1/payments needs a bearer token (any token names a sandbox
// account: AccountOf) and an Idempotency-Key (ParseKey). The body, a
// payment (ledger.ParsePayment), is fingerprinted in its canonical form;
// the key is claimed before any work; the saved answer is replayed with
// Idempotent-Replayed: true; a retry while the first request runs gets
// 409 with Retry-After, the key with another body 422. Failures where
// nothing happened release the key; failures after the work began are
// saved. A crashed request's claim is taken over when its lease runs out,
// and the payment resumes from its recovery point without a second
// charge. Every error is application/problem+json.
//
// Handler is that protocol and nothing else, the part to read and copy.
// Sandbox serves it as the sandbox does, in layers around it: a log line
// per request (log.go), and the Retrylab-Fault header (ParseFaults), which
// makes a request fail on purpose: a middleware loses requests and
// answers, and a store around the real one slows, declines, refuses or
// crashes the work where it meets the card network (faults.go).
//
// The Store (ledger.Store) holds the keys and the ledger of payments and
// charges: ledger.MemoryStore, or package sqlstore for SQLite, PostgreSQL
// and Cloudflare D1, all checked by package storetest.
package idemhttp
