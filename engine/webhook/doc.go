// Package webhook models an endpoint that receives a payment processor's
// webhooks: one event delivered at least once, a forged event, and a
// captured delivery replayed two days later, against an endpoint that
// checks signatures and timestamps, records event ids, and answers
// before or after it works.
//
// Time is in seconds on the virtual clock; nothing here sleeps or reads
// a clock.
//
// # Rules
//
// The sender delivers evt_1 ("order 1 is paid") at t = 0, signing each
// delivery afresh with the time it is sent. It waits 10 s for an answer.
// A delivery without a 2xx in that time (lost, late or refused) fails,
// and the sender delivers again 60 s after the failure, then 120, 240 and
// 480 s after the next ones: at most 5 deliveries, then it gives up. With
// lost on, the 200 to the first delivery never reaches it.
//
// The attacker posts a forged evt_2 ("order 2 is paid", which nobody
// paid) at 5 minutes, freshly timestamped with a new id and a signature
// it could not compute; and at 48 hours it replays the first delivery's
// bytes: evt_1's body, its timestamp of 0 and its genuine signature.
//
// The endpoint takes each delivery in this order: with signature on, it
// answers 400 to a signature that is not the secret's; with a tolerance
// above 0, it answers 400 to a timestamp older than the tolerance; with
// dedupe on, it answers 200 and does nothing for an event id recorded
// less than keep hours before. Otherwise it fulfils the event's order,
// which takes work seconds: with reply before-work it records the id,
// queues the work and answers 200 at once, and a worker does the work;
// with after-work it works, then records the id and answers 200 when the
// work commits, and an answer after the sender's 10 s is late. Events at
// the same instant run in the order they were scheduled.
//
// # Parameters
//
// signature (default on); tolerance (default 300 s, the five minutes
// Stripe's libraries default to; 0 checks no timestamp); dedupe (default
// on); keep (default 24 hours); reply (before-work, after-work; default
// before-work); work (default 20 s, twice the sender's wait); lost
// (default on). Params.Bind declares their bounds.
//
// # Published figures
//
// The outputs are the times order 1 was fulfilled, the forged orders
// shipped and the sender's deliveries. At the defaults unless said:
//
//	case                                        fulfilled forged deliveries
//	every defence                                       1      0          2
//	dedupe off                                          2      0          2
//	signature off                                       1      1          2
//	tolerance 0                                         2      0          2
//	tolerance 0, keep 72                                1      0          2
//	reply after-work, lost off                          1      0          2
//	reply after-work, lost off, dedupe off              5      0          5
//	reply after-work, lost off, work 90                 2      0          3
//
// At the defaults the first delivery's 200 is lost; the sender fails it
// at 10 s and delivers again at 70 s, and the endpoint finds evt_1
// recorded and does nothing. The forgery fails its signature, and the
// replay is 48 hours old, past 300 s. Without dedupe the second delivery
// fulfils order 1 again; without the signature check order 2 ships;
// without the timestamp check the replay passes, and finds its id
// forgotten after 24 hours (not after 72).
//
// Working before the answer, 20 s of work outlast the sender's 10 s, so
// the first delivery fails though it fulfilled the order at 20 s; the
// retry at 70 s finds the id. Without dedupe every delivery fails the
// same way and fulfils the order again: 5 deliveries at 0, 70, 200, 450
// and 940 s (each failure 10 s after its delivery, then the doubling
// wait), 5 fulfilments. With 90 s of work the retry at 70 s comes before
// the first delivery's id is recorded at 90 s and works again; the third
// delivery, at 80 + 120 = 200 s, finds the id: 2 fulfilments in 3
// deliveries. Recording the id first, in the work's own transaction,
// makes the second copy wait on the unique index instead.
package webhook
