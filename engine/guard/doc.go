// Package guard models N identical requests with one idempotency key
// arriving at the same instant, and three ways a handler can try to charge
// only once.
//
// # Rules
//
// Each handler is a sequence of steps. A step is one statement against a
// small in-memory database, which runs each statement atomically and
// enforces unique indexes; or one hop of a charge at the card network,
// which takes CardSteps steps; or the answer to the client. A seeded
// scheduler interleaves the handlers: with spread 0 all arrive together
// and run in lockstep, round-robin, one step each per round; otherwise each
// arrives at a random round up to spread and the order within a round is
// shuffled, from the seed.
//
// The strategies:
//
//   - check-then-insert SELECTs the key and, if no row has it, charges and
//     INSERTs the row: two statements with the charge between them.
//   - constraint-after-charge charges, then INSERTs the payment row under a
//     unique index on the key: the index keeps one row, after every
//     request has charged.
//   - claim-before-work INSERTs the key first (ON CONFLICT DO NOTHING
//     RETURNING): only the request whose INSERT took the row charges, and
//     it saves its answer on the row. The others answer 409 with
//     Retry-After: 1 while the winner works, or replay its saved answer
//     once it is there.
//
// After the burst has answered, two requests follow alone, a second later
// (Retry-After: 1 honoured): the same request again, and the same key with
// another amount, OtherAmount.
//
// # Parameters
//
// strategy (default check-then-insert); n, the requests (default 20, at
// most MaxN); spread, in steps (default 0: lockstep); seed (default 1).
// Params.Bind declares their bounds.
//
// # Published figures
//
// Twenty requests in lockstep (Run's comment has the step counts):
//
//   - check-then-insert: 20 rows, 20 charges, statuses {201: 20}. Every
//     SELECT runs in round 1, before the first INSERT (round 1 +
//     CardSteps + 1), so every request finds no row.
//   - constraint-after-charge: 1 row, 20 charges, {201: 1, 409: 19}: all
//     charge in rounds 1 to CardSteps, then one INSERT wins.
//   - claim-before-work: 1 row, 1 charge, {201: 1, 409: 19}: one INSERT of
//     the key wins in round 1, and the others find the row in round 2,
//     long before the winner saves its answer (round CardSteps + 2). The
//     retry afterwards is a replay of the 201 with pay_1; the same key with
//     another amount is answered 422.
//
// With spread above 0, check-then-insert's rows vary with the seed: a real
// PostgreSQL gave 10 to 20 rows over six runs of 20 duplicates a few
// milliseconds apart (the handbook's lab, internal/lab).
package guard
