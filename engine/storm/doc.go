// Package storm models a metastable failure: a short slowdown fills the
// server's queue with requests whose clients have timed out and retried,
// and the retries keep it full long after the slowdown ends, unless a
// retry budget and dropping expired work let it drain.
//
// # Rules
//
// The run is one-second ticks. Each tick, in order: (1) each client whose
// request has waited timeout seconds unanswered retries, if it has retries
// left and, with the budget on, the bucket pays for it (budget's bucket:
// every new request earns 0.1 token, a retry spends 1 and may not empty
// it, a bank of 10); (2)
// the new requests arrive; (3) the server serves its queue, oldest first,
// up to its capacity, or capacity × slow-factor during the slowdown, the
// seconds from slow-from up to slow-to. A request whose client has already
// given up (it has waited timeout seconds or more) still costs a unit of
// capacity for nothing, or, with skip-expired, is dropped for free.
//
// Goodput is the requests answered while their client still waits.
// Healthy is the mean goodput of the five seconds before the slowdown and
// slow its mean over the slowdown, both rounded down. Recovered is when
// goodput comes back: the first second, from the slowdown's end, that
// starts five seconds in a row of goodput of at least
// Params.RecoveryGoodput (15/16 of the new requests, rounded up: 75 of
// the default 80), counted from the slowdown's end; never if no such
// second comes before the run ends.
//
// # Parameters
//
// budget and skip-expired (both off by default); new, the requests a
// second (default 80); capacity a second (default 100); slow-factor
// (default 0.4); slow-from and slow-to (defaults 10 and 20); timeout in
// seconds (default 3); retries (default 3); seconds, the run's length
// (default 120). Params.Bind declares their bounds and rules.
//
// # Published figures
//
// 80 new requests a second against 100, 40 during seconds 10 to 19:
//
//   - retry every timeout: healthy 80/s, slow 20/s, never recovered in
//     120 s. Healthy is the 80 offered, all served. In the slowdown the
//     server serves 40 a second of a queue that grows by 40 a second:
//     seconds 10 to 14 each answer 40 in time, and from second 15 the
//     requests at the head of the queue have waited past the 3 s timeout,
//     so the capacity goes to clients who gave up: (5 × 40 + 5 × 0) / 10
//     = 20. The retries of those timeouts then keep offering more than
//     100 a second after the slowdown.
//   - a retry budget of 10%: healthy 80, slow 20, recovered 20 s after the
//     slowdown ended: the bucket caps the retries, and the queue drains.
//   - the budget and skip-expired: healthy 80, slow 40, recovered at once
//     (0 s): expired requests cost nothing, so all 40 a second of the
//     slowdown's capacity answer clients who still wait.
package storm
