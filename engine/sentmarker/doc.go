// Package sentmarker models a job that sends through a provider with no
// idempotency keys. The job checks a "sent" marker, sends, writes the
// marker, and acknowledges the queue; when it crashes before the
// acknowledgement the queue delivers it again, and the marker is what
// stops a second message.
//
// # Rules
//
// The queue delivers the job until a run acknowledges it. A run checks the
// marker (with the marker on) and, finding it, acknowledges and sends
// nothing; otherwise it sends, writes the marker, then acknowledges. The
// first run crashes where crash says: before-marker, after the provider
// sent and before the marker is written; before-ack, after the marker and
// before the acknowledgement; or none.
//
// # Parameters
//
// marker (default on); crash (none, before-marker, before-ack; default
// before-ack).
//
// # Published figures
//
//   - the defaults: 1 message sent. The first run sends, writes the marker
//     and crashes; the redelivered job finds the marker and skips.
//   - without the marker: 2 messages, one per delivery.
//   - a crash before the marker is written: 2 messages even with it: the
//     window between the send and the marker is what a provider's own
//     idempotency key would close.
package sentmarker
