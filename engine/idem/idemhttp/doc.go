// Package idemhttp serves the Idempotency-Key protocol of package idem as
// a sandbox payments API over HTTP: the Handler of `retrylab api` and of
// the Cloudflare Worker in cmd/worker.
//
// POST /v1/payments needs a bearer token (any token names a sandbox
// account: AccountOf) and an Idempotency-Key (ParseKey). The body, a
// payment (ParsePayment), is fingerprinted in its canonical form; the key
// is claimed before any work; the saved answer is replayed with
// Idempotent-Replayed: true; a retry while the first request runs gets
// 409 with Retry-After, the key with another body 422. Failures where
// nothing happened release the key; failures after the work began are
// saved. A crashed request's claim is taken over when its lease runs out,
// and the payment resumes from its recovery point without a second
// charge. Retrylab-Fault (ParseFaults) makes a request fail on purpose.
// Every error is application/problem+json.
//
// The Store (ledger.Store) holds the keys and the ledger of payments and
// charges: ledger.MemoryStore, or package sqlstore for SQLite, PostgreSQL
// and Cloudflare D1, all checked by package storetest.
package idemhttp
