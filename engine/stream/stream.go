// This file is the model: the processor, which reads each order, writes
// its result to the output topic and commits its input offset; the
// broker's output log; and the downstream consumer, which sends an email
// per result record. The published figures are the package's
// documentation (doc.go).

package stream

import (
	"strconv"
	"time"

	"github.com/retrylab/retrylab/engine/sim"
)

// Producer is how the processor's producer is configured.
type Producer string

const (
	Plain         Producer = "plain"         // enable.idempotence=false: a retry is a new write
	Idempotent    Producer = "idempotent"    // a producer id and sequence numbers: the broker drops a retry it has
	Transactional Producer = "transactional" // a transactional.id: idempotent, and each order's output and offset commit together
)

// Producers lists the producer's configurations.
var Producers = []Producer{Plain, Idempotent, Transactional}

// Isolation is the downstream consumer's isolation.level.
type Isolation string

const (
	ReadCommitted   Isolation = "read_committed"   // records of aborted transactions are not returned
	ReadUncommitted Isolation = "read_uncommitted" // every record is returned, aborted or not
)

// Isolations lists the isolation levels.
var Isolations = []Isolation{ReadCommitted, ReadUncommitted}

// Params are the knobs of the stream model.
type Params struct {
	Producer  Producer  // the processor's producer
	Isolation Isolation // the downstream consumer's isolation.level
	Dedupe    bool      // the sink keys each email by order id, and the provider sends a key once
}

// The model's fixed shape and faults.
const (
	Orders          = 3                     // orders in the input topic
	Tick            = 10 * time.Millisecond // each step of the run
	LostAck         = 1                     // the order whose first produce's acknowledgement is lost
	Crash           = 2                     // the order after whose produce the processor crashes, before committing
	ReadsBeforeDown = 2                     // the downstream consumer crashes after its email for the record it reads second
)

// A Record is one record of the output topic.
type Record struct {
	Order   int  // the order it is the result of, 1 to Orders
	Tx      bool // written in a transaction
	Aborted bool // its transaction was aborted
	Copy    int  // 1 for the order's first record in the log, 2 for its second...
}

// Summary is what a run comes to.
type Summary struct {
	Orders  int         `json:"orders"`   // orders in the input topic
	Written int         `json:"written"`  // records in the output topic, aborted ones too
	Aborted int         `json:"aborted"`  // records of aborted transactions
	Records int         `json:"records"`  // output records the downstream consumer read, each counted once
	Effects int         `json:"effects"`  // emails sent
	ByOrder [Orders]int `json:"by_order"` // emails sent for each order
	Seen    [Orders]int `json:"seen"`     // output records read for each order
}

// Result is a run's summary, the output topic as it ends and the trace, in
// lanes "processor", "broker", "consumer" and "provider".
type Result struct {
	Summary
	Log   []Record  `json:"-"`
	Trace sim.Trace `json:"-"`
}

// Run plays the processor over the three orders, then the downstream
// consumer over the output topic. With the defaults: the lost
// acknowledgement's retry is dropped by the broker, the crash's open
// transaction is aborted and order 2 processed again in a new one, and the
// read_committed consumer reads 3 records; it crashes after emailing
// order 2 and reads that record again: 4 emails.
func Run(p Params) (Result, error) {
	if err := p.Validate(); err != nil {
		return Result{}, err
	}
	r := &run{p: p, s: sim.New(0)}
	r.res.Orders = Orders
	r.s.After(Tick, func() { r.process(1, 1) })
	r.s.Run()
	r.res.Trace = r.s.Trace
	return r.res, nil
}

// run is a run in progress.
type run struct {
	p   Params
	s   *sim.Sim
	res Result

	session   int  // the processor's producer session, 1 first
	committed int  // the input offset committed: the orders done
	crashed   bool // the processor has crashed once

	read      int          // output records the consumer has read past, its position
	consumed  int          // its committed offset
	downed    bool         // the consumer has crashed once
	delivered map[int]bool // output positions the consumer has read
	keys      [Orders]bool // order ids the provider has sent an email for
}

// next runs fn one tick later.
func (r *run) next(fn func()) { r.s.After(Tick, fn) }

// process is the processor's handling of order o, in producer session
// session: read it, produce its result, then commit, unless it crashes
// first.
func (r *run) process(o, session int) {
	r.session = session
	tx := r.p.Producer == Transactional
	again := ""
	if r.crashed && o == Crash {
		again = "again"
	}
	r.s.Record(sim.Event{Kind: Read, Lane: "processor", Ref: order(o), N: o, OK: tx, Detail: again})
	r.next(func() { r.produce(o, 1) })
}

