package widget

import (
	"strconv"
	"strings"
	"time"

	"github.com/retrylab/retrylab/engine/guard"
	"github.com/retrylab/retrylab/engine/sim"
)

// Guard is twenty identical requests with one key arriving at once, and
// three ways a handler can try to charge once.
var Guard = Widget{
	Name:    "guard",
	Chapter: "/concurrent-duplicates/",
	Title:   "Twenty duplicates at the same instant",
	Summary: "Send one request many times at once and see which guard charges the card once.",
	Schema:  Schema(guard.Binding.Schema),
	Run:     runGuard,
}

func init() { register(&Guard) }

func runGuard(v Values) (Run, error) {
	p := guard.Binding.Read(v.Values)
	res, err := guard.Run(p)
	if err != nil {
		return nil, err
	}
	r := &guardRun{res: res, p: p}
	// A step is an instant of the shared timeline: every event at that
	// virtual time, one per lane at most. starts[k] is where instant k
	// begins in the trace; starts[len] is the trace's end.
	for i, e := range res.Trace {
		if i == 0 || e.At != res.Trace[i-1].At {
			r.starts = append(r.starts, i)
			if isBurst(e.Lane) {
				r.burst++
			}
		}
	}
	r.starts = append(r.starts, len(res.Trace))
	return r, nil
}

type guardRun struct {
	res    guard.Result
	p      guard.Params
	starts []int // the trace index where each instant begins, and the trace's length
	burst  int   // instants of the burst; the follow-ups' come after them
}

func (r *guardRun) Steps() int { return len(r.starts) - 1 }

// isBurst tells the burst's lanes ("req-N") from the follow-ups'.
func isBurst(lane string) bool { return strings.HasPrefix(lane, "req-") }

// laneNo is the request number of a burst lane: "req-3" is 3.
func laneNo(lane string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(lane, "req-"))
	return n
}

// guardState is what the trace says up to a step.
type guardState struct {
	rows          int             // rows for the key
	charges       int             // the burst's charges
	followCharges int             // the follow-ups' charges
	pays          []string        // the card network's payments, in order, burst and follow-ups
	statuses      map[int]int     // the burst's answers so far, per status code
	answered      int             // requests of the burst that have answered
	saved         string          // the payment saved on the key row (claim-before-work)
	charged       map[string]bool // the lanes that have charged the card
	aborts        int             // the burst's transactions refused with 40001
}

func (r *guardRun) state(upTo int) guardState {
	s := guardState{statuses: map[int]int{}, charged: map[string]bool{}}
	for _, e := range r.res.Trace[:upTo] {
		switch e.Kind {
		case guard.Insert:
			s.rows++
		case guard.Charge:
			s.pays = append(s.pays, e.Ref)
			s.charged[e.Lane] = true
			if isBurst(e.Lane) {
				s.charges++
			} else {
				s.followCharges++
			}
		case guard.Abort:
			if isBurst(e.Lane) {
				s.aborts++
			}
		case guard.Update:
			s.saved = e.Ref
		case guard.Answered:
			if isBurst(e.Lane) {
				s.statuses[r.answerOf(e.Lane).Status]++
				s.answered++
			}
		}
	}
	return s
}

// answerOf is the answer a lane ends with.
func (r *guardRun) answerOf(lane string) guard.Answer {
	switch lane {
	case "retry":
		return r.res.Retry
	case "other":
		return r.res.Other
	}
	if n := laneNo(lane); n >= 1 && n <= len(r.res.Answers) {
		return r.res.Answers[n-1]
	}
	return guard.Answer{}
}

// statusList writes counts per status code as "201:1,409:19", codes in
// order: the form of data-statuses.
func statusList(m map[int]int) string {
	codes := sortedCodes(m)
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = Itoa(c) + ":" + Itoa(m[c])
	}
	return strings.Join(parts, ",")
}

