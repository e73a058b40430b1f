package widget

import (
	"strings"
	"time"

	"github.com/retrylab/retrylab/engine/lock"
	"github.com/retrylab/retrylab/engine/sim"
	"github.com/retrylab/retrylab/site/chart"
)

// Lock is the Redis key-store simulator: identical keyed requests against
// GET-then-SET or a SET NX lock beside the result, under a crash, a slow
// charge, an eviction or an outage of the store.
var Lock = Widget{
	Name:    "lock",
	Chapter: "/redis-key-store/",
	Title:   "An idempotency key store in Redis",
	Summary: "Send the same keyed payment twice, guard it with GET-then-SET or a SET NX lock, then crash the server, slow the charge, evict the keys or take Redis down, and count the charges.",
	Schema:  Schema(lock.Binding.Schema),
	Run:     runLock,
}

func init() { register(&Lock) }

func runLock(v Values) (Run, error) {
	p := lock.Binding.Read(v.Values)
	res, err := lock.Run(p)
	if err != nil {
		return nil, err
	}
	lanes := map[string]string{"server": "Server", "store": "Redis", "processor": "Card"}
	for i := 1; i <= p.Dupes; i++ {
		lanes["sender-"+Itoa(i)] = "Sender " + Itoa(i)
	}
	return &lockRun{p: p, res: res, lanes: lanes}, nil
}

type lockRun struct {
	p     lock.Params
	res   lock.Result
	lanes map[string]string
}

func (r *lockRun) Steps() int { return len(r.res.Trace) }

// lockState is what the trace says up to a step: the keys' lives, the
// charges, the answers the senders got.
type lockState struct {
	now          time.Duration
	lock, result []life
	charges      []charge
	crash        *time.Duration
	sends        []time.Duration // the time of every send
	answers      map[sim.Kind]int
	gaveUp       int
}

// life is one life of a key: set at from with an expiry, cut short by an
// eviction.
type life struct {
	from, until time.Duration // until: the expiry, or the eviction
	evicted     bool
	value       string // the result key's charge
}

type charge struct {
	id string
	at time.Duration
}

func (r *lockRun) state(step int) lockState {
	st := lockState{answers: map[sim.Kind]int{}}
	seen := r.res.Trace[:step]
	if step > 0 {
		st.now = seen[step-1].At
	}
	// set starts a key's life; a SET ends the life it overwrites.
	set := func(lives []life, e sim.Event, value string) []life {
		for i := range lives {
			if l := &lives[i]; l.from <= e.At && e.At < l.until {
				l.until = e.At
			}
		}
		return append(lives, life{from: e.At, until: e.At + time.Duration(e.N)*time.Second, value: value})
	}
	evict := func(lives []life, at time.Duration) {
		for i := range lives {
			if l := &lives[i]; l.from <= at && at < l.until {
				l.until, l.evicted = at, true
			}
		}
	}
	for _, e := range seen {
		switch e.Kind {
		case lock.EvSend:
			st.sends = append(st.sends, e.At)
		case lock.EvLock:
			st.lock = set(st.lock, e, "")
		case lock.EvSave:
			st.result = set(st.result, e, e.Ref)
		case lock.EvEvict:
			evict(st.lock, e.At)
			evict(st.result, e.At)
		case lock.EvCharge:
			st.charges = append(st.charges, charge{e.Ref, e.At})
		case lock.EvCrash:
			at := e.At
			st.crash = &at
		case lock.EvCreated, lock.EvReplay, lock.EvConflict, lock.EvUnavailable, lock.EvTimeout, lock.EvLost:
			st.answers[e.Kind]++
		case lock.EvGiveUp:
			st.gaveUp++
		}
	}
	return st
}

// live is the life of a key at now, if it has one.
func live(lives []life, now time.Duration) (life, bool) {
	for _, l := range lives {
		if l.from <= now && now < l.until {
			return l, true
		}
	}
	return life{}, false
}

// down reports whether the store is unreachable at now.
func (r *lockRun) down(now time.Duration) bool {
	return r.p.Store == lock.Down && now < r.p.Outage
}

