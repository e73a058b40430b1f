// Package ijson reads and writes JSON without reflection: the one JSON
// codec of the engine and of the page's WebAssembly module, where
// encoding/json and its reflection would cost every reader their bytes.
//
// It speaks I-JSON (RFC 7493), the strict profile of JSON (RFC 8259).
// Parse refuses what is not JSON and, besides, the three things that let
// one text mean different values to different readers: an object with two
// members of the same name (compared after decoding escapes), bytes that
// are not UTF-8, and a \u escape of half a UTF-16 surrogate pair.
// encoding/json accepts those three (the last of two members wins; bad
// bytes and lone halves become U+FFFD); everything else it accepts, Parse
// accepts with the same values, and what it refuses Parse refuses too (the
// package's fuzz test holds it to both).
//
// A number keeps the text it was written with: 1, 1.0 and 1e0 are three
// values, and a number beyond int64 or float64 (1e400) is read without
// loss. Converting it is the caller's business (strconv), where the range
// that matters is known and an error can name it; encoding/json with
// UseNumber does the same.
package ijson

import (
	"iter"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxDepth bounds the nesting of arrays and objects: the bound
// encoding/json's scanner uses, so that the two refuse the same texts.
const MaxDepth = 10000

// Kind is the kind of a Value.
type Kind uint8

// The kinds of JSON values. The zero Value is null.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

// String names the kind for an error message: "an object", "a number".
func (k Kind) String() string {
	return [...]string{"null", "a boolean", "a number", "a string", "an array", "an object"}[k]
}

// Value is one JSON value, as Parse read it.
type Value struct {
	text string // a string's decoded text, a number's or boolean's literal
	// items are an array's elements in order, or an object's keys (as
	// strings) and values alternately, sorted by key.
	items []Value
	kind  Kind
}

// Kind reports what kind of value v is.
func (v Value) Kind() Kind { return v.kind }

// Text is a string's decoded text, a number's literal text as written (an
// exponent, a fraction, a minus zero kept) and "true" or "false" for a
// boolean; "" for null, arrays and objects.
func (v Value) Text() string { return v.text }

// Elems is an array's elements in order, nil for other kinds.
func (v Value) Elems() []Value {
	if v.kind != Array {
		return nil
	}
	return v.items
}

// Members yields an object's keys and values sorted by the bytes of the
// keys (the order of the text is not kept: I-JSON objects are unordered),
// nothing for other kinds.
func (v Value) Members() iter.Seq2[string, Value] {
	return func(yield func(string, Value) bool) {
		if v.kind != Object {
			return
		}
		for i := 0; i < len(v.items); i += 2 {
			if !yield(v.items[i].text, v.items[i+1]) {
				return
			}
		}
	}
}

// Get returns the value of the object's member key; ok is false when v is
// not an object or has no such member.
func (v Value) Get(key string) (value Value, ok bool) {
	if v.kind != Object {
		return Value{}, false
	}
	n := len(v.items) / 2
	i := sort.Search(n, func(i int) bool { return v.items[2*i].text >= key })
	if i == n || v.items[2*i].text != key {
		return Value{}, false
	}
	return v.items[2*i+1], true
}

// Append appends v's canonical text to dst, so that two texts with the same
// value have the same bytes: no whitespace, an object's members sorted by
// the bytes of their keys (UTF-8), strings escaped as AppendString does,
// numbers as written. These are the string and ordering rules of RFC 8785
// (the JSON Canonicalization Scheme); its number rule is not followed, since
// whether 1 and 1.0 are one number is for the reader to decide.
//
// It keeps the arrays and objects it is inside on a list of its own rather
// than on the call stack, as Parse does, so that a value nested MaxDepth
// deep is written in any WebAssembly host.
func (v Value) Append(dst []byte) []byte {
	type frame struct {
		items []Value // of an array or object being written
		next  int     // the index in items of what comes next
		kind  Kind
	}
	var open []frame // innermost last
	for {
		// Write v, or open it and go on with its first element or member.
		switch v.kind {
		case Null:
			dst = append(dst, "null"...)
		case String:
			dst = AppendString(dst, v.text)
		case Array, Object:
			dst = append(dst, brackets[v.kind][0])
			if len(v.items) == 0 {
				dst = append(dst, brackets[v.kind][1])
				break
			}
			if len(open) == cap(open) {
				open = slices.Grow(open, len(open)+1) // doubling, at any size
			}
			open = append(open, frame{items: v.items, kind: v.kind})
		default:
			dst = append(dst, v.text...)
		}
		// Go on with the next element or member of the innermost one open,
		// closing those that end here.
		for {
			if len(open) == 0 {
				return dst
			}
			f := &open[len(open)-1]
			if f.next == len(f.items) {
				dst = append(dst, brackets[f.kind][1])
				open = open[:len(open)-1]
				continue
			}
			if f.next > 0 {
				dst = append(dst, ',')
			}
			if f.kind == Object {
				dst = append(AppendString(dst, f.items[f.next].text), ':')
				f.next++
			}
			v = f.items[f.next]
			f.next++
			break
		}
	}
}

// brackets are the opening and closing brackets of an array and an object.
var brackets = [...]string{Array: "[]", Object: "{}"}

// expecting says what may follow a value in an array and in an object.
var expecting = [...]string{Array: "',' or ']' in an array", Object: "',' or '}' in an object"}

// AppendString appends s to dst as a JSON string in one escaping: \" and
// \\, the short escapes \b \f \n \r \t, \u00xx (lower-case hex) for the
// other control characters, every other character as itself in UTF-8. A
// byte of s that is not UTF-8 is written as U+FFFD, as encoding/json does,
// so that what is written is always valid JSON.
func AppendString(dst []byte, s string) []byte {
	const hexdigits = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0 // s[start:i] is yet to be copied as it is
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || size > 1 {
				i += size
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\uFFFD"...)
		} else if c >= 0x20 && c != '"' && c != '\\' {
			i++
			continue
		} else {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexdigits[c>>4], hexdigits[c&0x0f])
			}
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// SyntaxError is the error Parse returns for a text that is not one I-JSON
// value: Offset is the byte offset in the text where the problem was found.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return "invalid JSON at offset " + strconv.Itoa(e.Offset) + ": " + e.Msg
}

