package param

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unsafe"
)

// A Binder is what a model's Params declares its parameters to, one call
// a parameter, each naming the field that holds the parameter's value:
//
//	func (p *Params) Bind(b *param.Binder) {
//		param.OneOf(b, &p.Guard, Guards, param.Param{Name: "guard", Label: "Guard", Default: "setnx", Help: "..."})
//		b.Int(&p.Dupes, param.Param{Name: "dupes", Label: "Identical requests", Default: "2", Min: 1, Max: 100, Help: "..."})
//		b.Seconds(&p.Work, param.Param{Name: "work", Label: "Charge takes (s)", Default: "2", Min: 0, Max: 604800, Help: "..."})
//	}
//
// The call sets the parameter's Kind. NewBinding runs Bind once, on a
// Params of its own, and keeps each parameter's declaration and where in a
// Params its field is; from those the Binding reads a Params from checked
// values, writes one out and checks one, whatever the Params, with no
// reflection and no Bind run again.
type Binder struct {
	base   unsafe.Pointer // the Params Bind runs on
	size   uintptr        // its size: every field is within it
	schema Schema
	fields []field
}

// A field is where a parameter's value is in a Params: its offset from
// the start, and how it is held there.
type field struct {
	off  uintptr
	held held
}

// held is how a field holds its parameter's value.
type held uint8

const (
	heldInt          held = iota // int
	heldInt64                    // int64
	heldUint64                   // uint64 (a seed)
	heldFloat                    // float64
	heldBool                     // bool
	heldSeconds                  // time.Duration, whole seconds
	heldFloatSeconds             // time.Duration, seconds to the microsecond
	heldWord                     // a string type (OneOf)
	heldWords                    // a slice of a string type (ListOf)
)

// Int binds an Int parameter to v.
func (b *Binder) Int(v *int, p Param) {
	p.Kind = Int
	b.bind(unsafe.Pointer(v), unsafe.Sizeof(*v), heldInt, p)
}

// Int64 binds an Int parameter to v.
func (b *Binder) Int64(v *int64, p Param) {
	p.Kind = Int
	b.bind(unsafe.Pointer(v), unsafe.Sizeof(*v), heldInt64, p)
}

// Float binds a Float parameter to v.
func (b *Binder) Float(v *float64, p Param) {
	p.Kind = Float
	b.bind(unsafe.Pointer(v), unsafe.Sizeof(*v), heldFloat, p)
}

// Seconds binds an Int parameter, a whole number of seconds, to the
// duration v. A duration with a fraction of a second is written with it,
// which the parameter refuses.
func (b *Binder) Seconds(v *time.Duration, p Param) {
	p.Kind = Int
	b.bind(unsafe.Pointer(v), unsafe.Sizeof(*v), heldSeconds, p)
}

// FloatSeconds binds a Float parameter, in seconds, to the duration v,
// which keeps it to the microsecond: a parameter's Step is a thousandth
// at the finest.
func (b *Binder) FloatSeconds(v *time.Duration, p Param) {
	p.Kind = Float
	b.bind(unsafe.Pointer(v), unsafe.Sizeof(*v), heldFloatSeconds, p)
}

// Bool binds a Bool parameter to v.
func (b *Binder) Bool(v *bool, p Param) {
	p.Kind = Bool
	b.bind(unsafe.Pointer(v), unsafe.Sizeof(*v), heldBool, p)
}

// Seed binds the seed of a random model to v, declared by Seed(help).
func (b *Binder) Seed(v *uint64, help string) {
	b.bind(unsafe.Pointer(v), unsafe.Sizeof(*v), heldUint64, Seed(help))
}

// OneOf binds an Enum parameter to v, a value of a string type, whose
// allowed values are allowed, in display order.
func OneOf[S ~string](b *Binder, v *S, allowed []S, p Param) {
	p.Kind = Enum
	p.Allowed = Strings(allowed)
	// A value of a string type is held as a string is.
	b.bind(unsafe.Pointer(v), unsafe.Sizeof(*v), heldWord, p)
}

