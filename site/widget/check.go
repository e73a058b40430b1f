package widget

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/retrylab/retrylab/engine/param"
	"github.com/retrylab/retrylab/site/chart"
)

// A FieldError is why the values a reader set cannot be run, in the
// reader's words: Message names the control by its label, and Param is the
// parameter whose control it sits beside, which is marked invalid ("" when
// no control is at fault). An author's widget block gets the parameter's
// own error instead (param.Error), which names it as written.
type FieldError struct {
	Param   string
	Message string
}

func (e *FieldError) Error() string { return e.Message }

// ErrorID is the id of the message beside the control at fault in the
// widget whose id is id; the control's aria-describedby points at it.
func ErrorID(id string) string { return id + "-error" }

// FormValues reads the controls (ReadForm) and checks them against the
// declaration: the values they hold, or why they cannot run, in the
// reader's words. When values are in conflict (Length (s) 10 against
// Slowdown to (s) 20), the message blames the control the reader changed
// last, changed ("" when unknown), if it is one of them; else the first
// of them whose value differs from shown (what the widget shows); else
// the first. The page runs the values in its worker, and an error of the
// run is the reader's through RunFailed.
func (w *Widget) FormValues(cs []Control, changed string, shown Values) (Values, *FieldError) {
	raw := w.Schema.ReadForm(cs)
	v, err := w.Schema.Parse(raw)
	if err != nil {
		return Values{}, w.Schema.explain(raw, err, changed, shown)
	}
	return v, nil
}

// RunFailed is an error of Run, for values the declaration accepts but
// the model does not, as the reader sees it: the model says why, of the
// values as a whole, beside the control changed last.
func (w *Widget) RunFailed(err error, changed string) *FieldError {
	if _, ok := w.Schema.Param(changed); !ok {
		changed = ""
	}
	return &FieldError{Param: changed, Message: sentence(err.Error())}
}

// explain turns err, from parsing raw, into the reader's words.
func (s Schema) explain(raw map[string]string, err error, changed string, shown Values) *FieldError {
	text := func(p Param) string {
		if t, ok := raw[p.Name]; ok {
			return t
		}
		return p.Default
	}
	// Every value that cannot be taken: those wrong on their own, then
	// the numbers outside their limits given the others'.
	var faults []string
	num := map[string]float64{}
	wrong := map[string]*param.Error{}
	for _, p := range s {
		if p.Kind == Int || p.Kind == Float {
			// A number outside its own bounds is still a number: its
			// limits (which include them) refuse it below.
			if f, ok := number(p, text(p)); ok {
				num[p.Name] = f
				continue
			}
		}
		_, perr := p.Parse(text(p))
		if pe, ok := errors.AsType[*param.Error](perr); ok {
			wrong[p.Name] = pe
			faults = append(faults, p.Name)
		}
	}
	for _, p := range s {
		if n, ok := num[p.Name]; ok && !param.Schema(s).Limits(p.Name, num).Holds(n) {
			faults = append(faults, p.Name)
		}
	}
	if len(faults) == 0 { // not a value of the form: say it as it is
		return &FieldError{Message: sentence(err.Error())}
	}
	blame := faults[0]
	if contains(faults, changed) {
		blame = changed
	} else if shown.Values.Schema() != nil {
		for _, name := range faults {
			if p, _ := s.Param(name); shown.Text(name) != canonicalText(p, text(p)) {
				blame = name
				break
			}
		}
	}
	p, _ := s.Param(blame)
	return &FieldError{Param: blame, Message: s.say(p, text(p), wrong[blame], num)}
}

// number reads text as a value of the number parameter p, whatever its
// bounds: a finite number, whole for an Int.
func number(p Param, text string) (float64, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || (p.Kind == Int && f != math.Trunc(f)) {
		return 0, false
	}
	return f, true
}

// canonicalText is text as p writes it back, or text itself if p cannot
// read it.
func canonicalText(p Param, text string) string {
	v, err := p.Parse(text)
	if err != nil {
		return text
	}
	return p.Text(v)
}

// say is what is wrong with p's value, text, naming p by its label: pe is
// its own error, nil when only its limits against the others' values
// refuse it.
func (s Schema) say(p Param, text string, pe *param.Error, num map[string]float64) string {
	switch p.Kind {
	case Bool:
		return p.Label + " must be on or off."
	case Enum:
		return p.Label + " must be one of " + orList(p.Allowed) + "."
	case EnumList:
		var items []string
		for _, it := range strings.Split(text, ",") {
			if it = strings.TrimSpace(it); it != "" {
				items = append(items, it)
			}
		}
		switch {
		case len(items) < p.MinItems:
			return p.Label + " needs at least " + Count(p.MinItems, "item") + "."
		case p.MaxItems > 0 && len(items) > p.MaxItems:
			return p.Label + " can hold at most " + Count(p.MaxItems, "item") + "."
		}
		return p.Label + ": “" + pe.Value + "” is not one of " + orList(p.Allowed) + "."
	}
	l := param.Schema(s).Limits(p.Name, num)
	if l.Min > l.Max {
		return p.Label + " has no value that fits: it must be " + s.reason(l.MinRule, num) + ", and " + s.reason(l.MaxRule, num) + "."
	}
	span := "from " + exact(l.Min) + " to " + exact(l.Max)
	if pe != nil {
		what := "a number"
		if p.Kind == Int {
			what = "a whole number"
		}
		return p.Label + " needs " + what + " " + span + "."
	}
	msg := p.Label + " must be " + span
	switch n := num[p.Name]; {
	case n < l.Min && l.MinRule != nil:
		msg += ": " + s.reason(l.MinRule, num)
	case n > l.Max && l.MaxRule != nil:
		msg += ": " + s.reason(l.MaxRule, num)
	}
	return msg + "."
}

// reason is a rule in the reader's words: "at least Slowdown to (s), which
// is 20".
func (s Schema) reason(r *param.Rule, num map[string]float64) string {
	other, _ := s.Param(r.Other)
	return r.Op.String() + " " + other.Label + ", which is " + exact(num[r.Other])
}

// exact writes a bound in its shortest exact form, its thousands
// separated: 0.001, 3,600.
func exact(f float64) string { return chart.Group(param.Number(f)) }

// orList is "a, b or c".
func orList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// sentence is a message as a sentence: capitalised, with a full stop.
func sentence(msg string) string {
	msg = Capital(msg)
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg
}

// A Bound is a number control's min and max attributes.
type Bound struct{ Name, Min, Max string }

// Bounds are the min and max of every number control for values v: what
// each parameter can take while the others hold v's values
// (param.Schema.Limits), so that a control's spinner stops where the
// declaration's rules do, and agrees with the readers' messages.
func (v Values) Bounds() []Bound {
	var out []Bound
	for _, p := range v.Values.Schema() {
		if p.Kind == Int || p.Kind == Float {
			out = append(out, v.bound(p.Name))
		}
	}
	return out
}

func (v Values) bound(name string) Bound {
	num := map[string]float64{}
	for _, p := range v.Values.Schema() {
		if p.Kind == Int || p.Kind == Float {
			num[p.Name] = v.Float(p.Name)
		}
	}
	l := v.Values.Schema().Limits(name, num)
	return Bound{Name: name, Min: param.Number(l.Min), Max: param.Number(l.Max)}
}
