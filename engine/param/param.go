// Package param is where a model's parameters are declared, once: each
// parameter's name, the reader's label, a line of help, its kind, its
// default, its bounds or allowed values and its rules against the other
// parameters. Everything else is derived from a declaration: the model's
// own Validate, the widget's controls and their min and max, the check of
// a widget block in markdown, an embed's query, the CLI's flags and its
// --help, and the authors' reference.
//
// The package is part of the WebAssembly module, so it keeps to small
// standard packages: no fmt, no reflect. A model binds its parameters to
// its Params' fields once (Binder, Binding), and the package reads, writes
// and checks them by their places in the Params (unsafe's offsets, checked
// as they are taken).
package param

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/retrylab/retrylab/internal/suggest"
)

// Kind is the type of a parameter's value.
type Kind int

const (
	Bool     Kind = iota // on | off (also true | false)
	Int                  // a whole number within [Min, Max]
	Float                // a number within [Min, Max]
	Enum                 // one of Allowed
	EnumList             // a comma-separated list of Allowed, MinItems to MaxItems long
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

// Param declares one parameter.
type Param struct {
	Name     string   // kebab-case; the key in markdown, a query string, a control's name and a CLI flag
	Label    string   // the reader's word for it: the visible label of its control
	Help     string   // one line of help
	Kind     Kind     //
	Default  string   // in the textual form Parse accepts
	Min, Max float64  // bounds for Int and Float, inclusive
	Step     float64  // granularity of the control for Float (0: any)
	Allowed  []string // values for Enum and EnumList, in display order
	MinItems int      // shortest list for EnumList
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
	// Rules relate an Int or Float parameter to others of its schema:
	// cap at least base, slow-to after slow-from.
	Rules []Rule
	// Words, for Enum and EnumList, are what a control shows for a value
	// whose name alone would confuse a reader ("off" beside a policy
	// called "none"); a value without one shows as written. Markdown, a
	// query and a flag still take the value.
	Words map[string]string
}

// Word is what a control shows for the value v.
func (p Param) Word(v string) string {
	if w, ok := p.Words[v]; ok {
		return w
	}
	return v
}

// A Rule is a comparison of a number parameter with another one of the
// same schema, checked after both are within their own bounds.
type Rule struct {
	Op    Op     // how the value compares with Other's
	Other string // the other parameter's name
}

// Op is a comparison.
type Op int

const (
	AtLeast Op = iota // >=
	Above             // >
	AtMost            // <=
	Below             // <
)

func (o Op) holds(a, b float64) bool {
	switch o {
	case AtLeast:
		return a >= b
	case Above:
		return a > b
	case AtMost:
		return a <= b
	case Below:
		return a < b
	}
	return false
}

func (o Op) String() string {
	return [...]string{"at least", "above", "at most", "below"}[o]
}

// Bounds is what the parameter allows, in the words an error message and
// --help use: "1 to 10", "off, per-intent, per-attempt", "on, off",
// "0.01 to 100, at least base".
func (p Param) Bounds() string {
	switch p.Kind {
	case Bool:
		return "on, off"
	case Int, Float:
		s := Number(p.Min) + " to " + Number(p.Max)
		for _, r := range p.Rules {
			s += ", " + r.Op.String() + " " + r.Other
		}
		return s
	case Enum:
		return strings.Join(p.Allowed, ", ")
	case EnumList:
		s := "a list of " + strings.Join(p.Allowed, ", ")
		switch {
		case p.MinItems > 0:
			s += "; " + strconv.Itoa(p.MinItems) + " to " + strconv.Itoa(p.MaxItems) + " items"
		case p.MaxItems > 0:
			s += "; at most " + strconv.Itoa(p.MaxItems) + " items"
		}
		return s
	}
	return ""
}

// Schema is a model's ordered list of parameters.
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
	// Not sort.Strings: its pdqsort of strings would be linked into the
	// page's module beside the stable sort engine/ijson links already.
	sort.Stable(sort.StringSlice(names))
	return names
}

// Without is the schema less the named parameters: a view of a model that
// sets them itself (the budget widget runs with and without the budget).
func (s Schema) Without(names ...string) Schema {
	out := make(Schema, 0, len(s))
	for _, p := range s {
		if !contains(names, p.Name) {
			out = append(out, p)
		}
	}
	return out
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
	return e.Param + ": " + strconv.Quote(e.Value) + " " + e.Msg
}