// Output draws the three things a reader watches (the card network, the
// table and its index, the answers), then the timeline, one lane per
// request and one column per instant, then the follow-ups.
func (r *guardRun) Output(h *HTML, step int) {
	steps := r.Steps()
	step = clampStep(step, steps)
	upTo := r.starts[step]
	s := r.state(upTo)
	done := step == steps
	// What the last step shows has its place from the first (hold.go).
	end := r.state(r.starts[steps])

	h.Open("div", "class", "g-panels")
	// The card network.
	cls := "g-panel g-card"
	if s.charges > 1 {
		cls += " bad"
	}
	h.Open("section", "class", cls, "role", "group", "aria-label", "The card network")
	h.Elem("h3", "Card network")
	h.Open("p", "class", "g-big").Elem("strong", Figure(s.charges)).Text(" " + Plural(s.charges, "charge") + " by the burst").Close("p")
	if len(end.pays) > 0 {
		h.Open("ul", heldAttrs(len(s.pays) == 0, "class", "g-pays", "aria-label", "Payments charged")...)
		for i, p := range end.pays {
			h.Elem("li", p, heldAttrs(i >= len(s.pays), "class", when(i >= s.charges, "after"))...)
		}
		h.Close("ul")
	}
	if end.followCharges > 0 {
		h.Elem("p", "+"+Figure(max(s.followCharges, 1))+" by the follow-ups", heldAttrs(s.followCharges == 0, "class", "g-note bad-text")...)
	}
	h.Close("section")

	// The table and its unique index.
	table, index := "payments", "no unique index on key"
	switch r.p.Strategy {
	case guard.ConstraintAfterCharge:
		index = "UNIQUE (key)"
	case guard.ClaimBeforeWork:
		table, index = "idempotency_keys", "UNIQUE (key)"
	}
	h.Open("section", "class", "g-panel g-db", "role", "group", "aria-label", "The database table")
	h.Open("h3").Text("Table ").Elem("code", table).Close("h3")
	h.Elem("p", index, "class", "g-index"+when(r.p.Strategy != guard.CheckThenInsert, " on"))
	h.Open("p", "class", "g-big").Elem("strong", Figure(s.rows)).Text(" " + Plural(s.rows, "row") + " for " + guard.Key).Close("p")
	if end.aborts > 0 {
		n := max(s.aborts, 1)
		h.Elem("p", Figure(n)+" × 40001: "+Plural(n, "transaction")+" rolled back by a serialization failure and run again", heldAttrs(s.aborts == 0, "class", "g-note bad-text")...)
	}
	if r.p.Strategy == guard.ClaimBeforeWork && end.rows > 0 {
		h.Open("p", heldAttrs(s.rows == 0, "class", "g-note")...)
		holdTexts(h, 0, savedText(s.saved), savedText(end.saved))
		h.Close("p")
	}
	h.Close("section")

	// The answers.
	h.Open("section", "class", "g-panel g-answers", "role", "group", "aria-label", "The answers")
	h.Elem("h3", "Answers")
	h.Open("ul", "class", "g-statuses")
	for _, c := range sortedCodes(end.statuses) {
		n := s.statuses[c]
		if n == 0 { // held: its place, at the count it ends with
			n = end.statuses[c]
		}
		h.Open("li", heldAttrs(s.statuses[c] == 0, "class", "s"+Itoa(c))...).Elem("strong", Itoa(c)).Text(" × " + Figure(n)).Close("li")
	}
	if waiting := r.p.N - s.answered; r.p.N > 0 {
		h.Elem("li", Figure(max(waiting, 1))+" waiting", heldAttrs(waiting == 0, "class", "waiting")...)
	}
	h.Close("ul")
	h.Close("section")
	h.Close("div")

	r.timeline(h, step, s)
	r.afterwards(h, step)

	outcome := outcomeAttrs(step, steps, s.charges <= 1,
		"data-rows", Itoa(s.rows), "data-charges", Itoa(s.charges), "data-statuses", statusList(s.statuses), "data-aborts", Itoa(s.aborts))
	holdOutcome(h, outcome, r.verdict(s, done), r.verdict(end, true), r.verdict(end, false))
}

// savedText is what the key holds for an answer.
func savedText(saved string) string {
	if saved == "" {
		return "no answer saved yet"
	}
	return "answer saved: 201 " + saved
}

