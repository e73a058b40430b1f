package sim

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// ParamError is a parameter outside what a model accepts. It names the
// parameter as the CLI and the widget schemas spell it (kebab-case), the
// value given and what is allowed, so that whoever reads it can fix the call
// without looking anything up:
//
//	clients: 0 is out of bounds (allowed: 1 to 1000000)
//	policy: "jitter" is not allowed (allowed: none, full, equal, decorrelated)
type ParamError struct {
	Param   string // kebab-case name: "clients", "slow-from"
	Value   string // the value as the reader wrote it
	Allowed string // "1 to 1000000", "none, full, equal, decorrelated"
	Enum    bool   // Allowed lists values rather than bounds
}

func (e *ParamError) Error() string {
	if e.Enum {
		return e.Param + ": " + strconv.Quote(e.Value) + " is not allowed (allowed: " + e.Allowed + ")"
	}
	return e.Param + ": " + e.Value + " is out of bounds (allowed: " + e.Allowed + ")"
}

// CheckInt reports an error naming param unless lo <= v <= hi.
func CheckInt(param string, v, lo, hi int) error {
	if v >= lo && v <= hi {
		return nil
	}
	return &ParamError{Param: param, Value: strconv.Itoa(v), Allowed: strconv.Itoa(lo) + " to " + strconv.Itoa(hi)}
}

// CheckFloat reports an error naming param unless lo <= v <= hi. NaN is
// never within bounds.
func CheckFloat(param string, v, lo, hi float64) error {
	if v >= lo && v <= hi { // false for NaN
		return nil
	}
	return &ParamError{Param: param, Value: FormatFloat(v), Allowed: FormatFloat(lo) + " to " + FormatFloat(hi)}
}

// CheckSeconds reports an error naming param unless lo <= d <= hi. The
// message speaks in seconds, the unit the CLI and the widgets use.
func CheckSeconds(param string, d, lo, hi time.Duration) error {
	if d >= lo && d <= hi {
		return nil
	}
	return &ParamError{Param: param, Value: FormatFloat(d.Seconds()),
		Allowed: FormatFloat(lo.Seconds()) + " to " + FormatFloat(hi.Seconds()) + " seconds"}
}

// CheckEnum reports an error naming param unless v is one of allowed.
func CheckEnum[S ~string](param string, v S, allowed ...S) error {
	names := make([]string, len(allowed))
	for i, a := range allowed {
		if v == a {
			return nil
		}
		names[i] = string(a)
	}
	return &ParamError{Param: param, Value: string(v), Allowed: strings.Join(names, ", "), Enum: true}
}

// FirstError returns the first non-nil error, so that Validate methods read
// as one list of checks in the order the parameters are documented.
func FirstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// FormatFloat writes f in its shortest exact decimal form: 0.1, 2.5, 100.
func FormatFloat(f float64) string {
	if math.IsNaN(f) {
		return "NaN"
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}
