// Package idem implements the Idempotency-Key protocol a payment server
// uses to make retries safe (the IETF httpapi Idempotency-Key draft, with
// Stripe's documented behaviour): a key is scoped to an account, the
// request body is fingerprinted in a canonical form, the key is claimed
// before any work, and a known key is answered from the store: the saved
// response replayed, 409 while the first request runs, 422 for the same key
// with another body.
//
// The pieces are small on purpose: Canonical and Fingerprint (a
// hand-written JSON tokenizer, no encoding/json), a Clock (never the wall
// clock), a Store of Records whose every method is one atomic step (a SQL
// store does each with one statement), MemoryStore, and the Keeper that runs
// the protocol over them. Work that takes several steps records each with
// Claim.Checkpoint, so that a retry taking over a crashed claimant's key
// resumes where it stopped.
//
// The HTTP side lives elsewhere, so that this package stays small enough
// for the page's WebAssembly module: ledger holds what the payments API
// keeps beside its keys, idemhttp serves the protocol as that API,
// sqlstore keeps its records in SQLite or PostgreSQL, and storetest is the
// conformance suite every store passes.
package idem
