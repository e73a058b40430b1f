// Package saga models a saga runner: charge the card, book a flight, book
// a hotel; when a step fails, undo the done steps in reverse. The runner
// keeps a durable log, crashes at a chosen point and resumes from the log;
// each call carries the key saga:STEP (and saga:STEP:undo for its
// compensation), so that a call repeated after the crash is a replay at
// the service, not a second booking.
//
// # Rules
//
// The steps run in order, charge, flight, hotel, each a call to its
// service, whose result the runner then writes to its log. The service of
// the fail step refuses; the runner then compensates, undoing the steps
// the log says were done, the last first. The runner crashes once, right
// after the crash-after step's call returns and before its log records
// the result; it resumes from the log, so it calls that step again. With
// keys, each service remembers the keys it has done and answers a known
// one with what it did the first time, doing nothing more; without keys,
// a repeated call is done again.
//
// # Parameters
//
// fail, the step whose service refuses (default hotel; none: the saga
// completes); crash-after (default flight; none: no crash); keys (default
// on).
//
// # Published figures
//
// The hotel refuses and the runner crashes after the flight:
//
//   - with keys: 1 charge and 1 undo at the card, and nothing left in
//     place: the flight called again after the crash is a replay of
//     saga:flight, and its undo cancels the one booking.
//   - without keys: the card still sees 1 charge and 1 undo, but the
//     airline holds 2 bookings and the undo cancels one: 1 effect left in
//     place.
package saga
