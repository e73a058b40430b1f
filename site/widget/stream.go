package widget

import (
	"strconv"
	"strings"

	"github.com/retrylab/retrylab/engine/stream"
)

// Stream is Kafka's read-process-write pipeline and the email after it:
// which duplicates the producer, the transaction and the isolation level
// stop, and which only a keyed email does.
var Stream = Widget{
	Name:    "stream",
	Chapter: "/exactly-once-in-streams/",
	Title:   "Exactly once in Kafka, and the email after it",
	Summary: "Make the processor's producer plain, idempotent or transactional, read committed records or all of them, key the email or not, and count the records read and the emails sent.",
	Schema:  Schema(stream.Binding.Schema),
	Run:     runStream,
}

func init() { register(&Stream) }

func runStream(v Values) (Run, error) {
	p := stream.Binding.Read(v.Values)
	res, err := stream.Run(p)
	if err != nil {
		return nil, err
	}
	r := &streamRun{p: p, res: res}
	r.states = streamStates(res)
	return r, nil
}

type streamRun struct {
	p      stream.Params
	res    stream.Result
	states []streamState // after each number of steps, 0 to Steps
}

func (r *streamRun) Steps() int { return len(r.res.Trace) }

var streamLanes = map[string]string{"processor": "Processor", "broker": "Broker", "consumer": "Consumer", "provider": "Provider"}

// The state of an output record.
const (
	recPending   = iota // in an open transaction
	recCommitted        // its transaction committed, or written without one
	recAborted          // its transaction was aborted
)

// streamState is what the parts of the pipeline hold after some steps.
type streamState struct {
	log       []int // each output record's state, by position less one
	committed int   // the processor's committed input offset
	crashed   bool  // the processor is down
	restarted bool  // it has restarted once
	read      int   // records the consumer has read, each once
	reading   int   // the position it read last, 0 for none
	offset    int   // its committed offset
	down      bool  // the consumer is down
	emails    [stream.Orders]int
	refused   [stream.Orders]int
}

// streamStates plays the trace once, keeping the state after each step.
func streamStates(res stream.Result) []streamState {
	trace := res.Trace
	out := make([]streamState, len(trace)+1)
	var st streamState
	for i, e := range trace {
		switch e.Kind {
		case stream.Append:
			st.log = append(append([]int(nil), st.log...), when3(e.OK, recPending, recCommitted))
		case stream.Committed:
			st.committed = e.N
			if e.OK {
				st.log = append([]int(nil), st.log...)
				for j := range st.log {
					if st.log[j] == recPending {
						st.log[j] = recCommitted
					}
				}
			}
		case stream.Aborted:
			st.log = append([]int(nil), st.log...)
			st.log[e.N-1] = recAborted
		case stream.Crashed:
			st.crashed = true
		case stream.Restarted:
			st.crashed, st.restarted = false, true
		case stream.Delivered:
			st.reading = e.N
			if e.Detail != "again" {
				st.read++
			}
		case stream.Email:
			st.emails[orderIndex(e.Ref)]++
		case stream.KeySeen:
			st.refused[orderIndex(e.Ref)]++
		case stream.Down:
			st.down = true
		case stream.Resumed:
			st.down = false
		case stream.Advanced:
			st.offset = e.N
		}
		out[i+1] = st
	}
	return out
}

func when3(b bool, yes, no int) int {
	if b {
		return yes
	}
	return no
}

// orderIndex is order_N's index, N less one.
func orderIndex(ref string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(ref, "order_"))
	return n - 1
}

func (s streamState) effects() int {
	n := 0
	for _, e := range s.emails {
		n += e
	}
	return n
}

// Output draws the processor, the output topic, the consumer and the
// emails as they stand after step events, then the story so far. What a
// later step shows has its place from the first (hold.go).
func (r *streamRun) Output(h *HTML, step int) {
	step = clampStep(step, r.Steps())
	st, end := r.states[step], r.states[len(r.states)-1]

	h.Open("div", "class", "w-panels")
	r.processor(h, st)
	r.topic(h, st, end)
	r.consumer(h, st)
	r.emails(h, st)
	h.Close("div")

	res := r.res
	outcome := outcomeAttrs(step, r.Steps(), res.Effects == stream.Orders,
		"data-written", Itoa(len(st.log)), "data-records", Itoa(st.read), "data-effects", Itoa(st.effects()), "data-orders", Itoa(stream.Orders))
	replaying := func(s streamState) string {
		return "Replaying: " + Count(s.read, "output record") + " read, " + Count(s.effects(), "email") + " sent so far."
	}
	now := r.verdict()
	if step < r.Steps() {
		now = replaying(st)
	}
	holdOutcome(h, outcome, now, r.verdict(), replaying(end))
	events(h, res.Trace, step, streamLanes, false)
}

