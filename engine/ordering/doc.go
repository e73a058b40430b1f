// Package ordering models webhook events that arrive out of order and
// twice: a subscription moves from starter (evt_1, sent at t = 0 s) to pro
// (evt_2, sent at t = 60 s), but the events arrive evt_2, evt_1, evt_2.
// Deduplicating by event id stops the repeat, not the reordering, and ends
// on starter; a version guard on the events' own time ends on pro.
//
// # Rules
//
// Each event sets the plan it carries (Events). The consumer takes the
// deliveries in the order of arrival and, by strategy, applies each or
// skips it: none applies every event; dedupe skips an event whose id it
// has applied; version-guard keeps the time of the newest event applied
// (its high-water mark) and skips any event no newer, a repeat included.
//
// # Parameters
//
// strategy (none, dedupe, version-guard; default dedupe); arrival, the event
// ids in the order they arrive (default evt_2, evt_1, evt_2).
//
// # Published figures
//
//   - dedupe: the plan ends on starter, which is wrong. evt_2 sets pro,
//     evt_1 is new to it and sets starter, and the second evt_2 is a
//     repeat, skipped: the older event has the last word.
//   - version-guard: the plan ends on pro. evt_2 sets pro and the mark to
//     60 s; evt_1, sent at 0 s, and evt_2 again, at 60 s, are no newer,
//     and both are skipped.
package ordering
