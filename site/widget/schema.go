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

// Values are a widget's parameters, parsed and checked against its
// schema: the engine's param.Values, whose accessors they have, with what
// the page does with them (JSON, Query, Bounds, ...).
type Values struct{ param.Values }

// Defaults returns the schema's default values.
func (s Schema) Defaults() Values { return Values{param.Schema(s).Defaults()} }

// Parse checks raw values, as written in markdown, a query string or a
// form, against the declaration (engine/param) and fills in defaults for
// the parameters not given.
func (s Schema) Parse(raw map[string]string) (Values, error) {
	v, err := param.Schema(s).Parse(raw)
	if err != nil {
		return Values{}, err
	}
	return Values{v}, nil
}

// Schema is the schema the values were checked against.
func (v Values) Schema() Schema { return Schema(v.Values.Schema()) }

// IsDefault reports whether the parameter called name is at its default.
func (v Values) IsDefault(name string) bool {
	p, ok := v.Values.Schema().Param(name)
	if !ok {
		panic("widget: no parameter " + quote(name))
	}
	return v.Text(name) == canonical(p)
}

// With is the values with the parameter called name set to text, checked.
func (v Values) With(name, text string) (Values, error) {
	raw := v.Raw()
	raw[name] = text
	return v.Schema().Parse(raw)
}

// canonical is p's default in its canonical form, as Text writes it.
func canonical(p Param) string {
	val, err := p.Parse(p.Default)
	if err != nil {
		return p.Default
	}
	return p.Text(val)
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
