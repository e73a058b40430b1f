// Package widget is the registry of the handbook's widgets. A widget owns a
// parameter schema, a run of the engine and a view; the same schema checks a
// widget block in markdown, an embed URL's query and every control in the
// page, and the same view renders the first state into the static HTML and
// every later state in the browser.
//
// The package is shared with the WebAssembly module, so it keeps to small
// standard packages: no fmt, no html/template, no encoding/json, no reflect.
package widget

import (
	"math"
	"sort"
	"strconv"
	"strings"
)

// Kind is the type of a parameter's value.
type Kind int

const (
	Bool     Kind = iota // on | off (also true | false)
	Int                  // a whole number within [Min, Max]
	Float                // a number within [Min, Max]
	Enum                 // one of Allowed
	EnumList             // a comma-separated list of Allowed, at most MaxItems long
)

func (k Kind) String() string {
	switch k {
	case Bool:
		return "bool"
	case Int:
		return "int"
	case Float:
		return "float"
	case Enum:
		return "enum"
	case EnumList:
		return "list"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Param describes one parameter of a widget.
type Param struct {
	Name     string   // kebab-case; the key in markdown, in a query string and a control's name
	Label    string   // the visible label of its control
	Help     string   // one line of help
	Kind     Kind     //
	Default  string   // in the textual form Parse accepts
	Min, Max float64  // bounds for Int and Float, inclusive
	Step     float64  // granularity of the control for Float (0: any)
	Allowed  []string // values for Enum and EnumList, in display order
	MaxItems int      // longest list for EnumList

	// Pad, for EnumList, is what an item past the end of the list stands
	// for ("ok": after the listed faults every attempt goes through).
	// Trailing Pad items are dropped, so "lose-response, ok" and
	// "lose-response" are the same value, and every control can show a real
	// choice instead of a blank.
	Pad string
	// CountFrom, for EnumList, names the Int parameter that says how many
	// items the controls offer (one fault per attempt).
	CountFrom string
	// More puts the control under "More parameters", a disclosure after
	// the others: for the knobs a reader turns second, so that on a phone
	// the figure is not a screen of fields away.
	More bool
}

// Schema is a widget's ordered list of parameters.
type Schema []Param

// Param returns the parameter called name.
func (s Schema) Param(name string) (Param, bool) {
	for _, p := range s {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

// Names lists the parameters' names, sorted, for error messages.
func (s Schema) Names() []string {
	names := make([]string, len(s))
	for i, p := range s {
		names[i] = p.Name
	}
	sort.Strings(names)
	return names
}

// Error is a parameter that could not be accepted. Its message names the
// parameter, the value and what would have been allowed.
type Error struct {
	Param string // the parameter's name as written
	Value string // the value as written; empty for an unknown parameter
	Msg   string // what is wrong, including the allowed values or bounds
}

func (e *Error) Error() string {
	if e.Value == "" && strings.HasPrefix(e.Msg, "unknown parameter") {
		return e.Msg
	}
	return e.Param + ": " + quote(e.Value) + " " + e.Msg
}

// Values are a widget's parameters, parsed and checked against its schema.
// Every parameter of the schema has a value.
type Values struct {
	schema Schema
	v      map[string]value
}

type value struct {
	b bool
	f float64 // Int and Float
	s string  // Enum
	l []string
}

// Defaults returns the schema's default values.
func (s Schema) Defaults() Values {
	v, err := s.Parse(nil)
	if err != nil {
		// A default outside its own bounds is a programming error in the
		// widget's definition, caught by the registry's tests.
		panic("widget: bad default: " + err.Error())
	}
	return v
}

// Parse checks raw values, as written in markdown, a query string or a
// form, and fills in defaults for the parameters not given.
func (s Schema) Parse(raw map[string]string) (Values, error) {
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys) // report the first problem in a stable order
	for _, k := range keys {
		if _, ok := s.Param(k); !ok {
			return Values{}, &Error{Param: k, Msg: "unknown parameter " + quote(k) + " (known: " + strings.Join(s.Names(), ", ") + ")"}
		}
	}
	out := Values{schema: s, v: make(map[string]value, len(s))}
	for _, p := range s {
		text, given := raw[p.Name]
		if !given {
			text = p.Default
		}
		val, err := p.parse(text)
		if err != nil {
			return Values{}, err
		}
		out.v[p.Name] = val
	}
	return out, nil
}

func (p Param) parse(text string) (value, error) {
	text = strings.TrimSpace(text)
	bad := func(msg string) (value, error) {
		return value{}, &Error{Param: p.Name, Value: text, Msg: msg}
	}
	switch p.Kind {
	case Bool:
		switch strings.ToLower(text) {
		case "on", "true", "yes":
			return value{b: true}, nil
		case "off", "false", "no":
			return value{b: false}, nil
		}
		return bad("is not allowed (allowed: on, off)")
	case Int, Float:
		f, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			if p.Kind == Int {
				return bad("is not a whole number (allowed: " + p.bounds() + ")")
			}
			return bad("is not a number (allowed: " + p.bounds() + ")")
		}
		if p.Kind == Int && f != math.Trunc(f) {
			return bad("is not a whole number (allowed: " + p.bounds() + ")")
		}
		if f < p.Min || f > p.Max {
			return bad("is out of bounds (allowed: " + p.bounds() + ")")
		}
		return value{f: f}, nil
	case Enum:
		for _, a := range p.Allowed {
			if text == a {
				return value{s: text}, nil
			}
		}
		return bad("is not allowed (allowed: " + strings.Join(p.Allowed, ", ") + ")")
	case EnumList:
		var list []string
		if text != "" {
			for _, item := range strings.Split(text, ",") {
				item = strings.TrimSpace(item)
				if !contains(p.Allowed, item) {
					return value{}, &Error{Param: p.Name, Value: item,
						Msg: "is not allowed (allowed: " + strings.Join(p.Allowed, ", ") + ")"}
				}
				list = append(list, item)
			}
		}
		if p.MaxItems > 0 && len(list) > p.MaxItems {
			return bad("has " + strconv.Itoa(len(list)) + " items (allowed: at most " + strconv.Itoa(p.MaxItems) + ")")
		}
		for p.Pad != "" && len(list) > 0 && list[len(list)-1] == p.Pad {
			list = list[:len(list)-1]
		}
		return value{l: list}, nil
	}
	return bad("has an unknown kind " + p.Kind.String())
}

func (p Param) bounds() string {
	return formatNumber(p.Min) + " to " + formatNumber(p.Max)
}

// Bool, Int, Float, String and List return a parameter's value. Asking for a
// parameter the schema lacks, or with the wrong kind, is a programming error
// and panics, as a map of the wrong type would.
func (v Values) Bool(name string) bool      { return v.get(name, Bool).b }
func (v Values) Int(name string) int        { return int(v.get(name, Int).f) }
func (v Values) Float(name string) float64  { return v.get(name, Float).f }
func (v Values) String(name string) string  { return v.get(name, Enum).s }
func (v Values) List(name string) []string  { return append([]string(nil), v.get(name, EnumList).l...) }
func (v Values) Schema() Schema             { return v.schema }
func (v Values) Text(name string) string    { return v.text(v.mustParam(name)) }
func (v Values) IsDefault(name string) bool { p := v.mustParam(name); return v.text(p) == canonical(p) }
func (v Values) With(name, text string) (Values, error) {
	raw := v.Raw()
	raw[name] = text
	return v.schema.Parse(raw)
}

func (v Values) mustParam(name string) Param {
	p, ok := v.schema.Param(name)
	if !ok {
		panic("widget: no parameter " + quote(name))
	}
	return p
}

func (v Values) get(name string, k Kind) value {
	p := v.mustParam(name)
	if p.Kind != k && !(k == Int && p.Kind == Float) && !(k == Float && p.Kind == Int) {
		panic("widget: parameter " + quote(name) + " is a " + p.Kind.String() + ", not a " + k.String())
	}
	return v.v[name]
}

// text is a value's canonical textual form, which Parse accepts back.
func (v Values) text(p Param) string {
	val := v.v[p.Name]
	switch p.Kind {
	case Bool:
		if val.b {
			return "on"
		}
		return "off"
	case Int, Float:
		return formatNumber(val.f)
	case Enum:
		return val.s
	case EnumList:
		return strings.Join(val.l, ", ")
	}
	return ""
}

func canonical(p Param) string {
	val, err := p.parse(p.Default)
	if err != nil {
		return p.Default
	}
	return Values{schema: Schema{p}, v: map[string]value{p.Name: val}}.text(p)
}

// Raw returns every value in its textual form, keyed by parameter name.
func (v Values) Raw() map[string]string {
	raw := make(map[string]string, len(v.schema))
	for _, p := range v.schema {
		raw[p.Name] = v.text(p)
	}
	return raw
}

func formatNumber(f float64) string {
	return strconv.FormatFloat(f, 'f', -1, 64)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func quote(s string) string { return strconv.Quote(s) }
