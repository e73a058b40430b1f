// Package outbox models the transactional outbox and the consumer's inbox:
// an order and its event commit in one transaction; a relay publishes
// outbox rows to a broker and then marks them sent, and, if it crashes in
// between, publishes the row again after it restarts; a consumer sends
// an email for each message, and with an inbox keyed by event id skips a
// message whose id it has recorded already.
//
// # Rules
//
// Each order commits with its outbox row, in one transaction: there is no
// order without its event, and no event without its order. The relay takes
// the unsent rows in order, publishes each to the broker, then marks it
// sent. With relay-crash on, it crashes once, after publishing the first
// event and before marking it; when it restarts it finds that row unsent
// and publishes it again. The broker delivers every message it holds to
// the consumer, which sends an email for each; with the inbox on, it skips
// an id it has already recorded, and otherwise sends the email and then
// records the id. The email cannot join the inbox's transaction: a
// consumer that crashed between the send and the record would send again
// on the redelivery. The model's consumer never crashes, so the inbox
// narrows duplicates to that window; it does not make the email
// exactly-once.
//
// # Parameters
//
// relay-crash (default on); inbox (default on); orders (default 1, at most
// MaxOrders). Params.Bind declares their bounds.
//
// # Published figures
//
//   - a relay crash, an inbox (the defaults): 2 events on the broker, 1
//     email. The first event is published before the crash and again after
//     the restart; the inbox has its id the second time and skips it.
//   - 5 orders, a relay crash, no inbox: 6 events on the broker (the first
//     twice), 6 emails: without the inbox every delivery is an email.
package outbox