// Value is one parameter's parsed value.
type Value struct {
	Bool bool
	Num  float64 // Int and Float
	Str  string  // Enum
	List []string
}

// Values are a model's parameters, parsed and checked against its schema.
// Every parameter of the schema has a value.
type Values struct {
	schema Schema
	v      map[string]Value
}

// Defaults returns the schema's default values.
func (s Schema) Defaults() Values {
	v, err := s.Parse(nil)
	if err != nil {
		// A default outside its own bounds is a programming error in the
		// declaration, caught by the declaring package's tests.
		panic("param: bad default: " + err.Error())
	}
	return v
}

// Check is Parse for a caller that only wants to know: a model's Validate
// is its schema's Check of its parameters written out.
func (s Schema) Check(raw map[string]string) error {
	_, err := s.values(raw)
	return err
}

// Parse checks raw values, as written in markdown, a query string, a form
// or a command line, and fills in defaults for the parameters not given.
func (s Schema) Parse(raw map[string]string) (Values, error) {
	vals, err := s.values(raw)
	if err != nil {
		return Values{}, err
	}
	out := Values{schema: s, v: make(map[string]Value, len(s))}
	for i, p := range s {
		out.v[p.Name] = vals[i]
	}
	return out, nil
}

// values checks raw as Parse does and returns the values in the schema's
// order.
func (s Schema) values(raw map[string]string) ([]Value, error) {
	var unknown []string
	for k := range raw {
		if _, ok := s.Param(k); !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		k := slices.Min(unknown) // report the first problem in a stable order
		return nil, &Error{Param: k, Msg: "unknown parameter " + strconv.Quote(k) + " (" + suggest.DidYouMean(k, s.Names()) + "known: " + strings.Join(s.Names(), ", ") + ")"}
	}
	vals := make([]Value, len(s))
	for i, p := range s {
		val, err := p.Parse(textOf(raw, p))
		if err != nil {
			return nil, err
		}
		vals[i] = val
	}
	for i, p := range s {
		for _, r := range p.Rules {
			j := slices.IndexFunc(s, func(q Param) bool { return q.Name == r.Other })
			if j < 0 {
				panic("param: " + p.Name + " has a rule on " + strconv.Quote(r.Other) + ", which the schema lacks")
			}
			if !r.Op.holds(vals[i].Num, vals[j].Num) {
				return nil, &Error{Param: p.Name, Value: strings.TrimSpace(textOf(raw, p)),
					Msg: "is not " + r.Op.String() + " " + r.Other + " (" + Number(vals[j].Num) + ")"}
			}
		}
	}
	return vals, nil
}

// notAllowed says that text is none of p's allowed values, with the one
// most likely meant.
func (p Param) notAllowed(text string) string {
	return "is not allowed (" + suggest.DidYouMean(text, p.Allowed) + "allowed: " + strings.Join(p.Allowed, ", ") + ")"
}

// textOf is p's value in raw, or its default when raw does not give it.
func textOf(raw map[string]string, p Param) string {
	if text, given := raw[p.Name]; given {
		return text
	}
	return p.Default
}

// Parse reads one value of p, within p's own bounds; Schema.Parse checks
// the rules between parameters too.
func (p Param) Parse(text string) (Value, error) {
	text = strings.TrimSpace(text)
	bad := func(msg string) (Value, error) {
		return Value{}, &Error{Param: p.Name, Value: text, Msg: msg}
	}
	switch p.Kind {
	case Bool:
		switch lowerASCII(text) {
		case "on", "true", "yes":
			return Value{Bool: true}, nil
		case "off", "false", "no":
			return Value{Bool: false}, nil
		}
		return bad("is not allowed (allowed: on, off)")
	case Int, Float:
		bounds := func() string { return Number(p.Min) + " to " + Number(p.Max) } // written only for an error
		f, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			if p.Kind == Int {
				return bad("is not a whole number (allowed: " + bounds() + ")")
			}
			return bad("is not a number (allowed: " + bounds() + ")")
		}
		if p.Kind == Int && f != math.Trunc(f) {
			return bad("is not a whole number (allowed: " + bounds() + ")")
		}
		if f < p.Min || f > p.Max {
			return bad("is out of bounds (allowed: " + bounds() + ")")
		}
		return Value{Num: f}, nil
	case Enum:
		if contains(p.Allowed, text) {
			return Value{Str: text}, nil
		}
		return bad(p.notAllowed(text))
	case EnumList:
		var list []string
		if text != "" {
			for _, item := range strings.Split(text, ",") {
				item = strings.TrimSpace(item)
				if !contains(p.Allowed, item) {
					return Value{}, &Error{Param: p.Name, Value: item, Msg: p.notAllowed(item)}
				}
				list = append(list, item)
			}
		}
		if p.MaxItems > 0 && len(list) > p.MaxItems {
			return bad("has " + strconv.Itoa(len(list)) + " items (allowed: at most " + strconv.Itoa(p.MaxItems) + ")")
		}
		if len(list) < p.MinItems {
			return bad("has " + strconv.Itoa(len(list)) + " items (allowed: at least " + strconv.Itoa(p.MinItems) + ")")
		}
		for p.Pad != "" && len(list) > 0 && list[len(list)-1] == p.Pad {
			list = list[:len(list)-1]
		}
		return Value{List: list}, nil
	}
	return bad("has an unknown kind " + p.Kind.String())
}