// ListOf binds an EnumList parameter to v, a list of a string type, whose
// allowed items are allowed, in display order.
func ListOf[S ~string](b *Binder, v *[]S, allowed []S, p Param) {
	p.Kind = EnumList
	p.Allowed = Strings(allowed)
	// A slice of a string type is held as a slice of strings is.
	b.bind(unsafe.Pointer(v), unsafe.Sizeof(*v), heldWords, p)
}

// bind declares p, held as h in the size bytes at v.
func (b *Binder) bind(v unsafe.Pointer, size uintptr, h held, p Param) {
	if _, dup := b.schema.Param(p.Name); dup {
		panic("param: two parameters called " + strconv.Quote(p.Name))
	}
	// v is within the Params Bind runs on: Bind bound a field of it, and
	// not, say, a package variable.
	start, at := uintptr(b.base), uintptr(v)
	if at < start || at+size > start+b.size {
		panic("param: " + p.Name + " is bound to a field outside the Params")
	}
	b.schema = append(b.schema, p)
	b.fields = append(b.fields, field{off: at - start, held: h})
}

// A Binding is a model's parameters as its Params' Bind method declares
// them: their Schema, and the reading, writing and checking of a Params.
// A model keeps one in a package variable:
//
//	var Binding = param.NewBinding((*Params).Bind)
//
// Its methods only pass a Params to declared's, which work on any model's
// by the fields' places, so that the page's module carries them once
// rather than a copy for each Params type.
type Binding[P any] struct {
	declared
}

// declared is a Binding's declaration: the parameters, where each is held
// in a Params, their defaults, and the rules between them by index.
type declared struct {
	Schema   Schema
	fields   []field
	defaults Values
	rules    []boundRule
}

// A boundRule is a Rule by the indexes of its two parameters.
type boundRule struct {
	op   Op
	i, j int
}

// NewBinding declares the parameters bind declares. A declaration that
// contradicts itself (a default outside its bounds, two parameters of one
// name, a field outside the Params, a rule on a parameter the schema
// lacks) panics, as the package that declares it starts.
func NewBinding[P any](bind func(*P, *Binder)) *Binding[P] {
	p := new(P)
	b := Binder{base: unsafe.Pointer(p), size: unsafe.Sizeof(*p)}
	bind(p, &b)
	d := new(Binding[P])
	d.declare(b)
	return d
}

func (d *declared) declare(b Binder) {
	d.Schema, d.fields = b.schema, b.fields
	for i, q := range d.Schema {
		for _, r := range q.Rules {
			j := d.Schema.index(r.Other)
			if j < 0 {
				panic("param: " + q.Name + " has a rule on " + strconv.Quote(r.Other) + ", which the schema lacks")
			}
			if q.Kind != Int && q.Kind != Float || d.Schema[j].Kind != Int && d.Schema[j].Kind != Float {
				panic("param: the rule of " + q.Name + " on " + r.Other + " is not between two numbers")
			}
			d.rules = append(d.rules, boundRule{r.Op, i, j})
		}
	}
	d.defaults = d.Schema.Defaults()
}

// Defaults are the parameters at their declared defaults.
func (d *Binding[P]) Defaults() P { return d.Read(d.defaults) }

// Read reads parameters checked against the Schema, or against a view of
// it (Schema.Without): a parameter the values lack is at its default.
func (d *Binding[P]) Read(v Values) P {
	var p P
	d.read(v, unsafe.Pointer(&p))
	return p
}

// Raw writes the parameters as the Schema reads them.
func (d *Binding[P]) Raw(p P) map[string]string { return d.raw(unsafe.Pointer(&p)) }

// Check checks every parameter against its declaration, the rules
// between them too, and gives the answer of the Schema's Check of the
// same parameters written out: the fields are checked as they are, and
// only parameters outside their declaration are written out, for Check's
// error, which names the parameter, the value and what is allowed. (Check
// has the last word: a word it accepts once trimmed of spaces, a field
// here refuses, and Check then accepts.)
func (d *Binding[P]) Check(p P) error { return d.check(unsafe.Pointer(&p)) }

// at is the field f of the Params at p, as the type it is held as. Its
// offset is one Bind gave, from a pointer into a Params that bind checked
// lies within it, so it is within any Params of the type; a field of a
// string type has a string's layout, and a slice of one a slice of
// strings' (unsafe.Pointer's rule 1). This is what lets one copy of
// read, raw and check serve every model, where a generic one would be
// copied into the page's module for each Params type.
func at[T any](p unsafe.Pointer, f field) *T { return (*T)(unsafe.Add(p, f.off)) }

