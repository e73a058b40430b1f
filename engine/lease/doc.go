// Package lease is the crash of the leases-and-recovery chapter, run on
// the real protocol: engine/idem's Keeper and MemoryStore, with the
// virtual clock of engine/sim as the keeper's clock. A client pays once
// with an Idempotency-Key; the server's first request crashes where the
// reader chooses (before the charge, after it, or after saving the
// answer), or pauses past its lease and wakes; the client retries when
// the reader chooses, before or after the claim's lease ends, and honours
// a 409's Retry-After. The server's work records recovery points, or not,
// so a takeover resumes or starts over.
//
// The model claims, takes over, records recovery points and saves
// through the same code as the sandbox API (idem.Keeper.Do and the
// MemoryStore's Claim, Checkpoint and Complete, each fenced by the
// claim): what the widget shows is what the protocol does, not a
// description of it. Only the work is the model's own, a smaller copy of
// the API's payment work (engine/idem/idemhttp): choose the payment,
// charge it, answer 201. The charge is the processor's, outside the key
// store, so no fence guards it: the processor's own idempotency key, the
// payment's id, does, as the chapter says.
//
// # Parameters
//
// crash (none, before-charge, after-charge, after-saving, pauses; default
// after-charge); retry, when the client retries, in seconds after its
// first send (default 30); lease (default idem.DefaultLease, 60 s);
// recovery, the work's recovery points (default on). Params.Bind declares
// their bounds, and why.
//
// # Published figures
//
// The charges the processor took, the first retry's answer, the client's
// receipt and the payments created, with the defaults unless said:
//
//   - a crash after the charge, a retry at 30 s, within the lease: 1
//     charge, the retry gets a 409, receipt ch_1, 1 payment. The 409's
//     Retry-After brings the client back once the lease has lapsed, and
//     the takeover resumes after the recovery point "charged".
//   - the same, retried at 90 s, past the lease: the retry takes over at
//     once and gets the 201: 1 charge, receipt ch_1.
//   - without recovery points: the takeover starts over, creates a second
//     payment and charges it: 2 charges, receipt ch_2, 2 payments (409,
//     or 201 when retried at 90 s).
//   - a crash before the charge, no recovery points, a retry at 90 s: 1
//     charge, receipt ch_1, and 2 payments: the first is left pending.
//   - a crash after saving: the retry is a replay, within the lease or
//     not: 1 charge, receipt ch_1.
//   - no crash: no retry, 1 charge.
//   - the owner pauses past its lease and wakes: the takeover resumes
//     after the recovery point "payment"; the processor's key (the
//     payment's id) answers the woken owner's charge with the same
//     charge, and the fence refuses its writes to the store: 1 charge, 1
//     payment. Without recovery points the takeover makes a second
//     payment, a new key for the processor, and the card is charged
//     twice: the fence guards the store, not the card.
package lease