// produce is attempt n of order o's result.
func (r *run) produce(o, n int) {
	tx := r.p.Producer == Transactional
	r.s.Record(sim.Event{Kind: Produce, Lane: "processor", To: "broker", Ref: order(o), N: n, M: r.session, OK: tx})
	r.next(func() {
		if n > 1 && r.p.Producer != Plain {
			// The same producer id and sequence number: the broker has the
			// record, and acknowledges it without writing it again.
			r.s.Record(sim.Event{Kind: Duplicate, Lane: "broker", To: "processor", Ref: order(o), N: n, M: r.session})
		} else {
			r.append(o, tx)
		}
		if o == LostAck && n == 1 {
			r.s.Record(sim.Event{Kind: AckLost, Lane: "broker", To: "processor", Ref: order(o), N: n})
			r.next(func() { r.produce(o, n+1) })
			return
		}
		r.next(func() { r.commit(o) })
	})
}

// append writes order o's result to the output log.
func (r *run) append(o int, tx bool) {
	c := 1
	for _, rec := range r.res.Log {
		if rec.Order == o {
			c++
		}
	}
	r.res.Log = append(r.res.Log, Record{Order: o, Tx: tx, Copy: c})
	r.res.Written++
	r.s.Record(sim.Event{Kind: Append, Lane: "broker", Ref: order(o), N: len(r.res.Log), M: c, OK: tx})
}

// commit commits order o's input offset (with its output, in a
// transaction), or crashes before it the first time past order Crash.
func (r *run) commit(o int) {
	if o == Crash && !r.crashed {
		r.crashed = true
		r.s.Record(sim.Event{Kind: Crashed, Lane: "processor", Ref: order(o), N: r.committed})
		r.next(r.restart)
		return
	}
	r.committed = o
	r.s.Record(sim.Event{Kind: Committed, Lane: "processor", Ref: order(o), N: o, OK: r.p.Producer == Transactional})
	if o == Orders {
		r.next(r.consume)
		return
	}
	r.next(func() { r.process(o+1, r.session) })
}

// restart is the processor's new instance: with a transactional.id the
// broker aborts the crashed instance's open transaction; either way it
// goes on from the committed input offset, in a new producer session.
func (r *run) restart() {
	if r.p.Producer == Transactional {
		for i := range r.res.Log {
			if rec := &r.res.Log[i]; rec.Tx && rec.Order > r.committed && !rec.Aborted {
				rec.Aborted = true
				r.res.Aborted++
				r.s.Record(sim.Event{Kind: Aborted, Lane: "broker", Ref: order(rec.Order), N: i + 1})
			}
		}
	}
	r.s.Record(sim.Event{Kind: Restarted, Lane: "processor", N: r.committed + 1, M: r.session + 1, Detail: string(r.p.Producer)})
	r.next(func() { r.process(r.committed+1, r.session+1) })
}

// visible reports whether the consumer's isolation level returns rec.
func (r *run) visible(rec Record) bool {
	return !rec.Aborted || r.p.Isolation == ReadUncommitted
}

// consume is the downstream consumer reading the output topic from its
// position: it emails each record it is returned, then commits past it.
func (r *run) consume() {
	for r.read < len(r.res.Log) && !r.visible(r.res.Log[r.read]) {
		r.read++
	}
	if r.read == len(r.res.Log) {
		return
	}
	pos := r.read + 1
	rec := r.res.Log[r.read]
	if r.delivered == nil {
		r.delivered = map[int]bool{}
	}
	again := ""
	if r.delivered[pos] {
		again = "again"
	} else {
		r.delivered[pos] = true
		r.res.Records++
		r.res.Seen[rec.Order-1]++
	}
	r.s.Record(sim.Event{Kind: Delivered, Lane: "consumer", Ref: order(rec.Order), N: pos, M: rec.Copy, OK: !rec.Aborted, Detail: again})
	r.next(func() {
		i := rec.Order - 1
		if r.p.Dedupe && r.keys[i] {
			r.s.Record(sim.Event{Kind: KeySeen, Lane: "provider", To: "consumer", Ref: order(rec.Order), N: r.res.ByOrder[i]})
		} else {
			r.keys[i] = true
			r.res.Effects++
			r.res.ByOrder[i]++
			r.s.Record(sim.Event{Kind: Email, Lane: "consumer", To: "provider", Ref: order(rec.Order), N: r.res.ByOrder[i], OK: r.p.Dedupe})
		}
		r.next(func() { r.consumerCommit(pos) })
	})
}

