package idem

import (
	"bytes"
	"slices"
	"strconv"
	"unicode/utf8"
)

// maxDepth bounds the nesting of arrays and objects, the same bound
// encoding/json's scanner uses, so that a hostile body cannot make the
// recursive parser use unbounded stack.
const maxDepth = 10000

// SyntaxError is the error Canonical returns for a body that is not one
// well-formed JSON value: Offset is the byte offset in the body where the
// problem was found.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return "idem: invalid JSON at offset " + strconv.Itoa(e.Offset) + ": " + e.Msg
}

// Canonical returns the canonical form of the JSON value in body, so that
// two bodies meaning the same request have the same bytes:
//
//   - no insignificant whitespace;
//   - object members sorted by the bytes of their decoded keys (UTF-8);
//   - strings in one escaping, RFC 8785's: \" and \\, \b \f \n \r \t,
//     \u00xx (lower-case hex) for the other control characters, every
//     other character as itself in UTF-8;
//   - numbers as written, once checked against the grammar: 1, 1.0 and 1e0
//     stay three requests, since the server cannot know which of them its
//     own parser would treat as equal.
//
// It refuses, with a *SyntaxError, what is not one well-formed value and
// what would make "the same request" ambiguous (RFC 7493, I-JSON):
// duplicate object keys, invalid UTF-8, unpaired UTF-16 surrogate escapes.
func Canonical(body []byte) ([]byte, error) {
	p := parser{in: body, out: make([]byte, 0, len(body))}
	p.skipSpace()
	if err := p.value(); err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos < len(p.in) {
		return nil, p.errorf(p.pos, "unexpected "+describe(p.in[p.pos])+" after the JSON value")
	}
	if !p.unsorted {
		return p.out, nil
	}
	// Some object's members were out of order: write it again, sorted,
	// copying every byte once, so that any depth costs linear time.
	return p.emit(make([]byte, 0, len(p.out)), 0, len(p.out)), nil
}

// Fingerprint is the hex SHA-256 of the canonical form of body: the value
// the key store compares to tell a retry (same fingerprint) from another
// request reusing the key (422).
func Fingerprint(body []byte) (string, error) {
	c, err := Canonical(body)
	if err != nil {
		return "", err
	}
	sum := sum256(c)
	const hexdigits = "0123456789abcdef"
	var h [2 * len(sum)]byte
	for i, b := range sum {
		h[2*i] = hexdigits[b>>4]
		h[2*i+1] = hexdigits[b&0x0f]
	}
	return string(h[:]), nil
}

// parser reads in from pos and appends the canonical form to out.
type parser struct {
	in    []byte
	pos   int
	out   []byte
	depth int
	str   []byte // scratch for decoded strings
	// objects are the objects written to out, in the order they open
	// (so by their start in out), with their members; unsorted says that
	// at least one has members out of order, for emit to put right.
	objects  []object
	unsorted bool
	// keys holds every decoded object key, end to end; stack the members
	// of the objects being read, innermost last; sorted the members of
	// the objects that were out of order, in sorted order. Three arenas,
	// so that reading an object allocates nothing of its own.
	keys   []byte
	stack  []member
	sorted []member
}

// object is an object written to out in input order: its span, and its
// members' spans in sorted order.
type object struct {
	start, end int // of '{' and after '}' in out
	// lo and hi are its members in p.sorted when they were out of order;
	// lo == hi == 0 when they were in order.
	lo, hi int
}

func (p *parser) errorf(offset int, msg string) error {
	return &SyntaxError{Offset: offset, Msg: msg}
}

// eof is the error for input that stops where more was needed.
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

func (p *parser) value() error {
	if p.pos >= len(p.in) {
		return p.eof("a value")
	}
	switch c := p.in[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, err := p.string()
		if err != nil {
			return err
		}
		p.out = appendString(p.out, s)
		return nil
	case c == '-' || '0' <= c && c <= '9':
		return p.number()
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.literal("null")
	default:
		return p.errorf(p.pos, "unexpected "+describe(c)+", expecting a value")
	}
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return p.errorf(p.pos, "nesting deeper than "+strconv.Itoa(maxDepth)+" levels")
	}
	return nil
}

// member is one "key":value pair of an object, as written to out.
type member struct {
	k0, k1     int // the decoded key is p.keys[k0:k1]
	offset     int // of the key in the input
	start, end int // span in out, without the separating comma
}