// Output draws what the client sent, the two keys in Redis and the card,
// as they stand after step events; then the keys' lives on a time line,
// the outcome, and every event, those not yet reached hidden.
func (r *lockRun) Output(h *HTML, step int) {
	step = clampStep(step, r.Steps())
	st := r.state(step)
	done := step == r.Steps()

	// What the last step shows has its place from the first (hold.go).
	end := r.state(r.Steps())
	h.Open("div", "class", "w-panels lk-panels")
	r.clientPanel(h, st, end)
	r.redisPanel(h, st)
	r.cardPanel(h, st, end)
	h.Close("div")

	r.timeline(h, st)

	s := r.res.Summary
	figures := []string{"data-charges", Itoa(len(st.charges)), "data-sends", Itoa(len(st.sends)),
		"data-conflicts", Itoa(st.answers[lock.EvConflict]), "data-replays", Itoa(st.answers[lock.EvReplay]),
		"data-unavailable", Itoa(st.answers[lock.EvUnavailable])}
	if done {
		at := "never"
		if s.DoneAt != nil {
			at = chart.Number(*s.DoneAt)
		}
		figures = append(figures, "data-done-at", at)
	}
	outcome := outcomeAttrs(step, r.Steps(), s.Charges == 1 && s.GaveUp == 0, figures...)
	now := r.verdict()
	if !done {
		now = replayingLock(st)
	}
	holdOutcome(h, outcome, now, r.verdict(), replayingLock(end))
	events(h, r.res.Trace, step, r.lanes, false)

}

// replayingLock is the outcome while a replay is under way.
func replayingLock(st lockState) string {
	return "Replaying, t = " + secs(st.now) + ": " + Count(len(st.charges), "charge") + " and " + Count(len(st.sends), "request") + " so far."
}

// secs writes a virtual time in whole seconds with the unit: "300 s".
func secs(d time.Duration) string { return chart.Number(d.Seconds()) + " s" }

func (r *lockRun) clientPanel(h *HTML, st, end lockState) {
	h.Open("section", "class", "w-panel", "role", "group", "aria-label", "What the client sends")
	h.Elem("h3", "Client")
	h.Open("p").Text(Count(r.p.Dupes, "sender")+", one payment, one ").Elem("code", "Idempotency-Key").Close("p")
	h.Open("p", "class", "w-big").Elem("strong", Itoa(len(st.sends))).Text(" " + Plural(len(st.sends), "request") + " sent").Close("p")
	h.Open("ul", "class", "w-rows lk-answers")
	for _, a := range []struct {
		kind  sim.Kind
		label string
		cls   string
	}{
		{lock.EvCreated, "201 Created", "ok"},
		{lock.EvReplay, "replayed 201", "ok"},
		{lock.EvConflict, "409 in progress", "skip"},
		{lock.EvUnavailable, "503 unavailable", "skip"},
		{lock.EvTimeout, "no answer in time", "skip"},
	} {
		if n := st.answers[a.kind]; end.answers[a.kind] > 0 {
			h.Open("li", heldAttrs(n == 0, "class", a.cls)...).Elem("strong", Itoa(max(n, 1))).Text(" × " + a.label).Close("li")
		}
	}
	if end.gaveUp > 0 {
		h.Open("li", heldAttrs(st.gaveUp == 0, "class", "bad-text")...).Elem("strong", Itoa(max(st.gaveUp, 1))).Text(" gave up").Close("li")
	}
	h.Close("ul")
	h.Close("section")
}

func (r *lockRun) redisPanel(h *HTML, st lockState) {
	cls := "w-panel lk-redis"
	if r.down(st.now) {
		cls += " bad"
	}
	h.Open("section", "class", cls, "role", "group", "aria-label", "The keys in Redis")
	h.Elem("h3", "Redis")
	if r.p.Store == lock.Down {
		down := r.down(st.now)
		h.Open("div", "class", "w-hold")
		h.Elem("p", "Unreachable until t = "+secs(r.p.Outage)+".", heldAttrs(!down, "class", "bad-text")...)
		h.Elem("p", "Was unreachable until t = "+secs(r.p.Outage)+".", heldAttrs(down, "class", "w-note")...)
		h.Close("div")
	}
	if r.p.Guard == lock.None {
		h.Elem("p", "Not used: the server has no guard.", "class", "empty")
		h.Close("section")
		return
	}
	h.Open("dl", "class", "lk-keys")
	if r.p.Guard == lock.SetNX {
		keyState(h, "lock:{account}:{key}", st.lock, st.now, "taken")
	}
	keyState(h, "idem:{account}:{key}", st.result, st.now, "")
	h.Close("dl")
	h.Close("section")
}

// keyState writes a key and what it holds at now: its value and the TTL
// left, or how it went.
func keyState(h *HTML, name string, lives []life, now time.Duration, value string) {
	h.Open("dt").Elem("code", name).Close("dt")
	if l, ok := live(lives, now); ok {
		if l.value != "" {
			value = l.value
		}
		h.Open("dd", "class", "lk-set").Elem("strong", value).Text(" · TTL " + secs(l.until-now) + " left").Close("dd")
		return
	}
	text := "absent"
	if n := len(lives); n > 0 && lives[n-1].from <= now {
		if l := lives[n-1]; l.evicted {
			text = "evicted at t = " + secs(l.until)
		} else {
			text = "expired at t = " + secs(l.until)
		}
	}
	h.Elem("dd", text, "class", "empty")
}