// consumerCommit commits the consumer's offset past position pos, or
// crashes before it on the record it reads second.
func (r *run) consumerCommit(pos int) {
	if !r.downed && len(r.delivered) == ReadsBeforeDown {
		r.downed = true
		r.s.Record(sim.Event{Kind: Down, Lane: "consumer", N: r.consumed})
		r.next(func() {
			r.read = r.consumed
			r.s.Record(sim.Event{Kind: Resumed, Lane: "consumer", N: r.consumed + 1})
			r.next(r.consume)
		})
		return
	}
	r.read, r.consumed = pos, pos
	r.s.Record(sim.Event{Kind: Advanced, Lane: "consumer", N: pos})
	r.next(r.consume)
}

func order(o int) string { return "order_" + strconv.Itoa(o) }

// events are the model's kinds of event; say writes their sentences.
var events sim.Family

// Kinds of the trace's events. Ref is the order's id; N and M as each
// says.
var (
	Read      = events.Kind("read")      // the processor reads order N from the input topic: OK in a new transaction, Detail "again" after its crash
	Produce   = events.Kind("produce")   // it sends the order's result, attempt N, in producer session M: OK transactional
	Append    = events.Kind("append")    // the broker writes the result at position N of the output topic, the order's record M: OK in a transaction
	Duplicate = events.Kind("duplicate") // the broker has this producer id and sequence number: it acknowledges attempt N without writing it
	AckLost   = events.Kind("ack-lost")  // the acknowledgement of attempt N is lost: the producer sends it again
	Committed = events.Kind("commit")    // the processor commits input offset N: OK with the output, in the transaction
	Crashed   = events.Kind("crash")     // the processor crashes before committing; N is the orders committed
	Aborted   = events.Kind("abort")     // the new instance's initTransactions aborts the open transaction: position N is aborted
	Restarted = events.Kind("restart")   // the processor restarts at order N, producer session M: Detail the producer's configuration
	Delivered = events.Kind("deliver")   // the consumer is returned position N, the order's record M: OK committed (not aborted), Detail "again" when read before
	Email     = events.Kind("email")     // the sink's email for the order is sent, its Nth: OK keyed by the order id
	KeySeen   = events.Kind("key-seen")  // the provider has the order id's key: no email
	Down      = events.Kind("down")      // the consumer crashes after the email, before committing; N its committed offset
	Resumed   = events.Kind("resume")    // the consumer restarts, reading from position N
	Advanced  = events.Kind("advance")   // the consumer commits its offset past position N
)

// The kinds' sentences are written from the fields, when shown.
func init() { events.Say(say) }

func say(e sim.Event) string {
	n := strconv.Itoa(e.N)
	switch e.Kind {
	case Read:
		s := "The processor reads " + e.Ref
		if e.Detail == "again" {
			s += " again"
		}
		if e.OK {
			s += " and begins a transaction"
		}
		return s + "."
	case Produce:
		if e.N > 1 {
			return "The producer sends " + e.Ref + "'s result again, with the same sequence number (attempt " + n + ")."
		}
		return "The processor sends " + e.Ref + "'s result to the output topic."
	case Append:
		s := "The broker writes it at position " + n
		if e.M > 1 {
			s += ": " + e.Ref + "'s record " + strconv.Itoa(e.M)
		}
		if e.OK {
			s += ", pending its transaction"
		}
		return s + "."
	case Duplicate:
		return "The broker has that producer id and sequence number: it acknowledges without writing."
	case AckLost:
		return "The broker's acknowledgement is lost on the way back."
	case Committed:
		if e.OK {
			return "The transaction commits " + e.Ref + "'s result with input offset " + n + "."
		}
		return "The processor commits input offset " + n + "."
	case Crashed:
		return "The processor crashes after sending " + e.Ref + "'s result, before committing."
	case Aborted:
		return "Its new instance's initTransactions aborts the open transaction: position " + n + " is aborted."
	case Restarted:
		s := "The processor restarts at order " + n + ", the first uncommitted"
		switch Producer(e.Detail) {
		case Idempotent:
			s += ", with a new producer id"
		case Transactional:
			s += ": initTransactions fences the crashed instance"
		}
		return s + "."
	case Delivered:
		s := "The consumer reads position " + n + " (" + e.Ref + ")"
		if e.Detail == "again" {
			s += " again"
		}
		if !e.OK {
			s += ", from an aborted transaction"
		}
		return s + "."
	case Email:
		if e.N > 1 {
			return "The sink emails " + e.Ref + " again: email " + n + "."
		}
		return "The sink emails " + e.Ref + "."
	case KeySeen:
		return "The provider has " + e.Ref + "'s key: no second email."
	case Down:
		return "The consumer crashes after the email, before committing its offset."
	case Resumed:
		return "The consumer restarts, reading from position " + n + "."
	case Advanced:
		return "The consumer commits its offset past position " + n + "."
	}
	return e.Kind.String()
}
