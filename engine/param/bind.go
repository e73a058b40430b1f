package param

import (
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
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
// The call sets the parameter's Kind. From that one method a Binding
// (NewBinding) derives the model's Schema, reads a Params from checked
// values, writes one out and checks one, with no reflection: Bind runs
// again to read or write, and the Binder does with each field what is
// asked; to check, the checks Bind recorded once for a Params of the
// Binding's own run on a copy. So Bind must declare the same parameters
// in the same order every time.
type Binder struct {
	op     op
	schema Schema            // declare: the parameters, in order
	values Values            // read: the values to read from
	raw    map[string]string // write: the values written out
	fields []field           // record: each parameter's check, in order
}

type op uint8

const (
	declare op = iota
	read
	write
	record
)

// A field is the check of one parameter's field, made by Bind in record
// mode for the Params a checker holds (Binding.Check): whether the field
// is within its own declaration, and a number parameter's value, for the
// rules between parameters.
type field struct {
	ok  func() bool
	num func() float64
}

// Int binds an Int parameter to v.
func (b *Binder) Int(v *int, p Param) {
	p.Kind = Int
	switch b.op {
	case declare:
		b.declare(p)
	case read:
		*v = int(b.value(&p).Num)
	case write:
		b.raw[p.Name] = strconv.Itoa(*v)
	case record:
		b.number(func() float64 { return float64(*v) }, nil, &p)
	}
}

// Int64 binds an Int parameter to v.
func (b *Binder) Int64(v *int64, p Param) {
	p.Kind = Int
	switch b.op {
	case declare:
		b.declare(p)
	case read:
		*v = int64(b.value(&p).Num)
	case write:
		b.raw[p.Name] = strconv.FormatInt(*v, 10)
	case record:
		b.number(func() float64 { return float64(*v) }, nil, &p)
	}
}

// Float binds a Float parameter to v.
func (b *Binder) Float(v *float64, p Param) {
	p.Kind = Float
	switch b.op {
	case declare:
		b.declare(p)
	case read:
		*v = b.value(&p).Num
	case write:
		b.raw[p.Name] = Number(*v)
	case record:
		b.number(func() float64 { return *v }, nil, &p)
	}
}

// Seconds binds an Int parameter, a whole number of seconds, to the
// duration v. A duration with a fraction of a second is written with it,
// which the parameter refuses.
func (b *Binder) Seconds(v *time.Duration, p Param) {
	p.Kind = Int
	switch b.op {
	case declare:
		b.declare(p)
	case read:
		*v = time.Duration(b.value(&p).Num) * time.Second
	case write:
		b.raw[p.Name] = Number(v.Seconds())
	case record:
		b.number(func() float64 { return v.Seconds() }, func() bool { return *v%time.Second == 0 }, &p)
	}
}

// FloatSeconds binds a Float parameter, in seconds, to the duration v,
// which keeps it to the microsecond: a parameter's Step is a thousandth
// at the finest.
func (b *Binder) FloatSeconds(v *time.Duration, p Param) {
	p.Kind = Float
	switch b.op {
	case declare:
		b.declare(p)
	case read:
		*v = time.Duration(math.Round(b.value(&p).Num*1e6)) * time.Microsecond
	case write:
		b.raw[p.Name] = Number(v.Seconds())
	case record:
		b.number(func() float64 { return v.Seconds() }, nil, &p)
	}
}

// Bool binds a Bool parameter to v.
func (b *Binder) Bool(v *bool, p Param) {
	p.Kind = Bool
	switch b.op {
	case declare:
		b.declare(p)
	case read:
		*v = b.value(&p).Bool
	case write:
		b.raw[p.Name] = OnOff(*v)
	case record:
		b.fields = append(b.fields, field{ok: always})
	}
}

// Seed binds the seed of a random model to v, declared by Seed(help).
func (b *Binder) Seed(v *uint64, help string) {
	p := Seed(help)
	switch b.op {
	case declare:
		b.declare(p)
	case read:
		*v = uint64(b.value(&p).Num)
	case write:
		b.raw[p.Name] = strconv.FormatUint(*v, 10)
	case record:
		b.number(func() float64 { return float64(*v) }, nil, &p)
	}
}

// OneOf binds an Enum parameter to v, a value of a string type, whose
// allowed values are allowed, in display order.
func OneOf[S ~string](b *Binder, v *S, allowed []S, p Param) {
	p.Kind = Enum
	switch b.op {
	case declare:
		p.Allowed = Strings(allowed)
		b.declare(p)
	case read:
		*v = S(b.value(&p).Str)
	case write:
		b.raw[p.Name] = string(*v)
	case record:
		b.fields = append(b.fields, field{ok: func() bool { return containsOf(allowed, *v) }})
	}
}

// ListOf binds an EnumList parameter to v, a list of a string type, whose
// allowed items are allowed, in display order.
func ListOf[S ~string](b *Binder, v *[]S, allowed []S, p Param) {
	p.Kind = EnumList
	switch b.op {
	case declare:
		p.Allowed = Strings(allowed)
		b.declare(p)
	case read:
		list := b.value(&p).List
		out := make([]S, len(list))
		for i, s := range list {
			out[i] = S(s)
		}
		*v = out
	case write:
		var s strings.Builder
		for i, x := range *v {
			if i > 0 {
				s.WriteByte(',')
			}
			s.WriteString(string(x))
		}
		b.raw[p.Name] = s.String()
	case record:
		lo, hi := p.MinItems, p.MaxItems
		b.fields = append(b.fields, field{ok: func() bool {
			if n := len(*v); (hi > 0 && n > hi) || n < lo {
				return false
			}
			for _, x := range *v {
				if !containsOf(allowed, x) {
					return false
				}
			}
			return true
		}})
	}
}

func (b *Binder) declare(p Param) {
	if _, dup := b.schema.Param(p.Name); dup {
		panic("param: two parameters called " + strconv.Quote(p.Name))
	}
	b.schema = append(b.schema, p)
}

// value is p's value in the values read, or its default if they lack it
// (a view of the schema without p, as the budget widget's).
func (b *Binder) value(p *Param) Value {
	if v, ok := b.values.v[p.Name]; ok {
		return v
	}
	v, err := p.Parse(p.Default)
	if err != nil {
		panic("param: bad default: " + err.Error())
	}
	return v
}

// number records the check of a number parameter: the value is within
// p's own bounds, as Parse of its text would find it, and whole where
// whole says (nil: always).
func (b *Binder) number(x func() float64, whole func() bool, p *Param) {
	lo, hi, integer := p.Min, p.Max, p.Kind == Int
	b.fields = append(b.fields, field{num: x, ok: func() bool {
		f := x()
		// NaN is within no bounds; an infinity within none of a
		// declaration's, which are finite.
		return f >= lo && f <= hi && (!integer || f == math.Trunc(f)) && (whole == nil || whole())
	}})
}

// always is the check of a field that holds nothing a declaration
// refuses: a bool.
func always() bool { return true }

func containsOf[S ~string](list []S, s S) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// A Binding is a model's parameters as its Params' Bind method declares
// them: their Schema, and the reading, writing and checking of a Params.
// A model keeps one in a package variable:
//
//	var Binding = param.NewBinding((*Params).Bind)
type Binding[P any] struct {
	Schema   Schema
	bind     func(*P, *Binder)
	defaults Values
	rules    []boundRule
	// spare is a checker that Check reuses, so that checking a Params,
	// as every run of a model does first, allocates nothing and runs no
	// Bind; two checks at once each have their own.
	spare atomic.Pointer[checker[P]]
}

// A boundRule is a Rule by the indexes of its two parameters.
type boundRule struct {
	op   Op
	i, j int
}

// A checker is a Params of its own and the checks of its fields, which
// Bind recorded once: Check copies the Params to check into p and runs
// them.
type checker[P any] struct {
	p      P
	fields []field
}

// NewBinding declares the parameters bind declares. A declaration that
// contradicts itself (a default outside its bounds, two parameters of one
// name, a rule on a parameter the schema lacks) panics, as the package
// that declares it starts.
func NewBinding[P any](bind func(*P, *Binder)) *Binding[P] {
	var p P
	b := Binder{op: declare}
	bind(&p, &b)
	d := &Binding[P]{Schema: b.schema, bind: bind}
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
	return d
}

// Defaults are the parameters at their declared defaults.
func (d *Binding[P]) Defaults() P { return d.Read(d.defaults) }

// Read reads parameters checked against the Schema, or against a view of
// it (Schema.Without): a parameter the values lack is at its default.
func (d *Binding[P]) Read(v Values) P {
	var p P
	b := Binder{op: read, values: v}
	d.bind(&p, &b)
	return p
}

// Raw writes the parameters as the Schema reads them.
func (d *Binding[P]) Raw(p P) map[string]string {
	b := Binder{op: write, raw: make(map[string]string, len(d.Schema))}
	d.bind(&p, &b)
	return b.raw
}

// Check checks every parameter against its declaration, the rules
// between them too, and gives the answer of the Schema's Check of the
// same parameters written out: the fields are checked as they are, and
// only parameters outside their declaration are written out, for Check's
// error, which names the parameter, the value and what is allowed. (Check
// has the last word: a word it accepts once trimmed of spaces, a field
// here refuses, and Check then accepts.)
func (d *Binding[P]) Check(p P) error {
	c := d.spare.Swap(nil)
	if c == nil {
		c = d.checker()
	}
	c.p = p
	ok := true
	for i := range c.fields {
		if !c.fields[i].ok() {
			ok = false
			break
		}
	}
	for _, r := range d.rules {
		if ok && !r.op.holds(c.fields[r.i].num(), c.fields[r.j].num()) {
			ok = false
		}
	}
	var zero P
	c.p = zero // the spare keeps no list of the caller's
	d.spare.Store(c)
	if !ok {
		return d.Schema.Check(d.Raw(p))
	}
	return nil
}

// checker makes a checker: Bind records the checks of its Params' fields.
func (d *Binding[P]) checker() *checker[P] {
	c := &checker[P]{}
	b := Binder{op: record}
	d.bind(&c.p, &b)
	if len(b.fields) != len(d.Schema) {
		panic("param: Bind bound " + strconv.Itoa(len(d.Schema)) + " parameters, then " + strconv.Itoa(len(b.fields)))
	}
	c.fields = b.fields
	return c
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
