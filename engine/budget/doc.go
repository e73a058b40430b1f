// Package budget models a retry budget: a token bucket in which every
// request earns a share of a token and every retry spends a whole one, so
// that retries stay a bounded share of the traffic while the upstream is
// down.
//
// # Rules
//
// The upstream is down: every call fails at once. Request i is sent at
// virtual second i, and its retries follow at once. With the budget on,
// each request first earns ratio tokens, which the bucket keeps up to
// bank tokens (it starts full); each retry spends one token as long as
// some is left after it (Bucket.Spend): a retry that would empty the
// bucket is refused, and its request gives up. With the budget off every
// request makes all its retries.
//
// # Parameters
//
// requests (default 1,000); retries per request (default 3); ratio, the
// tokens a request earns (default 0.1: retries up to a tenth of the
// requests); bank, the bucket's size (default 10); budget (default on).
// Params.Bind declares their bounds.
//
// # Published figures
//
// 1,000 requests with 3 retries each:
//
//   - no budget: 4,000 calls, 1,000 × (1 + 3).
//   - a budget of 10%: 1,109 calls. The full bucket loses the first
//     request's 0.1 to its cap, then takes in the 10 it started with and
//     the other 999 requests' 0.1 each, 10 + 99.9 = 109.9 tokens: 109
//     retries leave 0.9 in the bucket, a 110th would empty it, and
//     1,000 + 109 = 1,109 calls.
package budget
