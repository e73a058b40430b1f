// Package stream models a read-process-write pipeline on Kafka and the
// side effect after it: a processor turns three orders into result
// records on an output topic, and a downstream consumer sends one email
// per result record. Its producer is plain, idempotent or transactional;
// the consumer reads committed records only or every record; and the
// email is keyed by order id, or not.
//
// Time is a tick of 10 ms per step on the virtual clock; nothing here
// sleeps or reads a clock.
//
// # Rules
//
// The processor reads order 1, 2 and 3 from the input topic in turn. For
// each it sends one result record to the output topic, then commits its
// input offset (the next order to read). A transactional processor begins
// a transaction per order, and the result and the offset commit together
// (sendOffsetsToTransaction, then commitTransaction).
//
// Two faults happen in every run. The broker's acknowledgement of order
// 1's result is lost, and the producer sends it again. An idempotent or
// transactional producer sends it with the same producer id and sequence
// number, and the broker acknowledges it without writing it again; a
// plain producer's retry is written a second time. Then the processor
// crashes after sending order 2's result, before committing. Its new
// instance starts from the committed offset and processes order 2 again,
// in a new producer session. Its result is a new send by the application,
// which no producer id or sequence number can match to the first, so the
// first result stays in the log: committed without a transaction; with a
// transactional.id, initTransactions first aborts the crashed instance's
// open transaction, and its record is marked aborted. (The model leaves
// out the commit and abort markers, which take an offset each in a real
// log.)
//
// The downstream consumer then reads the output topic from its start.
// read_committed skips aborted records; read_uncommitted (the Kafka
// consumer's default) returns them too. For each record it sends an
// email, then commits its offset past it. It crashes once, after the
// email for the second record it reads and before that commit; restarted,
// it reads that record again. With dedupe on, each email carries the
// order id as its idempotency key, and the provider sends once per key.
//
// # Parameters
//
// producer (plain, idempotent, transactional; default transactional);
// isolation (read_committed, read_uncommitted; default read_committed);
// dedupe (default off).
//
// # Published figures
//
// written counts the output topic's records, aborted ones included;
// records the ones the consumer read, each once; effects the emails
// sent. At the defaults unless said:
//
//	case                                     written records effects
//	defaults                                       4       3       4
//	dedupe on                                      4       3       3
//	isolation read_uncommitted                     4       4       5
//	producer idempotent                            4       4       5
//	producer plain                                 5       5       6
//	producer plain, dedupe on                      5       5       3
//
// At the defaults order 1's retry is dropped by the broker (1 record),
// order 2 is written twice, once in the aborted transaction and once in
// the committed one, and order 3 once: 4 written, 3 committed. The
// consumer reads the 3 committed records and emails order 2 again after
// its crash: 3 + 1 = 4 emails. Keyed by order id, the provider refuses
// the second: 3. read_uncommitted also returns the aborted record of
// order 2: 4 records, and the crash's repeat makes 5 emails.
//
// An idempotent producer without transactions also writes order 1 once,
// but the crash's reprocessing is a new send: order 2's two records are
// both committed, 4 written and 4 read, 5 emails. A plain producer
// also writes order 1's retry: 5 written, 5 read, 6 emails. Keyed by
// order id, every duplicate is refused by the provider whatever came
// before: 3 emails, one per order.
package stream