// cell is how an event shows in its lane: a short code and a class.
func cell(e sim.Event, a guard.Answer) (code, class string) {
	switch e.Kind {
	case guard.Select:
		if !e.OK {
			return "none", "k-read"
		}
		return "found", "k-read"
	case guard.Card:
		return "card", "k-card"
	case guard.Charge:
		return "$", "k-charge"
	case guard.Insert:
		if e.OK {
			return "claim", "k-insert"
		}
		return "row", "k-insert"
	case guard.Conflict:
		return "✕", "k-conflict"
	case guard.Abort:
		return "40001", "k-conflict"
	case guard.Update:
		return "save", "k-save"
	case guard.Answered:
		code = Itoa(a.Status)
		if a.Replayed {
			code += "↺"
		}
		return code, "k-answer s" + Itoa(a.Status)
	}
	return e.Kind.String(), "k-other"
}

// timeline writes the burst as a table: a row per request, a column per
// instant; events not yet reached keep their place, hidden.
func (r *guardRun) timeline(h *HTML, step int, s guardState) {
	type pos struct{ lane, col int }
	cells := map[pos]int{} // trace index of the event in each cell
	for k := 0; k < r.burst; k++ {
		for i := r.starts[k]; i < r.starts[k+1]; i++ {
			if e := r.res.Trace[i]; isBurst(e.Lane) {
				cells[pos{laneNo(e.Lane), k}] = i
			}
		}
	}
	now := step - 1 // the instant a replay has just reached
	if step == r.Steps() {
		now = -1
	}
	openScroller(h, "g-scroll", "Timeline: one lane per request")
	h.Open("table", "class", "g-lanes", "data-figure", "system")
	h.Elem("caption", "One lane per request; one column per step of the shared timeline ("+Itoa(int(guard.Step/time.Millisecond))+" ms each).")
	h.Open("thead").Open("tr").Elem("th", "Request", "scope", "col", "class", "g-lane")
	for k := 0; k < r.burst; k++ {
		h.Elem("th", Itoa(k+1), "scope", "col", "class", when(k == now, "now"))
	}
	h.Close("tr").Close("thead")
	h.Open("tbody")
	for n := 1; n <= r.p.N; n++ {
		lane := "req-" + Itoa(n)
		a := r.answerOf(lane)
		h.Open("tr", "class", when(s.charged[lane], "charged"))
		h.Elem("th", "#"+Itoa(n), "scope", "row", "class", "g-lane")
		for k := 0; k < r.burst; k++ {
			i, ok := cells[pos{n, k}]
			if !ok {
				h.Elem("td", "", "class", when(k == now, "now"))
				continue
			}
			r.eventCell(h, i, a, i >= r.starts[step], k == now)
		}
		h.Close("tr")
	}
	h.Close("tbody").Close("table").Close("div")
	h.Open("p", "class", "g-legend", "aria-hidden", "true")
	legend := [][2]string{
		{"k-read", "none"}, {"", "SELECT finds no row;"}, {"k-read", "found"}, {"", "finds one;"},
		{"k-card", "card"}, {"", "at the card network;"}, {"k-charge", "$"}, {"", "the card is charged;"},
		{"k-insert", "row"}, {"k-insert", "claim"}, {"", "INSERT succeeds;"}, {"k-conflict", "✕"}, {"", "the unique index refuses it;"},
	}
	if r.res.Aborts > 0 {
		legend = append(legend, [2]string{"k-conflict", "40001"}, [2]string{"", "serialization failure: the transaction rolls back and runs again;"})
	}
	legend = append(legend,
		[2]string{"k-save", "save"}, [2]string{"", "the answer is saved on the key;"}, [2]string{"k-answer s201", "201"}, [2]string{"k-answer s409", "409"}, [2]string{"", "the answer (↺ a replay)."})
	for _, l := range legend {
		if l[0] == "" {
			h.Text(" " + l[1] + " ")
		} else {
			h.Elem("span", l[1], "class", "g-code "+l[0])
		}
	}
	h.Close("p")
}

func (r *guardRun) eventCell(h *HTML, i int, a guard.Answer, future, now bool) {
	e := r.res.Trace[i]
	code, cls := cell(e, a)
	cls = "g-ev " + cls
	if future {
		cls += " future"
	}
	if now {
		cls += " now"
	}
	text := e.Sentence()
	h.Open("td", "class", cls, "title", text)
	h.Elem("span", code, "class", "g-code", "aria-hidden", "true")
	if !future {
		h.Elem("span", text, "class", "w-sr")
	}
	h.Close("td")
}

