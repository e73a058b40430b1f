package param

// Limits are the values a number parameter can take while the others hold
// theirs: its declared Min and Max, narrowed by its own rules and by the
// rules of other parameters on it (slow-from below seconds is also seconds
// above slow-from). They are what a control's min and max say, and what a
// reader's message says is allowed.
//
// A strict rule moves the bound by the parameter's grain: one for an Int
// (below 120 is at most 119), its Step for a Float.
type Limits struct {
	Min, Max float64
	// MinRule and MaxRule are the rules, as seen from this parameter, that
	// set Min and Max ("at least slow-to"); nil where the declaration's
	// own bound is the tighter one.
	MinRule, MaxRule *Rule
}

// Holds reports whether f is within the limits.
func (l Limits) Holds(f float64) bool { return f >= l.Min && f <= l.Max }

// Limits returns the limits of the number parameter called name when the
// others hold the values in num. A parameter missing from num (one that
// is not a number yet) narrows nothing. Asking for a parameter the schema
// lacks, or one that is not a number, is a programming error and panics.
func (s Schema) Limits(name string, num map[string]float64) Limits {
	p, ok := s.Param(name)
	if !ok || (p.Kind != Int && p.Kind != Float) {
		panic("param: Limits of " + name + ", which is not a number parameter of the schema")
	}
	grain := 1.0
	if p.Kind == Float {
		grain = p.Step
	}
	l := Limits{Min: p.Min, Max: p.Max}
	narrow := func(r Rule) {
		x, ok := num[r.Other]
		if !ok {
			return
		}
		switch r.Op {
		case AtLeast, Above:
			if r.Op == Above {
				x += grain
			}
			if x > l.Min {
				l.Min, l.MinRule = x, &r
			}
		case AtMost, Below:
			if r.Op == Below {
				x -= grain
			}
			if x < l.Max {
				l.Max, l.MaxRule = x, &r
			}
		}
	}
	for _, r := range p.Rules {
		narrow(r)
	}
	for _, q := range s {
		for _, r := range q.Rules {
			if r.Other == name {
				narrow(Rule{Op: r.Op.inverse(), Other: q.Name})
			}
		}
	}
	return l
}

// inverse is the comparison seen from the other side: a below b is b
// above a.
func (o Op) inverse() Op {
	return [...]Op{AtLeast: AtMost, Above: Below, AtMost: AtLeast, Below: Above}[o]
}