func (p *parser) object() error {
	if err := p.enter(); err != nil {
		return err
	}
	index := len(p.objects)
	p.objects = append(p.objects, object{start: len(p.out)})
	p.out = append(p.out, '{')
	p.pos++
	p.skipSpace()
	if p.pos < len(p.in) && p.in[p.pos] == '}' {
		p.pos++
		p.out = append(p.out, '}')
		p.objects[index].end = len(p.out)
		p.depth--
		return nil
	}
	base := len(p.stack)
	for {
		p.skipSpace()
		if p.pos >= len(p.in) {
			return p.eof("an object key")
		}
		if p.in[p.pos] != '"' {
			return p.errorf(p.pos, "unexpected "+describe(p.in[p.pos])+", expecting a string for an object key")
		}
		m := member{offset: p.pos, start: len(p.out)}
		k, err := p.string()
		if err != nil {
			return err
		}
		m.k0 = len(p.keys)
		p.keys = append(p.keys, k...)
		m.k1 = len(p.keys)
		p.out = appendString(p.out, k)
		p.skipSpace()
		if p.pos >= len(p.in) {
			return p.eof("':' after an object key")
		}
		if p.in[p.pos] != ':' {
			return p.errorf(p.pos, "unexpected "+describe(p.in[p.pos])+", expecting ':' after an object key")
		}
		p.pos++
		p.out = append(p.out, ':')
		p.skipSpace()
		if err := p.value(); err != nil {
			return err
		}
		m.end = len(p.out)
		p.stack = append(p.stack, m)
		p.skipSpace()
		if p.pos >= len(p.in) {
			return p.eof("',' or '}' in an object")
		}
		c := p.in[p.pos]
		p.pos++
		if c == '}' {
			break
		}
		if c != ',' {
			return p.errorf(p.pos-1, "unexpected "+describe(c)+", expecting ',' or '}' in an object")
		}
		p.out = append(p.out, ',')
	}
	p.out = append(p.out, '}')
	p.depth--

	// Sort by decoded key; the stable sort keeps duplicates in input order,
	// so the later of two equal keys is the one reported. The members stay
	// where they were written: emit reorders them, once, at the end.
	members := p.stack[base:]
	cmp := func(a, b member) int { return bytes.Compare(p.keys[a.k0:a.k1], p.keys[b.k0:b.k1]) }
	inOrder := slices.IsSortedFunc(members, cmp)
	if !inOrder {
		slices.SortStableFunc(members, cmp)
		p.unsorted = true
	}
	dup := -1
	for i := 1; i < len(members); i++ {
		if cmp(members[i], members[i-1]) == 0 && (dup < 0 || members[i].offset < members[dup].offset) {
			dup = i
		}
	}
	if dup >= 0 {
		m := members[dup]
		return p.errorf(m.offset, "duplicate key "+strconv.Quote(string(p.keys[m.k0:m.k1])))
	}
	o := &p.objects[index]
	o.end = len(p.out)
	if !inOrder {
		o.lo = len(p.sorted)
		p.sorted = append(p.sorted, members...)
		o.hi = len(p.sorted)
	}
	p.stack = p.stack[:base]
	return nil
}

// emit appends out[lo:hi] to dst with every object in it written with its
// members in sorted order.
func (p *parser) emit(dst []byte, lo, hi int) []byte {
	// The first object starting at or after lo.
	i, _ := slices.BinarySearchFunc(p.objects, lo, func(o object, at int) int { return o.start - at })
	for i < len(p.objects) && p.objects[i].start < hi {
		o := p.objects[i]
		dst = append(dst, p.out[lo:o.start]...)
		if o.lo == o.hi {
			// In order already; objects inside it may not be.
			dst = append(dst, '{')
			dst = p.emit(dst, o.start+1, o.end)
		} else {
			dst = append(dst, '{')
			for j, m := range p.sorted[o.lo:o.hi] {
				if j > 0 {
					dst = append(dst, ',')
				}
				dst = p.emit(dst, m.start, m.end)
			}
			dst = append(dst, '}')
		}
		lo = o.end
		// Skip the objects nested in this one.
		i, _ = slices.BinarySearchFunc(p.objects, lo, func(o object, at int) int { return o.start - at })
	}
	return append(dst, p.out[lo:hi]...)
}

func (p *parser) array() error {
	if err := p.enter(); err != nil {
		return err
	}
	p.out = append(p.out, '[')
	p.pos++
	p.skipSpace()
	if p.pos < len(p.in) && p.in[p.pos] == ']' {
		p.pos++
		p.out = append(p.out, ']')
		p.depth--
		return nil
	}
	for {
		p.skipSpace()
		if err := p.value(); err != nil {
			return err
		}
		p.skipSpace()
		if p.pos >= len(p.in) {
			return p.eof("',' or ']' in an array")
		}
		c := p.in[p.pos]
		p.pos++
		if c == ']' {
			break
		}
		if c != ',' {
			return p.errorf(p.pos-1, "unexpected "+describe(c)+", expecting ',' or ']' in an array")
		}
		p.out = append(p.out, ',')
	}
	p.out = append(p.out, ']')
	p.depth--
	return nil
}

