package widget

// Render writes a whole widget, already run with v and shown at its end
// state: the root element with data-widget and data-params, the controls
// (one form element per parameter, named after it, with a visible label),
// the replay controls, and the output region. id must be unique in the
// page; it prefixes the controls' ids.
func Render(h *HTML, w *Widget, v Values, id string) error {
	run, err := w.Run(v)
	if err != nil {
		return err
	}
	steps := run.Steps()
	h.Open("figure", "class", "widget", "id", id, "data-widget", w.Name,
		"data-params", v.JSON(), "data-step", Itoa(steps), "data-steps", Itoa(steps))
	h.Open("figcaption", "class", "w-head")
	h.Elem("span", w.Title, "class", "w-title")
	h.Elem("span", w.Summary, "class", "w-summary")
	h.Close("figcaption")

	h.Open("form", "class", "w-controls", "data-region", "controls", "aria-label", w.Title+": parameters")
	for _, p := range w.Schema {
		control(h, p, v, id)
	}
	h.Open("div", "class", "w-actions")
	h.Elem("button", "Replay", "type", "submit", "class", "w-replay", "data-action", "replay")
	if steps > 0 {
		h.Elem("button", "◀ Step", "type", "button", "data-action", "back", "aria-label", "Step back")
		h.Elem("button", "Step ▶", "type", "button", "data-action", "forward", "aria-label", "Step forward")
		h.Open("output", "class", "w-stepno", "data-region", "stepno", "aria-live", "off")
		StepLabel(h, steps, steps)
		h.Close("output")
	}
	h.Close("div")
	h.Close("form")
	h.Elem("p", "Turn JavaScript on to change the parameters and replay; what follows is the run these parameters give.", "class", "w-nojs")

	h.Open("div", "class", "w-output", "data-region", "output", "aria-live", "polite")
	run.Output(h, steps)
	h.Close("div")
	h.Close("figure")
	return nil
}

// StepLabel writes "Step 3 of 9".
func StepLabel(h *HTML, step, steps int) {
	h.Text("Step " + Itoa(step) + " of " + Itoa(steps))
}

func control(h *HTML, p Param, v Values, id string) {
	cid := id + "-" + p.Name
	switch p.Kind {
	case EnumList:
		h.Open("fieldset", "class", "w-field w-list", "title", p.Help, "data-param", p.Name)
		h.Elem("legend", p.Label)
		list := v.List(p.Name)
		shown := p.MaxItems
		if p.CountFrom != "" {
			shown = v.Int(p.CountFrom)
		}
		for i := 0; i < p.MaxItems; i++ {
			cur := p.Pad
			if i < len(list) {
				cur = list[i]
			}
			n := Itoa(i + 1)
			// Items past the count stay in the markup, hidden, so the page
			// can offer them when the count grows without re-rendering.
			h.Open("label", "class", "w-item", "hidden", boolAttr(i >= shown))
			h.Elem("span", n, "class", "w-itemno")
			h.Open("select", "name", p.Name, "aria-label", p.Label+" "+n)
			if p.Pad == "" {
				h.Elem("option", "—", "value", "", "selected", boolAttr(cur == ""))
			}
			for _, a := range p.Allowed {
				h.Elem("option", a, "value", a, "selected", boolAttr(cur == a))
			}
			h.Close("select")
			h.Close("label")
		}
		h.Close("fieldset")
		return
	}
	h.Open("label", "class", "w-field", "for", cid, "title", p.Help)
	h.Elem("span", p.Label, "class", "w-label")
	h.Close("label")
	switch p.Kind {
	case Enum:
		h.Open("select", "id", cid, "name", p.Name)
		cur := v.String(p.Name)
		for _, a := range p.Allowed {
			h.Elem("option", a, "value", a, "selected", boolAttr(cur == a))
		}
		h.Close("select")
	case Bool:
		h.Void("input", "id", cid, "name", p.Name, "type", "checkbox", "value", "on", "checked", boolAttr(v.Bool(p.Name)))
	case Int, Float:
		step := "1"
		if p.Kind == Float {
			step = "any"
			if p.Step > 0 {
				step = formatNumber(p.Step)
			}
		}
		h.Void("input", "id", cid, "name", p.Name, "type", "number", "inputmode", "decimal",
			"min", formatNumber(p.Min), "max", formatNumber(p.Max), "step", step, "value", v.Text(p.Name))
	}
}

func boolAttr(b bool) string {
	if b {
		return "true"
	}
	return ""
}
