package param

import (
	"math"
	"strconv"
)

// A Field is one parameter's value as a model's Params holds it: a number,
// a word, a list of words or a yes or no, typed rather than written out.
// Schema.CheckFields checks a model's fields against its declaration
// without the text round trip of Check. The zero Field stands for a
// parameter the Params does not hold (a runner's seed): it is at its
// default, which the declaration's own tests hold within bounds.
type Field struct {
	kind  fieldKind
	num   float64
	word  string
	words []string
}

type fieldKind uint8

const (
	atDefault fieldKind = iota
	numField
	wordField
	wordsField
	flagField
)

// Num is the field of an Int or Float parameter.
func Num(f float64) Field { return Field{kind: numField, num: f} }

// Word is the field of an Enum parameter.
func Word[S ~string](s S) Field { return Field{kind: wordField, word: string(s)} }

// Words is the field of an EnumList parameter.
func Words(list []string) Field { return Field{kind: wordsField, words: list} }

// Flag is the field of a Bool parameter.
func Flag(bool) Field { return Field{kind: flagField} }

// AtDefault is the field of a parameter the Params does not hold.
var AtDefault = Field{}

// CheckFields checks fields, one per parameter of the schema in its order,
// as Check(raw()) checks the same parameters written out, and gives the
// same answer: raw is called only when a field is outside the declaration,
// and Check's error, naming the parameter, the value and what is allowed,
// is the one returned. (Check has the last word: a word it accepts once
// trimmed of spaces, a field here refuses, and Check then accepts.)
//
// A field of another kind than its parameter's, or a count of fields other
// than the schema's, is a programming error and panics.
func (s Schema) CheckFields(raw func() map[string]string, fields ...Field) error {
	if len(fields) != len(s) {
		panic("param: " + strconv.Itoa(len(fields)) + " fields for a schema of " + strconv.Itoa(len(s)))
	}
	// By index: a Param is some 250 bytes, too many to copy just to read
	// its bounds.
	for i := range s {
		if !s[i].holds(&fields[i]) {
			return s.Check(raw())
		}
	}
	for i := range s {
		for _, r := range s[i].Rules {
			j := s.index(r.Other)
			if j < 0 || fields[i].kind != numField || fields[j].kind != numField {
				// A rule on a parameter at its default, or a schema
				// without the other: Check knows the default and panics.
				return s.Check(raw())
			}
			if !r.Op.holds(fields[i].num, fields[j].num) {
				return s.Check(raw())
			}
		}
	}
	return nil
}

// holds reports whether f is within p's own bounds, as Parse of its text
// would.
func (p *Param) holds(f *Field) bool {
	if f.kind == atDefault {
		return true
	}
	if f.kind != p.Kind.field() {
		panic("param: the field of " + p.Name + ", a " + p.Kind.String() + ", is of another kind")
	}
	switch p.Kind {
	case Int, Float:
		x := f.num
		if math.IsNaN(x) || math.IsInf(x, 0) || (p.Kind == Int && x != math.Trunc(x)) {
			return false
		}
		return x >= p.Min && x <= p.Max
	case Enum:
		return contains(p.Allowed, f.word)
	case EnumList:
		if (p.MaxItems > 0 && len(f.words) > p.MaxItems) || len(f.words) < p.MinItems {
			return false
		}
		for _, w := range f.words {
			if !contains(p.Allowed, w) {
				return false
			}
		}
	}
	return true
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

// field is the kind of Field that a parameter of kind k takes.
func (k Kind) field() fieldKind {
	switch k {
	case Bool:
		return flagField
	case Int, Float:
		return numField
	case Enum:
		return wordField
	case EnumList:
		return wordsField
	}
	return atDefault
}
