// Package lock models the widely copied Redis recipe for idempotency keys:
// one payment intent, one key, senders that retry, and a key store with
// the Redis commands' semantics, run against the recipe's failure modes (a
// crash under the lock, work slower than the lock, eviction, the store
// being down).
//
// The store is Redis as the recipe uses it: every command is atomic, and a
// key set with EX L at time t exists for times < t + L. Time is in seconds
// on the virtual clock; nothing here sleeps or reads a clock.
//
// # Rules
//
// Senders: dupes identical requests with the same key are sent at t = 0,
// one per sender, in sender order. A sender waits up to timeout for an
// answer; after a timeout, a 409 or a 503 it waits retry and sends again
// (at answer + retry, or at send + timeout + retry after a timeout), at
// most attempts sends in all, then gives up. A 201 or a replay ends it. An
// answer that comes after its sender stopped waiting is lost. No answer
// carries Retry-After: a sender's wait is retry whatever it was told.
//
// The server, by guard:
//
//   - none: charge (the work takes work seconds) and answer 201.
//   - get-then-set: GET the result key and replay it if found; else
//     charge, SET the result EX result-ttl, and answer 201.
//   - setnx: SET the lock key NX EX lock-ttl; if that set it, charge, SET
//     the result EX result-ttl and answer 201; if not, GET the result:
//     replay it if found, else answer 409. The lock is never deleted.
//
// The charge is recorded at the end of the work, and the result is saved
// and the answer sent at that same instant. Events at the same instant run
// in the order they were scheduled.
//
// Faults: crash makes the first handler that starts work crash at its end,
// before or after the charge is recorded, saving nothing and answering
// nothing (its sender times out); evict drops every key at evict-at (an
// allkeys eviction policy under memory pressure), before any send of that
// instant; with store down the store cannot be reached before outage,
// and on-down says what the server does then: fail-open works without
// the guard and saves the result only if the store is back when the work
// ends; fail-closed answers 503.
//
// # Parameters
//
// guard (none, get-then-set, setnx; default setnx); dupes (default 2);
// crash (none, before-charge, after-charge; default none); work (default
// 2 s); evict (default off) and evict-at (default 120 s); store (up, down;
// default up), outage (default 30 s) and on-down (default fail-open);
// lock-ttl (default 300 s); result-ttl (default 86,400 s, the day Stripe
// keeps a key); timeout (default 10 s); retry (default 60 s); attempts
// (default 8). Params.Bind declares their bounds, and why the defaults.
//
// # Published figures
//
// The outputs are the charges, the sends, the 409s (conflicts), the
// replays, the 503s (unavailable) and when the last sender had its 201 or
// replay (done-at; never when one gave up). At the defaults unless said:
//
//	case                                  charges sends conflicts replays unavailable done-at
//	guard none                                  2     2         0       0           0       2
//	get-then-set                                2     2         0       0           0       2
//	get-then-set, dupes 20                     20    20         0       0           0       2
//	setnx                                       1     3         1       1           0      60
//	setnx, dupes 20                             1    39        19      19           0      60
//	setnx, work 400 (longer than the lock)      2    16        12       2           0     430
//	setnx, crash after-charge                   2    12         9       1           0     310
//	setnx, crash before-charge                  1    12         9       1           0     310
//	setnx, store down, fail-open                2     2         0       0           0       2
//	setnx, store down, fail-closed              1     5         1       1           2     120
//	setnx, retry 200                            1     3         1       1           0     200
//	setnx, retry 300 (after the lock expired)   2     3         1       0           0     302
//	setnx, retry 200, evict on                  2     3         1       0           0     202
//
// Some of the arithmetic:
//
//   - get-then-set: both senders GET at t = 0, before either has saved a
//     result, and both charge.
//   - setnx: sender 1 takes the lock and is answered at 2 s; sender 2 finds
//     the lock and no result, gets a 409, and at 0 + 60 s gets the saved
//     result: 2 + 1 = 3 sends. With 20 senders, 19 such: 20 + 19 = 39.
//   - a crash after the charge: sender 1's charge is recorded at 2 s and
//     nothing is saved. Sender 2 is refused at 0, 60, 120, 180 and 240 s,
//     and at 300 s, when the lock has expired, takes it and charges again;
//     sender 1, timed out at 10 s, is refused at 70, 130, 190 and 250 s and
//     replayed at 310 s: 6 + 6 = 12 sends, 5 + 4 = 9 conflicts, 2 charges.
//     Before the charge, the same sends, and only sender 2's charge.
//   - fail-closed: both are answered 503 at t = 0 (the store is down until
//     30 s); at 60 s sender 1 takes the lock, sender 2 gets a 409, and at
//     120 s the saved result: 2 + 2 + 1 = 5 sends.
//   - retry 300: sender 2, refused at 0, comes back at 300 s, when the
//     lock has just expired; SET NX takes it before anything reads the
//     saved result, and the card is charged again, answered at 302 s.
//   - retry 200 with an eviction at 120 s: the eviction drops the lock and
//     the result, so sender 2's send at 200 s takes a new lock and charges
//     again, answered at 202 s.
//
// The lesson: a lock with a TTL is not a record of what happened. A crash,
// a call slower than the lock, a retry after it or an eviction turns it
// into a second charge, and failing open during an outage does too. The chapter sets it
// beside the durable claim before work of engine/idem, with its lease,
// fence and recovery points.
package lock
