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
	"strconv"

	"github.com/retrylab/retrylab/engine/param"
)

// A widget's parameters are declared with the model's, in engine/param;
// these are the same types under the names the widgets have always used.
type (
	Kind  = param.Kind
	Param = param.Param
	Error = param.Error
)

const (
	Bool     = param.Bool
	Int      = param.Int
	Float    = param.Float
	Enum     = param.Enum
	EnumList = param.EnumList
)

// Schema is a widget's ordered list of parameters.
type Schema []Param

// Param returns the parameter called name.
func (s Schema) Param(name string) (Param, bool) { return param.Schema(s).Param(name) }

// Names lists the parameters' names, sorted, for error messages.
func (s Schema) Names() []string { return param.Schema(s).Names() }

// Values are a widget's parameters, parsed and checked against its schema.
// Every parameter of the schema has a value.
type Values struct {
	schema Schema
	v      map[string]value
	model  param.Values
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
// form, against the declaration (engine/param) and fills in defaults for
// the parameters not given.
func (s Schema) Parse(raw map[string]string) (Values, error) {
	m, err := param.Schema(s).Parse(raw)
	if err != nil {
		return Values{}, err
	}
	out := Values{schema: s, v: make(map[string]value, len(s)), model: m}
	for _, p := range s {
		val, _ := m.Value(p.Name)
		out.v[p.Name] = value{b: val.Bool, f: val.Num, s: val.Str, l: val.List}
	}
	return out, nil
}

// Model returns the values as the engine's models take them.
func (v Values) Model() param.Values { return v.model }

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
	return p.Text(param.Value{Bool: val.b, Num: val.f, Str: val.s, List: val.l})
}

func canonical(p Param) string {
	val, err := p.Parse(p.Default)
	if err != nil {
		return p.Default
	}
	return p.Text(val)
}

// Raw returns every value in its textual form, keyed by parameter name.
func (v Values) Raw() map[string]string {
	raw := make(map[string]string, len(v.schema))
	for _, p := range v.schema {
		raw[p.Name] = v.text(p)
	}
	return raw
}

func formatNumber(f float64) string { return param.Number(f) }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func quote(s string) string { return strconv.Quote(s) }