func (p *parser) literal(word string) error {
	end := p.pos + len(word)
	if end > len(p.in) || string(p.in[p.pos:end]) != word {
		// Point at the first byte that differs.
		i := p.pos
		for i < len(p.in) && i < end && p.in[i] == word[i-p.pos] {
			i++
		}
		if i == len(p.in) {
			return p.eof("the literal " + word)
		}
		return p.errorf(i, "unexpected "+describe(p.in[i])+" in the literal "+word)
	}
	p.out = append(p.out, word...)
	p.pos = end
	return nil
}

// number checks -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? and copies
// the literal text.
func (p *parser) number() error {
	start := p.pos
	if p.in[p.pos] == '-' {
		p.pos++
	}
	if p.pos >= len(p.in) {
		return p.eof("a digit in a number")
	}
	switch c := p.in[p.pos]; {
	case c == '0':
		p.pos++
	case '1' <= c && c <= '9':
		p.digits()
	default:
		return p.errorf(p.pos, "unexpected "+describe(c)+", expecting a digit in a number")
	}
	if p.pos < len(p.in) && p.in[p.pos] == '.' {
		p.pos++
		if err := p.needDigit("after the decimal point"); err != nil {
			return err
		}
		p.digits()
	}
	if p.pos < len(p.in) && (p.in[p.pos] == 'e' || p.in[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.in) && (p.in[p.pos] == '+' || p.in[p.pos] == '-') {
			p.pos++
		}
		if err := p.needDigit("in the exponent"); err != nil {
			return err
		}
		p.digits()
	}
	p.out = append(p.out, p.in[start:p.pos]...)
	return nil
}

func (p *parser) digits() {
	for p.pos < len(p.in) && '0' <= p.in[p.pos] && p.in[p.pos] <= '9' {
		p.pos++
	}
}

func (p *parser) needDigit(where string) error {
	if p.pos >= len(p.in) {
		return p.eof("a digit " + where)
	}
	if c := p.in[p.pos]; c < '0' || c > '9' {
		return p.errorf(p.pos, "unexpected "+describe(c)+", expecting a digit "+where)
	}
	return nil
}

// string decodes the string starting at the opening quote at pos into
// p.str and returns it; the result is valid until the next call.
func (p *parser) string() ([]byte, error) {
	start := p.pos
	p.pos++ // opening quote
	s := p.str[:0]
	for {
		if p.pos >= len(p.in) {
			return nil, p.errorf(len(p.in), "unexpected end of input in the string starting at offset "+strconv.Itoa(start))
		}
		c := p.in[p.pos]
		switch {
		case c == '"':
			p.pos++
			p.str = s
			return s, nil
		case c == '\\':
			var err error
			if s, err = p.escape(s); err != nil {
				return nil, err
			}
		case c < 0x20:
			return nil, p.errorf(p.pos, "unescaped control character "+describe(c)+" in a string")
		case c < utf8.RuneSelf:
			s = append(s, c)
			p.pos++
		default:
			r, size := utf8.DecodeRune(p.in[p.pos:])
			if r == utf8.RuneError && size == 1 {
				return nil, p.errorf(p.pos, "invalid UTF-8 in a string")
			}
			s = append(s, p.in[p.pos:p.pos+size]...)
			p.pos += size
		}
	}
}

// escape decodes the escape sequence at pos (at the backslash).
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
	for i := 0; i < 4; i++ {
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

// appendString appends s (valid UTF-8) as a JSON string in the canonical
// escaping.
func appendString(out, s []byte) []byte {
	const hexdigits = "0123456789abcdef"
	out = append(out, '"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			out = append(out, '\\', c)
		case c >= 0x20:
			out = append(out, c)
		case c == '\b':
			out = append(out, '\\', 'b')
		case c == '\f':
			out = append(out, '\\', 'f')
		case c == '\n':
			out = append(out, '\\', 'n')
		case c == '\r':
			out = append(out, '\\', 'r')
		case c == '\t':
			out = append(out, '\\', 't')
		default:
			out = append(out, '\\', 'u', '0', '0', hexdigits[c>>4], hexdigits[c&0x0f])
		}
	}
	return append(out, '"')
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