// Parse reads the one JSON value in text, with nothing but whitespace
// around it. Its error is a *SyntaxError.
//
// It reads the text twice: once to count the elements and members of each
// array and object, then to read the values into one allocation of exactly
// that many. So what it allocates is a small multiple of the text's length
// (about 48 bytes per value) whatever the text's shape, and its time is
// linear in the length at any depth.
func Parse(text string) (Value, error) {
	p := parser{in: text}
	p.count()
	p.skipSpace()
	v, err := p.value()
	if err != nil {
		return Value{}, err
	}
	p.skipSpace()
	if p.pos < len(p.in) {
		return Value{}, p.errorf(p.pos, "unexpected "+describe(p.in[p.pos])+" after the JSON value")
	}
	return v, nil
}

// parser reads in from pos.
type parser struct {
	in  string
	pos int
	buf []byte // scratch for strings with escapes
	// counts are the number of elements or members of each array and
	// object, in the order they open, of which opened have opened; items
	// are the values not yet handed out to them; offsets are the offsets
	// in the text of every object's keys, of which keys are handed out.
	counts  []int
	deepest int // the most open at once
	opened  int
	items   []Value
	offsets []int
	keys    int
}

// count fills in counts, deepest, items and offsets: each array and object has as
// many elements or members as it has commas outside strings, and one more
// unless it is empty. A text that is not JSON may be counted wrong, but
// only after the point where the second reading stops at its error.
func (p *parser) count() {
	// At most this many arrays and objects (brackets in strings count
	// too): the lists below are made once, at their largest.
	// Counts and offsets share one allocation: a text that is JSON has
	// at most as many keys as colons.
	most := strings.Count(p.in, "[") + strings.Count(p.in, "{")
	ints := make([]int, most+strings.Count(p.in, ":"))
	p.counts = ints[:0:most]
	// open are the arrays and objects open, innermost last: the index in
	// counts of an array, its complement (^index) for an object. A text
	// with few arrays and objects keeps them in short, on the stack.
	var short [8]int
	open := short[:0]
	if most > len(short) {
		open = make([]int, 0, most)
	}
	values, keys := 0, 0
	// innermost is the index in counts of the innermost one open.
	innermost := func() int {
		if i := open[len(open)-1]; i >= 0 {
			return i
		}
		return ^open[len(open)-1]
	}
	// more counts one more element or member of the innermost one.
	more := func() {
		p.counts[innermost()]++
		values++
		if open[len(open)-1] < 0 {
			values++
			keys++
		}
	}
	for i := 0; i < len(p.in); i++ {
		switch c := p.in[i]; c {
		case ' ', '\t', '\n', '\r', ':':
		case ',':
			if len(open) > 0 {
				more()
			}
		case ']', '}':
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		default:
			if len(open) > 0 && p.counts[innermost()] == 0 {
				more() // the first
			}
			switch c {
			case '"':
				for i++; i < len(p.in) && p.in[i] != '"'; i++ {
					if p.in[i] == '\\' {
						i++
					}
				}
			case '[':
				open = append(open, len(p.counts))
				p.counts = append(p.counts, 0)
			case '{':
				open = append(open, ^len(p.counts))
				p.counts = append(p.counts, 0)
			}
			p.deepest = max(p.deepest, len(open))
		}
	}
	p.items = make([]Value, values)
	p.offsets = ints[most:]
	if keys > len(p.offsets) { // a text that is not JSON, counted wrong
		p.offsets = make([]int, keys)
	}
	p.offsets = p.offsets[:keys]
}

