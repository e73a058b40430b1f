package main

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// A param is one --flag of a model: its kebab-case name (the name of the
// widget's parameter), a line of help, how its value is written, and how it
// reads from and writes to the model's Params. It has the shape of a
// widget.Param, so that these tables can give way to the widget schemas:
// bounds and allowed values are the engine's, checked by its Validate.
type param[P any] struct {
	name    string
	help    string
	kind    string   // "int", "number", "seconds", "on|off", "one of", "list of"
	allowed []string // for "one of" and "list of"
	get     func(*P) string
	set     func(*P, string) error
}

// valueError is a value the CLI cannot read at all, before the engine sees
// it: not a number, not on or off.
type valueError struct {
	param, value, msg string
}

func (e *valueError) Error() string {
	return e.param + ": " + strconv.Quote(e.value) + " " + e.msg
}

func intParam[P any](name, help string, field func(*P) *int) param[P] {
	return param[P]{name: name, help: help, kind: "int",
		get: func(p *P) string { return strconv.Itoa(*field(p)) },
		set: func(p *P, s string) error {
			n, err := strconv.Atoi(s)
			if err != nil {
				return &valueError{name, s, "is not a whole number"}
			}
			*field(p) = n
			return nil
		}}
}

func int64Param[P any](name, help string, field func(*P) *int64) param[P] {
	return param[P]{name: name, help: help, kind: "int",
		get: func(p *P) string { return strconv.FormatInt(*field(p), 10) },
		set: func(p *P, s string) error {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return &valueError{name, s, "is not a whole number"}
			}
			*field(p) = n
			return nil
		}}
}

func floatParam[P any](name, help string, field func(*P) *float64) param[P] {
	return param[P]{name: name, help: help, kind: "number",
		get: func(p *P) string { return strconv.FormatFloat(*field(p), 'f', -1, 64) },
		set: func(p *P, s string) error {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				return &valueError{name, s, "is not a number"}
			}
			*field(p) = f
			return nil
		}}
}

// secondsParam reads a duration written in seconds, as the widgets show it.
func secondsParam[P any](name, help string, field func(*P) *time.Duration) param[P] {
	return param[P]{name: name, help: help, kind: "seconds",
		get: func(p *P) string { return strconv.FormatFloat(field(p).Seconds(), 'f', -1, 64) },
		set: func(p *P, s string) error {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				return &valueError{name, s, "is not a number of seconds"}
			}
			// A billion seconds is far past every bound and still fits a
			// Duration; the engine then names the bounds.
			f = max(-1e9, min(f, 1e9))
			*field(p) = time.Duration(math.Round(f * float64(time.Second)))
			return nil
		}}
}

func boolParam[P any](name, help string, field func(*P) *bool) param[P] {
	return param[P]{name: name, help: help, kind: "on|off", allowed: []string{"on", "off"},
		get: func(p *P) string {
			if *field(p) {
				return "on"
			}
			return "off"
		},
		set: func(p *P, s string) error {
			switch strings.ToLower(s) {
			case "on", "true", "yes":
				*field(p) = true
			case "off", "false", "no":
				*field(p) = false
			default:
				return &valueError{name, s, "is not allowed (allowed: on, off)"}
			}
			return nil
		}}
}

// enumParam passes the value to the engine as written; its Validate names
// the allowed values.
func enumParam[P any, S ~string](name, help string, allowed []S, field func(*P) *S) param[P] {
	return param[P]{name: name, help: help, kind: "one of", allowed: strs(allowed),
		get: func(p *P) string { return string(*field(p)) },
		set: func(p *P, s string) error {
			*field(p) = S(s)
			return nil
		}}
}

// listParam reads a comma-separated list; the engine checks each item.
func listParam[P any, S ~string](name, help string, allowed []S, field func(*P) *[]S) param[P] {
	return param[P]{name: name, help: help, kind: "list of", allowed: strs(allowed),
		get: func(p *P) string { return strings.Join(strs(*field(p)), ",") },
		set: func(p *P, s string) error {
			var list []S
			for _, item := range strings.Split(s, ",") {
				if item = strings.TrimSpace(item); item != "" {
					list = append(list, S(item))
				}
			}
			*field(p) = list
			return nil
		}}
}

func strs[S ~string](xs []S) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	return out
}