// Text is a value's canonical textual form, which Parse accepts back.
func (p Param) Text(v Value) string {
	switch p.Kind {
	case Bool:
		return OnOff(v.Bool)
	case Int, Float:
		return Number(v.Num)
	case Enum:
		return v.Str
	case EnumList:
		return strings.Join(v.List, ", ")
	}
	return ""
}

// Bool, Int, Float, String and List return a parameter's value. Asking for a
// parameter the schema lacks, or with the wrong kind, is a programming error
// and panics, as a map of the wrong type would.
func (v Values) Bool(name string) bool     { return v.get(name, Bool).Bool }
func (v Values) Int(name string) int       { return int(v.get(name, Int).Num) }
func (v Values) Float(name string) float64 { return v.get(name, Float).Num }
func (v Values) String(name string) string { return v.get(name, Enum).Str }
func (v Values) List(name string) []string {
	return append([]string(nil), v.get(name, EnumList).List...)
}
func (v Values) Schema() Schema { return v.schema }

// Value is the parsed value of the parameter called name, and whether the
// schema has it.
func (v Values) Value(name string) (Value, bool) {
	val, ok := v.v[name]
	return val, ok
}

// Text is the canonical text of the value of the parameter called name.
func (v Values) Text(name string) string { return v.mustParam(name).Text(v.v[name]) }

// Raw returns every value in its textual form, keyed by parameter name.
func (v Values) Raw() map[string]string {
	raw := make(map[string]string, len(v.schema))
	for _, p := range v.schema {
		raw[p.Name] = p.Text(v.v[p.Name])
	}
	return raw
}

func (v Values) mustParam(name string) Param {
	p, ok := v.schema.Param(name)
	if !ok {
		panic("param: no parameter " + strconv.Quote(name))
	}
	return p
}

func (v Values) get(name string, k Kind) Value {
	p := v.mustParam(name)
	if p.Kind != k && !(k == Int && p.Kind == Float) && !(k == Float && p.Kind == Int) {
		panic("param: parameter " + strconv.Quote(name) + " is a " + p.Kind.String() + ", not a " + k.String())
	}
	return v.v[name]
}

// lowerASCII lowers the letters A to Z alone, which is all a bool's
// words need: no other rune lowers to one of them (the Kelvin sign, the
// one non-ASCII rune that lowers into ASCII, lowers to k, which they lack).
// strings.ToLower would link unicode's case tables into the page's module.
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// Number writes f in its shortest exact decimal form, which Parse reads
// back: 0.1, 2.5, 100, -0.001; a negative zero is "0". It is the digits of
// every number the project writes: a parameter's text, a bound in an error
// message, and (chart.Number) a figure for a reader.
func Number(f float64) string {
	if f == 0 {
		return "0" // and not "-0"
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// OnOff writes a Bool parameter's value.
func OnOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// Strings converts a list of a string type, such as the allowed values of
// an engine's enum, for Allowed.
func Strings[S ~string](xs []S) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// MaxSeed bounds a seed parameter: any whole number up to a billion, exact
// in the float64 a parameter is kept in.
const MaxSeed = 1_000_000_000

// Seed declares the seed of a random model, called "seed" everywhere (the
// CLI's --seed included), default 1, under "More parameters".
func Seed(help string) Param {
	return Param{Name: "seed", Label: "Seed", Kind: Int, Default: "1", Min: 0, Max: MaxSeed, More: true, Help: help}
}