// take returns a frame for the next array or object to open, with its
// share of items (two for each member of an object) and of offsets.
func (p *parser) take(object bool) frame {
	n := p.counts[p.opened]
	p.opened++
	f := frame{first: -1}
	if object {
		f.first = p.keys
		p.keys += n
		n *= 2
	}
	f.items, p.items = p.items[:n:n], p.items[n:]
	return f
}

func (p *parser) errorf(offset int, msg string) error {
	return &SyntaxError{Offset: offset, Msg: msg}
}

// eof is the error for a text that stops where more was needed.
func (p *parser) eof(what string) error {
	return p.errorf(len(p.in), "unexpected end of input, expecting "+what)
}

func (p *parser) skipSpace() {
	for p.pos < len(p.in) {
		switch p.in[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// value reads the value at pos. The arrays and objects it is inside are
// kept on a list of their own rather than on the call stack, so that
// nesting MaxDepth deep is read in any WebAssembly host (V8's stack is 984
// KB unless its embedder says otherwise).
func (p *parser) value() (Value, error) {
	var short [8]frame
	open := short[:0] // innermost last; on the heap only when deeper than short
	if p.deepest > len(short) {
		open = make([]frame, 0, min(p.deepest, MaxDepth))
	}
	for {
		// Read a value, or open an array or object and go on with its
		// first element or member.
		if p.pos >= len(p.in) {
			return Value{}, p.eof("a value")
		}
		var v Value
		switch c := p.in[p.pos]; {
		case c == '[' || c == '{':
			if len(open) == MaxDepth {
				return Value{}, p.errorf(p.pos, "nesting deeper than "+strconv.Itoa(MaxDepth)+" levels")
			}
			f := p.take(c == '{')
			p.pos++
			p.skipSpace()
			if p.pos < len(p.in) && p.in[p.pos] == brackets[f.kind()][1] {
				p.pos++
				v = Value{kind: f.kind()}
				break
			}
			if f.kind() == Object {
				if err := p.key(&f); err != nil {
					return Value{}, err
				}
			}
			open = append(open, f)
			continue
		case c == '"':
			s, err := p.string()
			if err != nil {
				return Value{}, err
			}
			v = Value{kind: String, text: s}
		case c == '-' || '0' <= c && c <= '9':
			var err error
			if v, err = p.number(); err != nil {
				return Value{}, err
			}
		case c == 't' || c == 'f' || c == 'n':
			var err error
			if v, err = p.literal(); err != nil {
				return Value{}, err
			}
		default:
			return Value{}, p.errorf(p.pos, "unexpected "+describe(c)+", expecting a value")
		}
		// v is read: hand it to the innermost one open, and go on with
		// its next element or member, closing those that end here.
		for {
			if len(open) == 0 {
				return v, nil
			}
			f := &open[len(open)-1]
			f.items[f.n] = v
			f.n++
			p.skipSpace()
			where := expecting[f.kind()]
			if p.pos >= len(p.in) {
				return Value{}, p.eof(where)
			}
			c := p.in[p.pos]
			p.pos++
			if c == ',' {
				p.skipSpace()
				if f.kind() == Object {
					if err := p.key(f); err != nil {
						return Value{}, err
					}
				}
				break
			}
			if c != brackets[f.kind()][1] {
				return Value{}, p.errorf(p.pos-1, "unexpected "+describe(c)+", expecting "+where)
			}
			var err error
			if v, err = p.close(f); err != nil {
				return Value{}, err
			}
			open = open[:len(open)-1]
		}
	}
}

// frame is an array or object being read: its share of items (an
// object's keys and values alternately), of which n are read.
type frame struct {
	items []Value
	n     int
	// first is the index in offsets of an object's first key, -1 for an
	// array.
	first int
}

func (f *frame) kind() Kind {
	if f.first < 0 {
		return Array
	}
	return Object
}

// key reads an object's next key, and the ':' after it, into f.
func (p *parser) key(f *frame) error {
	if p.pos >= len(p.in) {
		return p.eof("an object key")
	}
	if p.in[p.pos] != '"' {
		return p.errorf(p.pos, "unexpected "+describe(p.in[p.pos])+", expecting a string for an object key")
	}
	p.offsets[f.first+f.n/2] = p.pos
	key, err := p.string()
	if err != nil {
		return err
	}
	f.items[f.n] = Value{kind: String, text: key}
	f.n++
	p.skipSpace()
	if p.pos >= len(p.in) {
		return p.eof("':' after an object key")
	}
	if p.in[p.pos] != ':' {
		return p.errorf(p.pos, "unexpected "+describe(p.in[p.pos])+", expecting ':' after an object key")
	}
	p.pos++
	p.skipSpace()
	return nil
}

// close returns the array or object f, read to its end. An object's
// members are sorted by key; two with the same key are an error.
func (p *parser) close(f *frame) (Value, error) {
	if f.kind() == Array {
		return Value{kind: Array, items: f.items}, nil
	}
	offsets := p.offsets[f.first : f.first+len(f.items)/2]
	// The stable sort keeps equal keys in text order, so that of several
	// repeated keys the one repeated first is reported. An object
	// written in order, as most are, is not handed to sort, whose
	// interface would take the members to the heap.
	ms := members{f.items, offsets}
	if !ms.sorted() {
		sort.Stable(&members{f.items, offsets})
	}
	dup := -1
	for i := 1; i < ms.Len(); i++ {
		if ms.key(i) == ms.key(i-1) && (dup < 0 || offsets[i] < offsets[dup]) {
			dup = i
		}
	}
	if dup >= 0 {
		return Value{}, p.errorf(offsets[dup], "duplicate key "+strconv.Quote(ms.key(dup)))
	}
	return Value{kind: Object, items: f.items}, nil
}

// members sorts an object's members (in items, key and value alternately)
// by key, with their keys' offsets.
type members struct {
	items   []Value
	offsets []int
}

func (m *members) key(i int) string { return m.items[2*i].text }

// sorted is sort.IsSorted(m), written out so that m stays on the stack.
func (m *members) sorted() bool {
	for i := 1; i < m.Len(); i++ {
		if m.Less(i, i-1) {
			return false
		}
	}
	return true
}

func (m *members) Len() int           { return len(m.offsets) }
func (m *members) Less(i, j int) bool { return m.key(i) < m.key(j) }
func (m *members) Swap(i, j int) {
	m.items[2*i], m.items[2*j] = m.items[2*j], m.items[2*i]
	m.items[2*i+1], m.items[2*j+1] = m.items[2*j+1], m.items[2*i+1]
	m.offsets[i], m.offsets[j] = m.offsets[j], m.offsets[i]
}

// literal reads true, false or null, whose first letter is at pos.
func (p *parser) literal() (Value, error) {
	word, kind := "null", Null
	switch p.in[p.pos] {
	case 't':
		word, kind = "true", Bool
	case 'f':
		word, kind = "false", Bool
	}
	end := p.pos + len(word)
	if end > len(p.in) || p.in[p.pos:end] != word {
		// Point at the first byte that differs.
		i := p.pos
		for i < len(p.in) && i < end && p.in[i] == word[i-p.pos] {
			i++
		}
		if i == len(p.in) {
			return Value{}, p.eof("the literal " + word)
		}
		return Value{}, p.errorf(i, "unexpected "+describe(p.in[i])+" in the literal "+word)
	}
	p.pos = end
	if kind == Null {
		return Value{}, nil
	}
	return Value{kind: kind, text: word}, nil
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, keeping its
// text.
func (p *parser) number() (Value, error) {
	start := p.pos
	if p.in[p.pos] == '-' {
		p.pos++
	}
	if p.pos >= len(p.in) {
		return Value{}, p.eof("a digit in a number")
	}
	switch c := p.in[p.pos]; {
	case c == '0':
		p.pos++
	case '1' <= c && c <= '9':
		p.digits()
	default:
		return Value{}, p.errorf(p.pos, "unexpected "+describe(c)+", expecting a digit in a number")
	}
	if p.pos < len(p.in) && p.in[p.pos] == '.' {
		p.pos++
		if err := p.needDigit("after the decimal point"); err != nil {
			return Value{}, err
		}
	}
	if p.pos < len(p.in) && (p.in[p.pos] == 'e' || p.in[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.in) && (p.in[p.pos] == '+' || p.in[p.pos] == '-') {
			p.pos++
		}
		if err := p.needDigit("in the exponent"); err != nil {
			return Value{}, err
		}
	}
	return Value{kind: Number, text: p.in[start:p.pos]}, nil
}

func (p *parser) digits() {
	for p.pos < len(p.in) && '0' <= p.in[p.pos] && p.in[p.pos] <= '9' {
		p.pos++
	}
}

// needDigit reads the one or more digits that must come next.
func (p *parser) needDigit(where string) error {
	if p.pos >= len(p.in) {
		return p.eof("a digit " + where)
	}
	if c := p.in[p.pos]; c < '0' || c > '9' {
		return p.errorf(p.pos, "unexpected "+describe(c)+", expecting a digit "+where)
	}
	p.digits()
	return nil
}

// string reads the string whose opening quote is at pos and returns its
// decoded text: a part of the input when it has no escapes.
func (p *parser) string() (string, error) {
	start := p.pos
	p.pos++
	from := p.pos // p.in[from:p.pos] is text still to be copied
	var s []byte  // the decoded text, once an escape is met
	escaped := false
	for {
		if p.pos >= len(p.in) {
			return "", p.errorf(len(p.in), "unexpected end of input in the string starting at offset "+strconv.Itoa(start))
		}
		c := p.in[p.pos]
		switch {
		case c == '"':
			p.pos++
			if !escaped {
				return p.in[from : p.pos-1], nil
			}
			p.buf = append(s, p.in[from:p.pos-1]...)
			return string(p.buf), nil
		case c == '\\':
			if !escaped {
				s, escaped = p.buf[:0], true
			}
			var err error
			if s, err = p.escape(append(s, p.in[from:p.pos]...)); err != nil {
				return "", err
			}
			from = p.pos
		case c < 0x20:
			return "", p.errorf(p.pos, "unescaped control character "+describe(c)+" in a string")
		case c < utf8.RuneSelf:
			p.pos++
		default:
			r, size := utf8.DecodeRuneInString(p.in[p.pos:])
			if r == utf8.RuneError && size == 1 {
				return "", p.errorf(p.pos, "invalid UTF-8 in a string")
			}
			p.pos += size
		}
	}
}

// escape decodes the escape sequence at pos (at the backslash) onto s.
func (p *parser) escape(s []byte) ([]byte, error) {
	at := p.pos
	p.pos++
	if p.pos >= len(p.in) {
		return nil, p.eof("an escape sequence")
	}
	c := p.in[p.pos]
	p.pos++
	switch c {
	case '"', '\\', '/':
		return append(s, c), nil
	case 'b':
		return append(s, '\b'), nil
	case 'f':
		return append(s, '\f'), nil
	case 'n':
		return append(s, '\n'), nil
	case 'r':
		return append(s, '\r'), nil
	case 't':
		return append(s, '\t'), nil
	case 'u':
	default:
		return nil, p.errorf(at, "invalid escape sequence \\"+describeBare(c)+" in a string")
	}
	r, err := p.hex4()
	if err != nil {
		return nil, err
	}
	switch {
	case 0xDC00 <= r && r <= 0xDFFF:
		return nil, p.errorf(at, "unpaired surrogate escape (low half) in a string")
	case 0xD800 <= r && r <= 0xDBFF:
		if p.pos+1 >= len(p.in) || p.in[p.pos] != '\\' || p.in[p.pos+1] != 'u' {
			return nil, p.errorf(at, "unpaired surrogate escape (high half) in a string")
		}
		p.pos += 2
		lo, err := p.hex4()
		if err != nil {
			return nil, err
		}
		if lo < 0xDC00 || lo > 0xDFFF {
			return nil, p.errorf(at, "unpaired surrogate escape (high half) in a string")
		}
		r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
	}
	return utf8.AppendRune(s, r), nil
}

// hex4 reads the four hex digits of a \u escape at pos.
func (p *parser) hex4() (rune, error) {
	var r rune
	for range 4 {
		if p.pos >= len(p.in) {
			return 0, p.eof("four hex digits after \\u")
		}
		c := p.in[p.pos]
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, p.errorf(p.pos, "unexpected "+describe(c)+", expecting a hex digit after \\u")
		}
		r = r<<4 | rune(d)
		p.pos++
	}
	return r, nil
}

// describe names a byte for an error message: 'x' for printable ASCII,
// byte 0x1f otherwise.
func describe(c byte) string {
	if 0x20 < c && c < 0x7f {
		return "'" + string(rune(c)) + "'"
	}
	if c == ' ' {
		return "space"
	}
	return "byte 0x" + strconv.FormatUint(uint64(c), 16)
}

// describeBare is describe without the quotes, for text after a backslash.
func describeBare(c byte) string {
	if 0x20 < c && c < 0x7f {
		return string(rune(c))
	}
	return "(byte 0x" + strconv.FormatUint(uint64(c), 16) + ")"
}
