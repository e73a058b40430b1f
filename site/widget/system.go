package widget

// The system drawing: the parts of the system a widget is about (an app,
// a table, a relay, a broker...) as boxes in a row, stacked on a phone,
// each showing what it holds on itself, and between each two neighbours a
// link along which the step's item (a message, a row, a call) is drawn
// moving from one to the other. The drawing's root is marked
// data-figure="system" and carries the move (data-from, data-to,
// data-item); its first child says in words what the step shows, for
// screen readers (the boxes and links are drawn for the eye).

// Part is one box of the drawing.
type Part struct {
	Name  string // its data-part, one word: "relay"
	Title string // its heading: "Relay"
	// Draw writes what the part holds, on it; nil for nothing. What a
	// later step adds must keep its place from the first (hold.go).
	Draw func(h *HTML)
	// Fault is what went wrong on the part in the run, "" if nothing: a
	// mark in the bad colour, its place kept from the first step and
	// shown from the step Faulted says on. Down draws the part itself
	// as failed (the bad colour's border), for the steps it is down.
	Fault   string
	Faulted bool
	Down    bool
}

// Move is what a step carries from one part to its neighbour.
type Move struct {
	From, To string // the parts' names; "" for a step that moves nothing
	Item     string // its label: "evt_1"
	// Outcome colours it: "good", "bad", or "" for neither.
	Outcome string
}

// System is the drawing at one step.
type System struct {
	Label string // what the drawing is: "The outbox, drawn"
	Alt   string // what the step shows, in words: the text alternative
	Parts []Part
	Move  Move
}

// moveLink is the link between parts a and b that m moves along, and
// whether it moves from b back to a: -1 if m is on no link between
// neighbours.
func (s System) moveLink() (link int, back bool) {
	for i := 0; i+1 < len(s.Parts); i++ {
		a, b := s.Parts[i].Name, s.Parts[i+1].Name
		switch {
		case s.Move.From == a && s.Move.To == b:
			return i, false
		case s.Move.From == b && s.Move.To == a:
			return i, true
		}
	}
	return -1, false
}

// drawSystem writes the drawing: its root, the text alternative, and the
// parts in order with a link between each two. Every link holds its
// item's place at every step, so that a move does not shift the parts.
func drawSystem(h *HTML, s System) {
	link, back := s.moveLink()
	attrs := []string{"class", "w-system", "data-figure", "system", "role", "group", "aria-label", s.Label}
	if link >= 0 {
		attrs = append(attrs, "data-from", s.Move.From, "data-to", s.Move.To, "data-item", s.Move.Item)
	}
	h.Open("div", attrs...)
	h.Elem("p", s.Alt, "class", "w-sr w-system-alt")
	h.Open("div", "class", "w-sys")
	for i, p := range s.Parts {
		cls := "w-part"
		if p.Down {
			cls += " down"
		}
		h.Open("section", "class", cls, "data-part", p.Name, "role", "group", "aria-label", p.Title)
		h.Elem("h3", p.Title)
		if p.Draw != nil {
			p.Draw(h)
		}
		if p.Fault != "" {
			h.Elem("p", p.Fault, heldAttrs(!p.Faulted, "class", "w-fault")...)
		}
		h.Close("section")
		if i+1 == len(s.Parts) {
			break
		}
		cls, item := "w-link", ""
		if i == link {
			cls = join(join("w-link moving", when(back, "back")), s.Move.Outcome)
			item = s.Move.Item
		}
		h.Open("div", "class", cls, "data-link", p.Name+"-"+s.Parts[i+1].Name, "aria-hidden", "true")
		h.Elem("span", item, "class", "w-carried")
		h.Close("div")
	}
	h.Close("div")
	h.Close("div")
}

// toggleButton writes a button on the figure that turns the on/off
// parameter param on or off, as its checkbox does (ActionToggle in the
// page's module): pressed while the parameter is on. Its text is its
// name; title says what the parameter does.
func toggleButton(h *HTML, param, text, title string, on bool) {
	pressed := "false"
	if on {
		pressed = "true"
	}
	h.Elem("button", text, "type", "button", "class", "w-toggle", "data-action", string(ActionToggle),
		"data-param", param, "aria-pressed", pressed, "title", title)
}