// afterwards writes the two follow-ups, each alone a second after the
// burst: a retry with the same body, then the same key with another amount.
func (r *guardRun) afterwards(h *HTML, step int) {
	h.Open("div", "class", "g-after")
	h.Elem("h3", "A second later, one at a time")
	h.Open("table", "class", "g-lanes")
	h.Elem("caption", "Two follow-ups after the burst has answered: the same request again, then the same key with another amount.")
	h.Open("tbody")
	last := r.starts[step] - 1
	if step == r.Steps() {
		last = -1
	}
	for _, f := range []struct{ lane, label string }{
		{"retry", "retry"},
		{"other", "other"},
	} {
		a := r.answerOf(f.lane)
		h.Open("tr")
		h.Elem("th", f.label, "scope", "row", "class", "g-lane")
		for i := r.starts[r.burst]; i < len(r.res.Trace); i++ {
			if r.res.Trace[i].Lane == f.lane {
				r.eventCell(h, i, a, i >= r.starts[step], i == last)
			}
		}
		h.Close("tr")
	}
	h.Close("tbody").Close("table")
	h.Close("div")
}

func (r *guardRun) verdict(s guardState, done bool) string {
	if !done {
		return "Replaying: " + Count(s.charges, "charge") + " and " + Count(s.rows, "row") + " so far."
	}
	n := r.p.N
	text := ""
	switch {
	case n == 1:
		text = "One request: " + Count(s.rows, "row") + " and " + Count(s.charges, "charge") + "; there was nothing to race with."
	case r.p.Strategy == guard.ClaimBeforeWork:
		text = Count(s.charges, "charge") + " for " + Count(n, "request") + ": only the request that claimed the key charged; the others answered " +
			statusWords(s.statuses, 201) + "."
	case s.aborts > 0:
		text = Count(s.rows, "row") + ", but " + Count(s.charges, "charge") + ": " + Figure(s.aborts) + " " + Plural(s.aborts, "transaction") +
			" failed with a serialization failure (SQLSTATE 40001) after charging the card. The rollback kept the table clean; it could not take back a charge. " +
			"Run again, each found the row and replayed its 201."
	case s.rows < s.charges:
		text = Count(s.rows, "row") + ", but " + Count(s.charges, "charge") + ": every request charged the card before the unique index refused its row. " +
			"The table looks clean; the card statement does not."
	case s.charges == 1:
		text = "1 row and 1 charge: only the first request read the key before its row existed; the others found the row and replayed its answer."
	case s.charges == n:
		text = Count(s.rows, "row") + " and " + Count(s.charges, "charge") + ": all " + Count(n, "request") +
			" read the key before any row existed, and each of them charged."
	default:
		text = Count(s.rows, "row") + " and " + Count(s.charges, "charge") + ": " + Figure(s.charges) + " of the " + Count(n, "request") +
			" read the key before any row existed, and each of them charged; the others found a row and replayed it."
	}
	return text + " Afterwards a retry answers " + answerWords(r.res.Retry) + "; the same key with " + Money(guard.OtherAmount) +
		" answers " + answerWords(r.res.Other) + "."
}

// statusWords lists the counts other than skip's: "409 (19)".
func statusWords(m map[int]int, skip int) string {
	var parts []string
	for _, c := range sortedCodes(m) {
		k := m[c]
		if c == skip {
			k-- // the winner's own answer
		}
		if k > 0 {
			parts = append(parts, Itoa(c)+" ("+Figure(k)+")")
		}
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return List(parts)
}

func answerWords(a guard.Answer) string {
	s := Itoa(a.Status)
	if a.Payment != "" {
		s += " " + a.Payment
	}
	if a.Replayed {
		s += ", replayed"
	}
	if a.Charged {
		s += ", after charging the card again"
	}
	return s
}

// sortedCodes returns m's status codes in increasing order. A run answers
// with a handful of codes, so an insertion sort does: sort.Ints would link
// a pdqsort of its own for []int into the page's module.
func sortedCodes(m map[int]int) []int {
	codes := make([]int, 0, len(m))
	for c := range m {
		i := len(codes)
		codes = append(codes, c)
		for ; i > 0 && codes[i-1] > c; i-- {
			codes[i] = codes[i-1]
		}
		codes[i] = c
	}
	return codes
}
