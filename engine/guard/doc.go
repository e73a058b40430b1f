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
// The isolation level is that of the transaction a check-then-insert
// handler runs in: its SELECT begins it, the charge happens inside it, and
// the INSERT commits it, in one step. At read committed and at repeatable
// read the SELECT is the transaction's first statement, so both read the
// table as it stands at that step, and nothing refuses the INSERT: the
// figures are those of statements committed one by one. At serializable a
// handler whose SELECT found no row, and which finds at its INSERT a row
// another transaction has inserted since, fails with SQLSTATE 40001 (a
// serialization failure): its transaction rolls back, its charge stands,
// and it runs the whole transaction again, from the SELECT, which now finds
// the row and replays its answer. The other strategies commit each
// statement on its own, so the level changes nothing for them.
//
// After the burst has answered, two requests follow alone, a second later
// (Retry-After: 1 honoured): the same request again, and the same key with
// another amount, OtherAmount.
//
// # Parameters
//
// strategy (default check-then-insert); isolation (read-committed,
// repeatable-read or serializable; default read-committed); n, the requests (default 20, at
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
//   - check-then-insert at repeatable-read: 20 rows, 20 charges, {201: 20},
//     as at read committed.
//   - check-then-insert at serializable: 1 row, 20 charges, {201: 20}, 19
//     replayed, 19 aborts. All twenty SELECT in round 1 and charge in rounds
//     2 to CardSteps + 1; in round CardSteps + 2 the first INSERT takes the
//     row and the other nineteen fail with 40001. Their SELECTs run again in
//     round CardSteps + 3 and find the row; in round CardSteps + 4 they
//     replay its 201 with pay_1. The charges are 1 + 19 = 20, the rows 1.
//
// At serializable, whatever the spread, the rows are 1 and the charges are
// 1 plus the aborts: a request that arrives after the first INSERT finds
// the row and does not charge. A real PostgreSQL 15 gave the same for 20
// duplicates and a 50 ms card call: 1 row, 20 charges and 19 40001s in
// each of six runs, every retry a replay (internal/lab, make lab).
//
// With spread above 0, check-then-insert's rows vary with the seed: a real
// PostgreSQL gave 10 to 20 rows over six runs of 20 duplicates a few
// milliseconds apart (the handbook's lab, internal/lab).
package guard