// maxChips is the most charges the card names, one chip each, and the
// most charges and key lives the time line's description names: the rest
// are counted (10,000 charges are possible, which would bury the widget
// and its description).
const maxChips = 12

func (r *lockRun) cardPanel(h *HTML, st, end lockState) {
	cls := "w-panel"
	if len(st.charges) > 1 {
		cls += " bad"
	}
	h.Open("section", "class", cls, "role", "group", "aria-label", "The card's charges")
	h.Elem("h3", "Card")
	h.Open("p", "class", "w-big").Elem("strong", Itoa(len(st.charges))).Text(" " + Plural(len(st.charges), "charge")).Close("p")
	if len(end.charges) > 0 {
		h.Open("ul", heldAttrs(len(st.charges) == 0, "class", "w-chips")...)
		for i, c := range end.charges[:min(len(end.charges), maxChips)] {
			h.Elem("li", c.id, heldAttrs(i >= len(st.charges), "class", when(i > 0, "dup"))...)
		}
		if more := len(end.charges) - maxChips; more > 0 {
			h.Elem("li", "and "+Figure(max(1, len(st.charges)-maxChips))+" more", heldAttrs(len(st.charges) <= maxChips, "class", "dup")...)
		}
		h.Close("ul")
	}
	if end.crash != nil {
		h.Elem("p", "The server crashed at t = "+secs(*end.crash)+".", heldAttrs(st.crash == nil, "class", "bad-text")...)
	}
	h.Close("section")
}

// timeline draws the run on one time axis, one lane per row: the sends,
// the lock key's and the result key's lives (the TTL still to run paler),
// the charges; a line marks the step's time, a band the store's outage.
func (r *lockRun) timeline(h *HTML, st lockState) {
	// The axis runs to the last event or the last lock's expiry, whichever
	// is later, so that the lock's whole life shows; a result kept for a
	// day runs off its end.
	end := 1.0
	if n := len(r.res.Trace); n > 0 {
		end = max(end, r.res.Trace[n-1].At.Seconds())
	}
	for _, l := range r.state(r.Steps()).lock {
		end = max(end, l.until.Seconds())
	}
	ticks := chart.Ticks(0, end, 5)
	a := lockAxis{span: ticks[len(ticks)-1]}

	type lane struct {
		label string
		draw  func(y int) // y: the top of the lane's mark, 13 px high
	}
	lanes := []lane{{"Requests sent", func(y int) { a.sends(h, st.sends, y) }}}
	if r.p.Guard == lock.SetNX {
		lanes = append(lanes, lane{"Lock key, EX " + chart.Number(r.p.LockTTL.Seconds()), func(y int) { a.lives(h, st.lock, "lk-lock", st.now, y) }})
	}
	if r.p.Guard != lock.None {
		lanes = append(lanes, lane{"Result key, EX " + chart.Number(r.p.ResultTTL.Seconds()), func(y int) { a.lives(h, st.result, "lk-result", st.now, y) }})
	}
	lanes = append(lanes, lane{"Charges", func(y int) { a.charges(h, st, y) }})

	const row = 36 // a lane: its label, its marks, a gap
	height := row*len(lanes) + 20
	h.Open("figure", "class", "lk-time")
	h.Open("svg", "class", "chart lk-chart", "role", "img", "width", "100%", "height", Itoa(height),
		"xmlns", "http://www.w3.org/2000/svg")
	h.Elem("title", "The keys in Redis over time, to t = "+chart.Number(a.span)+" s")
	h.Elem("desc", r.describe(st))
	if r.p.Store == lock.Down && st.now > 0 {
		h.Void("rect", "class", "lk-down", "x", "0", "y", "0", "width", a.x(min(r.p.Outage, st.now)), "height", Itoa(row*len(lanes)))
	}
	for i, l := range lanes {
		y := i * row
		h.Elem("text", l.label, "class", "lk-lanename", "x", "0", "y", Itoa(y+11))
		h.Void("line", "class", "lk-base", "x1", "0", "x2", "100%", "y1", Itoa(y+30), "y2", Itoa(y+30))
		l.draw(y + 15)
	}
	h.Void("line", "class", "lk-now", "x1", a.x(st.now), "x2", a.x(st.now), "y1", "14", "y2", Itoa(row*len(lanes)))
	for i, tk := range ticks {
		anchor := "middle"
		switch i {
		case 0:
			anchor = "start"
		case len(ticks) - 1:
			anchor = "end"
		}
		h.Elem("text", chart.Number(tk)+when(i == len(ticks)-1, " s"), "class", "lk-tick", "x", percent(tk/a.span*lockPlot), "y", Itoa(height-4), "text-anchor", anchor)
	}
	h.Close("svg")
	if r.p.Store == lock.Down {
		h.Open("p", "class", "w-note lk-legend").Elem("span", "", "class", "w-swatch trigger", "aria-hidden", "true").
			Text(" Redis unreachable, t = 0 to " + secs(r.p.Outage)).Close("p")
	}
	h.Close("figure")
}

