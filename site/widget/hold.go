package widget

// A replay must not change the widget's height: whatever a later step adds
// already has its place from the first step on, hidden (class "held",
// visibility: hidden in widget.css, and aria-hidden, so that neither eyes
// nor screen readers meet it before its time).

// heldAttrs are the attributes of an item that holds a place the replay
// has not reached yet, after attrs.
func heldAttrs(held bool, attrs ...string) []string {
	if !held {
		return attrs
	}
	for i := 0; i+1 < len(attrs); i += 2 {
		if attrs[i] == "class" {
			out := append([]string(nil), attrs...)
			out[i+1] = join(out[i+1], "held")
			return append(out, "aria-hidden", "true")
		}
	}
	return append(attrs, "class", "held", "aria-hidden", "true")
}

// holdTexts writes texts in one place, stacked in one grid cell, only
// texts[shown] visible: the place is as tall as the tallest of them, so a
// replay that moves from one to another does not change the height.
func holdTexts(h *HTML, shown int, texts ...string) {
	h.Open("span", "class", "w-hold")
	for i, t := range texts {
		h.Elem("span", t, heldAttrs(i != shown)...)
	}
	h.Close("span")
}

// join is the classes a and b, either of which may be "".
func join(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + " " + b
}

// holdOutcome writes the outcome, <p> with attrs, saying now, and after it,
// stacked in the same grid cell, a held copy for each of later: the
// sentences a replay will reach. The copies are not outcomes (class
// w-outcome-held, no figures), so that the page and its tests find one
// outcome, and what it announces is the outcome's own text.
func holdOutcome(h *HTML, attrs []string, now string, later ...string) {
	h.Open("div", "class", "w-hold")
	h.Elem("p", now, attrs...)
	for _, t := range later {
		h.Elem("p", t, heldAttrs(true, "class", "w-outcome-held")...)
	}
	h.Close("div")
}

// holdOver writes one place as write draws it for now and, stacked in the
// same grid cell, as it draws it for each state of over (every step of the
// replay): only now's reading is visible, the others held, so the place is
// as tall as the tallest reading from the first step on. A state for which
// write draws nothing leaves the place empty; a place empty at every step
// writes nothing.
func holdOver[S any](h *HTML, now S, over []S, write func(h *HTML, s S)) {
	draw := func(s S) string {
		var m HTML
		write(&m, s)
		return m.String()
	}
	shown := draw(now)
	var readings []string
	seen := map[string]bool{"": true}
	for _, s := range over {
		if m := draw(s); !seen[m] {
			seen[m] = true
			readings = append(readings, m)
		}
	}
	if len(readings) == 0 {
		return
	}
	h.Open("div", "class", "w-hold")
	for _, m := range readings {
		h.Open("div", heldAttrs(m != shown)...).Raw(m).Close("div")
	}
	h.Close("div")
}