func (r *streamRun) processor(h *HTML, st streamState) {
	h.Open("section", "class", "w-panel"+when(st.crashed, " bad"), "role", "group", "aria-label", "The processor")
	h.Elem("h3", "Processor")
	h.Open("p").Text("Producer: ").Elem("strong", string(r.p.Producer)).Close("p")
	h.Open("p", "class", "w-big").Elem("strong", Itoa(st.committed)).Text(" of " + Itoa(stream.Orders) + " orders committed").Close("p")
	holdOver(h, st, r.states, func(h *HTML, s streamState) {
		switch {
		case s.crashed:
			h.Elem("p", "Crashed before committing.", "class", "w-note bad-text")
		case s.restarted:
			h.Elem("p", "Restarted from its committed offset.", "class", "w-note")
		}
	})
	h.Close("section")
}

func (r *streamRun) topic(h *HTML, st, end streamState) {
	h.Open("section", "class", "w-panel", "role", "group", "aria-label", "The output topic")
	h.Elem("h3", "Output topic")
	written := "committed"
	if r.p.Producer != stream.Transactional {
		written = "written"
	}
	h.Open("ol", "class", "w-rows")
	for i := range end.log {
		held := i >= len(st.log)
		state := end.log[i]
		if !held {
			state = st.log[i]
		}
		cls := [...]string{recPending: "pending", recCommitted: "ok", recAborted: "bad"}[state]
		o := r.res.Log[i]
		label := "order_" + Itoa(o.Order)
		if o.Copy > 1 {
			label += " (copy " + Itoa(o.Copy) + ")"
		}
		// Every state's words share one place, so that a record's row is as
		// tall from the step it is written to the end of the replay.
		h.Open("li", heldAttrs(held, "class", cls)...).Elem("code", label).Text(": ").Open("strong")
		holdTexts(h, state, "in an open transaction", written, "aborted")
		h.Close("strong").Close("li")
	}
	h.Close("ol")
	h.Close("section")
}

func (r *streamRun) consumer(h *HTML, st streamState) {
	h.Open("section", "class", "w-panel"+when(st.down, " bad"), "role", "group", "aria-label", "The consumer")
	h.Elem("h3", "Consumer")
	h.Elem("p", "isolation.level:", "class", "w-note")
	h.Open("p").Elem("strong", string(r.p.Isolation)).Close("p")
	h.Open("p", "class", "w-big").Elem("strong", Itoa(st.read)).Text(" " + Plural(st.read, "record") + " read").Close("p")
	h.Open("p", "class", "w-note").Text("Committed offset: ").Elem("strong", Itoa(st.offset)).Close("p")
	holdOver(h, st, r.states, func(h *HTML, s streamState) {
		if s.down {
			h.Elem("p", "Crashed after an email, before committing.", "class", "w-note bad-text")
		}
	})
	h.Close("section")
}

func (r *streamRun) emails(h *HTML, st streamState) {
	bad := false
	for _, n := range st.emails {
		bad = bad || n > 1
	}
	h.Open("section", "class", "w-panel"+when(bad, " bad"), "role", "group", "aria-label", "The emails")
	h.Elem("h3", "Emails")
	h.Open("ul", "class", "w-rows")
	for i, n := range st.emails {
		cls := when(n > 1, "bad")
		h.Open("li", "class", cls).Elem("code", "order_"+Itoa(i+1)).Text(": ").Elem("strong", Times(n))
		if r.p.Dedupe {
			h.Text(", " + Itoa(st.refused[i]) + " refused")
		}
		h.Close("li")
	}
	h.Close("ul")
	if r.p.Dedupe {
		h.Elem("p", "Each email carries its order id as an idempotency key.", "class", "w-note")
	} else {
		h.Elem("p", "The emails carry no key.", "class", "w-note")
	}
	h.Close("section")
}

func (r *streamRun) verdict() string {
	res, p := r.res, r.p
	s := Count(res.Records, "output record") + " read for " + Itoa(stream.Orders) + " orders, and " + Count(res.Effects, "email")
	var why []string
	if p.Producer == stream.Plain {
		why = append(why, "the plain producer's retry wrote order 1's result twice")
	}
	switch {
	case p.Producer != stream.Transactional:
		why = append(why, "without a transaction, the restarted processor wrote order 2's result again, and both copies count")
	case p.Isolation == stream.ReadUncommitted:
		why = append(why, "read_uncommitted returned the aborted copy of order 2's result")
	default:
		why = append(why, "the crashed transaction was aborted and read_committed skipped it: each result read once")
	}
	if p.Dedupe {
		why = append(why, "the provider refused every repeated order id: one email per order")
	} else {
		why = append(why, "the consumer's crash after an email made it read that record again, and nothing stopped the second email")
	}
	return s + ": " + Clauses(why) + "."
}