// lockPlot is the share of the time line's width the axis takes: a
// little room is kept on the right for a mark at the last instant, and a
// key that outlives the axis runs into it.
const lockPlot = 0.97

// lockAxis places times on the time line, whose axis runs to span
// seconds.
type lockAxis struct{ span float64 }

func (a lockAxis) frac(d time.Duration) float64 { return min(d.Seconds()/a.span*lockPlot, 1) }
func (a lockAxis) x(d time.Duration) string     { return percent(a.frac(d)) }

// bin is the place of d in 500ths of the width: marks closer than that
// (a pixel or so) are drawn as one, with their count. 100 senders of 100
// attempts make 10,000 sends and as many charges, which one mark each
// would write as megabytes of SVG for the page to lay out.
func (a lockAxis) bin(d time.Duration) int { return int(a.frac(d) * 500) }

func (a lockAxis) width(from, to time.Duration) string {
	return percent(max(0, a.frac(to)-a.frac(from)))
}

// sends draws a mark for each send, or for the sends at one place with
// their count.
func (a lockAxis) sends(h *HTML, sends []time.Duration, y int) {
	for i := 0; i < len(sends); {
		j := i
		for j < len(sends) && a.bin(sends[j]) == a.bin(sends[i]) {
			j++
		}
		h.Void("rect", "class", "lk-send", "x", a.x(sends[i]), "y", Itoa(y-1), "width", "3", "height", "15")
		if j-i > 1 {
			h.Elem("text", "×"+Itoa(j-i), "class", "lk-count", "x", a.x(sends[i]), "dx", "6", "y", Itoa(y+11))
		}
		i = j
	}
}

// lives draws a key's lives, of class cls, lived to now and (paler) still
// to run; a ✕ where one was evicted.
func (a lockAxis) lives(h *HTML, ls []life, cls string, now time.Duration, y int) {
	cut := -1 // the place of the last ✕ drawn
	for i := 0; i < len(ls); {
		// Lives that meet or overlap on the axis are drawn as one.
		from, until := ls[i].from, ls[i].until
		j := i + 1
		for j < len(ls) && ls[j].from >= from && a.bin(ls[j].from) <= a.bin(until) {
			until = max(until, ls[j].until)
			j++
		}
		h.Void("rect", "class", cls, "x", a.x(from), "y", Itoa(y), "width", a.width(from, min(until, now)), "height", "13")
		if until > now {
			h.Void("rect", "class", cls+" lk-ttl", "x", a.x(max(from, now)), "y", Itoa(y), "width", a.width(max(from, now), until), "height", "13")
		}
		for _, l := range ls[i:j] {
			if l.evicted && a.bin(l.until) != cut {
				cut = a.bin(l.until)
				h.Elem("text", "✕", "class", "lk-cut", "x", a.x(l.until), "dx", "-5", "y", Itoa(y+11))
			}
		}
		i = j
	}
}

// charges draws the charges at one place as one mark, a duplicate's when
// any is, with the count of charges so far beside it; and the crash.
func (a lockAxis) charges(h *HTML, st lockState, y int) {
	for i := 0; i < len(st.charges); {
		c := st.charges[i]
		j := i
		for j < len(st.charges) && a.bin(st.charges[j].at) == a.bin(c.at) {
			j++
		}
		h.Void("circle", "class", "lk-charge"+when(j > 1, " dup"), "cx", a.x(c.at), "cy", Itoa(y+6), "r", "6")
		if j-i > 1 {
			dx, anchor := "10", "start" // right of the mark, or left of it in the axis's right half
			if a.frac(c.at) > 0.5 {
				dx, anchor = "-10", "end"
			}
			h.Elem("text", "×"+Itoa(j), "class", "lk-count dup", "x", a.x(c.at), "dx", dx, "y", Itoa(y+11), "text-anchor", anchor)
		}
		i = j
	}
	if st.crash != nil {
		h.Elem("text", "✕ crash", "class", "lk-cut", "x", a.x(*st.crash), "dx", "10", "y", Itoa(y+11))
	}
}