func (d *declared) read(v Values, p unsafe.Pointer) {
	for i, f := range d.fields {
		q := &d.Schema[i]
		val, ok := v.v[q.Name]
		if !ok {
			val = d.defaults.v[q.Name]
		}
		switch f.held {
		case heldInt:
			*at[int](p, f) = int(val.Num)
		case heldInt64:
			*at[int64](p, f) = int64(val.Num)
		case heldUint64:
			*at[uint64](p, f) = uint64(val.Num)
		case heldFloat:
			*at[float64](p, f) = val.Num
		case heldBool:
			*at[bool](p, f) = val.Bool
		case heldSeconds:
			*at[time.Duration](p, f) = time.Duration(val.Num) * time.Second
		case heldFloatSeconds:
			*at[time.Duration](p, f) = time.Duration(math.Round(val.Num*1e6)) * time.Microsecond
		case heldWord:
			*at[string](p, f) = val.Str
		case heldWords:
			*at[[]string](p, f) = append([]string(nil), val.List...)
		}
	}
}

func (d *declared) raw(p unsafe.Pointer) map[string]string {
	raw := make(map[string]string, len(d.fields))
	for i, f := range d.fields {
		var s string
		switch f.held {
		case heldInt:
			s = strconv.Itoa(*at[int](p, f))
		case heldInt64:
			s = strconv.FormatInt(*at[int64](p, f), 10)
		case heldUint64:
			s = strconv.FormatUint(*at[uint64](p, f), 10)
		case heldFloat:
			s = Number(*at[float64](p, f))
		case heldBool:
			s = OnOff(*at[bool](p, f))
		case heldSeconds, heldFloatSeconds:
			s = Number(at[time.Duration](p, f).Seconds())
		case heldWord:
			s = *at[string](p, f)
		case heldWords:
			s = strings.Join(*at[[]string](p, f), ",")
		}
		raw[d.Schema[i].Name] = s
	}
	return raw
}

func (d *declared) check(p unsafe.Pointer) error {
	for i, f := range d.fields {
		if !d.holds(p, i, f) {
			return d.Schema.Check(d.raw(p))
		}
	}
	for _, r := range d.rules {
		if !r.op.holds(d.num(p, r.i), d.num(p, r.j)) {
			return d.Schema.Check(d.raw(p))
		}
	}
	return nil
}

// holds reports whether field i of the Params at p is within its own
// declaration, as Parse of its text would find it.
func (d *declared) holds(p unsafe.Pointer, i int, f field) bool {
	q := &d.Schema[i]
	switch f.held {
	case heldBool:
		return true
	case heldSeconds:
		if *at[time.Duration](p, f)%time.Second != 0 {
			return false
		}
	case heldWord:
		return contains(q.Allowed, *at[string](p, f))
	case heldWords:
		list := *at[[]string](p, f)
		if (q.MaxItems > 0 && len(list) > q.MaxItems) || len(list) < q.MinItems {
			return false
		}
		for _, s := range list {
			if !contains(q.Allowed, s) {
				return false
			}
		}
		return true
	}
	x := d.num(p, i)
	// NaN is within no bounds, an infinity within none a declaration has.
	return x >= q.Min && x <= q.Max && (q.Kind != Int || x == math.Trunc(x))
}

// num is number field i of the Params at p, as its parameter counts it.
func (d *declared) num(p unsafe.Pointer, i int) float64 {
	f := d.fields[i]
	switch f.held {
	case heldInt:
		return float64(*at[int](p, f))
	case heldInt64:
		return float64(*at[int64](p, f))
	case heldUint64:
		return float64(*at[uint64](p, f))
	case heldFloat:
		return *at[float64](p, f)
	case heldSeconds, heldFloatSeconds:
		return at[time.Duration](p, f).Seconds()
	}
	panic("param: " + d.Schema[i].Name + " is not a number")
}

// index is the index of the parameter named name, -1 if there is none.
func (s Schema) index(name string) int {
	for i := range s {
		if s[i].Name == name {
			return i
		}
	}
	return -1
}
