// Package backoff models a thousand clients retrying against a server that
// answers a fixed number of calls per time slot, under four waiting
// policies, and provides Retry, the client side of the lesson: the loop a
// careful client runs around one call.
//
// # Rules
//
// Every client calls at t = 0. The server works in slots of slot seconds
// and answers capacity calls in each; a call past a slot's capacity fails,
// and its client waits, as its policy says, and calls again. Calls are
// taken in time order, ties by client number (a priority queue of time,
// client and attempt); a call at time t lands in slot floor(t / slot).
//
// With the ceiling c = min(cap, base × 2^attempt), attempt counted from 0,
// a failed client waits (Policy.Wait):
//
//   - none: c, the same for every client of a wave;
//   - full: a uniform draw from [0, c];
//   - equal: c/2 plus a uniform draw from [0, c/2];
//   - decorrelated: min(cap, a uniform draw from [base, 3 × the previous
//     wait]), the first previous wait being base.
//
// The draws come from the seed. The widget and the CLI run the compare
// policy beside the first, with the same herd and seed.
//
// Retry calls a function until its outcome is final, its attempts are used
// up or the next wait would pass the caller's deadline. It retries what
// may succeed later (no answer at all, and 408, 429, 500, 502, 503, 504,
// and a 409 with Retry-After, an idempotency-key server's "the first
// request is still running"), never a final answer (400, 401, 403, 404,
// 422, ...); it waits by full jitter, with a server's Retry-After as the
// shortest wait.
//
// # Parameters
//
// policy (default none) and compare (default full, or off); clients
// (default 1,000, at most 100,000); capacity, calls per slot (default 50);
// slot, base and cap in seconds (defaults 0.1, 0.1 and 10; cap at least
// base); seed (default 1). Params.Bind declares their bounds.
//
// # Published figures
//
// 1,000 clients against 50 calls per 100 ms slot, base 0.1 s, cap 10 s:
//
//   - none: 10,500 calls, the last client served at 132.7 s, in 20 waves.
//     Without jitter the clients that failed together wait alike and call
//     together again: each wave serves 50 of them, so 1,000 / 50 = 20
//     waves of 1,000, 950, ..., 50 calls, 50 × (20 + 19 + ... + 1) =
//     50 × 210 = 10,500 calls. Wave 20 comes after 19 waits: 0.1, 0.2,
//     0.4, 0.8, 1.6, 3.2 and 6.4 s (12.7 s), then twelve at the cap of
//     10 s (120 s), 132.7 s in all.
//   - full: a random figure. Over seeds 1 to 40 the calls stay between
//     4,950 and 5,100 and the last client is served between 4 and 12 s
//     (engine/figures.FullJitter): about half the calls, served in a
//     tenth of the time.
//
// Retry: two 503s and then a success are 3 calls and 2 waits, each within
// [0, base × 2^attempt]; a 422 is 1 call, returned at once.
package backoff