// percent writes a share of the width as an SVG length: "12.5%".
func percent(f float64) string { return Num(f*100) + "%" }

// describe is the time line in words, for a screen reader.
func (r *lockRun) describe(st lockState) string {
	var parts []string
	parts = append(parts, Count(len(st.sends), "request")+" sent")
	for _, k := range []struct {
		name  string
		lives []life
	}{{"lock key", st.lock}, {"result key", st.result}} {
		for _, l := range k.lives[:min(len(k.lives), maxChips)] {
			how := "until t = " + secs(l.until)
			if l.evicted {
				how = "evicted at t = " + secs(l.until)
			}
			parts = append(parts, "the "+k.name+" set at t = "+secs(l.from)+", "+how)
		}
		if more := len(k.lives) - maxChips; more > 0 {
			parts = append(parts, "the "+k.name+" set "+Count(more, "time")+" more")
		}
	}
	for _, c := range st.charges[:min(len(st.charges), maxChips)] {
		parts = append(parts, c.id+" charged at t = "+secs(c.at))
	}
	if more := len(st.charges) - maxChips; more > 0 {
		parts = append(parts, Count(more, "more charge"))
	}
	return "Time line to t = " + secs(st.now) + ": " + strings.Join(parts, "; ") + "."
}

// verdict is the run's outcome in a sentence or two.
func (r *lockRun) verdict() string {
	s := r.res.Summary
	var text string
	switch {
	case s.Charges == 0:
		text = "Nothing charged."
	case s.Charges == 1:
		text = "Charged once."
		if s.Replays > 0 {
			text += " " + r.once()
		}
		if r.res.Trace.Count(lock.EvCrash) > 0 {
			text += " The crash left a lock and nothing else, so every retry was told 409 until it expired at t = " + r.lockExpiry() + "."
		}
	default:
		text = "Charged " + Itoa(s.Charges) + " times for one payment: " + r.cause() + "."
	}
	if s.GaveUp > 0 {
		text += " " + Count(s.GaveUp, "sender") + " gave up after " + Count(r.p.Attempts, "attempt") + " without an answer."
	} else if s.DoneAt != nil {
		text += " The last sender had its answer at t = " + chart.Number(*s.DoneAt) + " s."
	}
	return text
}

// once says how the duplicates of a single charge were answered.
func (r *lockRun) once() string {
	s := r.res.Summary
	text := "The " + Plural(s.Replays, "duplicate") + " got the saved result, replayed"
	switch {
	case s.Unavailable > 0 && s.Conflicts > 0:
		text += ", after " + Count(s.Unavailable, "503") + " while Redis was down and " + Count(s.Conflicts, "409") + " while the lock was held"
	case s.Unavailable > 0:
		text += ", after " + Count(s.Unavailable, "503") + " while Redis was down"
	case s.Conflicts > 0:
		text += ", after " + Count(s.Conflicts, "409") + " while the lock was held"
	}
	return text + "."
}

// lockExpiry is when the first lock expired: "300 s".
func (r *lockRun) lockExpiry() string {
	for _, e := range r.res.Trace {
		if e.Kind == lock.EvLock {
			return secs(e.At + time.Duration(e.N)*time.Second)
		}
	}
	return "never"
}

// cause says why the second charge happened, from the trace: what the
// server did before the work that made it.
func (r *lockRun) cause() string {
	tr := r.res.Trace
	works := 0
	for i, e := range tr {
		if e.Kind != lock.EvWork {
			continue
		}
		if works++; works < 2 {
			continue
		}
		before := tr[:i]
		switch {
		case r.p.Guard == lock.None:
			return "with no guard, every request is charged"
		case i > 0 && tr[i-1].Kind == lock.EvStoreDown:
			return "Redis was down and the server failed open, charging without the guard"
		case r.p.Guard == lock.GetThenSet:
			return "each GET ran before the first result was saved, so each found nothing and charged"
		case before.Count(lock.EvEvict) > 0:
			return "the eviction at t = " + secs(r.p.EvictAt) + " dropped the keys, so the next retry found neither lock nor result"
		case before.Count(lock.EvCrash) > 0:
			return "the server crashed after the charge and saved nothing, leaving only the lock; when it expired at t = " + r.lockExpiry() + ", the next retry took a new lock and charged again"
		default:
			return "the lock expired at t = " + r.lockExpiry() + " while the first charge was still running, and the next retry took a new lock"
		}
	}
	return "more than one request did the work"
}
