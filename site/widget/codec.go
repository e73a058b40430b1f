package widget

import (
	"sort"
	"strconv"
	"strings"
)

// JSON encodes the values as the flat JSON object the page carries in
// data-params: numbers and booleans as JSON numbers and booleans, lists as
// arrays of strings, keys in schema order.
func (v Values) JSON() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, p := range v.schema {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(p.Name))
		b.WriteByte(':')
		val := v.v[p.Name]
		switch p.Kind {
		case Bool:
			b.WriteString(strconv.FormatBool(val.b))
		case Int, Float:
			b.WriteString(formatNumber(val.f))
		case Enum:
			b.WriteString(strconv.Quote(val.s))
		case EnumList:
			b.WriteByte('[')
			for j, s := range val.l {
				if j > 0 {
					b.WriteByte(',')
				}
				b.WriteString(strconv.Quote(s))
			}
			b.WriteByte(']')
		}
	}
	b.WriteByte('}')
	return b.String()
}

// ParseJSON reads what JSON wrote (or any flat object of the same shape)
// and checks it against the schema.
func (s Schema) ParseJSON(text string) (Values, error) {
	raw, err := decodeFlat(text)
	if err != nil {
		return Values{}, &Error{Param: "data-params", Value: text, Msg: "is not a flat JSON object: " + err.Error()}
	}
	return s.Parse(raw)
}

// Query encodes the values that differ from their defaults as a URL query
// (without the "?"), keys sorted: the form an embed URL and a permalink use.
func (v Values) Query() string {
	var parts []string
	for _, kv := range v.changed() {
		parts = append(parts, queryEscape(kv[0])+"="+queryEscape(kv[1]))
	}
	sort.Strings(parts)
	return strings.Join(parts, "&")
}

// ParseQuery checks an embed URL's query against the schema. A parameter
// given twice is an error rather than a silent choice of one.
func (s Schema) ParseQuery(query string) (Values, error) {
	raw, err := decodeQuery(query)
	if err != nil {
		return Values{}, err
	}
	return s.Parse(raw)
}

// WithQuery returns v with the parameters a query gives replaced, checked
// as ParseQuery checks them: a link in the prose sets some of a widget's
// parameters and keeps the others as the article wrote them.
func (v Values) WithQuery(query string) (Values, error) {
	q, err := decodeQuery(query)
	if err != nil {
		return Values{}, err
	}
	raw := v.Raw()
	for k, val := range q {
		raw[k] = val
	}
	return v.schema.Parse(raw)
}

// decodeQuery reads a query string (with or without its "?") into its
// parameters, unescaped.
func decodeQuery(query string) (map[string]string, error) {
	query = strings.TrimPrefix(query, "?")
	q := map[string][]string{}
	for _, part := range strings.Split(query, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		key, ok1 := queryUnescape(k)
		val, ok2 := queryUnescape(v)
		if !ok1 || !ok2 {
			return nil, &Error{Param: "query", Value: part, Msg: "is not valid URL encoding"}
		}
		q[key] = append(q[key], val)
	}
	raw := make(map[string]string, len(q))
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if len(q[k]) > 1 {
			return nil, &Error{Param: k, Value: strings.Join(q[k], ","), Msg: "is given more than once"}
		}
		raw[k] = q[k][0]
	}
	return raw, nil
}

// decodeFlat is a small JSON reader for one object whose values are strings,
// numbers, booleans or arrays of strings. It returns each value in the
// textual form Parse accepts. It exists so that the WebAssembly module does
// not pay for encoding/json and reflection.
func decodeFlat(text string) (map[string]string, error) {
	d := decoder{s: text}
	out := map[string]string{}
	d.space()
	if !d.eat('{') {
		return nil, d.fail("expected {")
	}
	d.space()
	if d.eat('}') {
		return out, d.end()
	}
	for {
		d.space()
		key, err := d.str()
		if err != nil {
			return nil, err
		}
		d.space()
		if !d.eat(':') {
			return nil, d.fail("expected :")
		}
		d.space()
		val, err := d.value()
		if err != nil {
			return nil, err
		}
		if _, dup := out[key]; dup {
			return nil, d.fail("duplicate key " + strconv.Quote(key))
		}
		out[key] = val
		d.space()
		if d.eat(',') {
			continue
		}
		if d.eat('}') {
			return out, d.end()
		}
		return nil, d.fail("expected , or }")
	}
}

type decoder struct {
	s string
	i int
}

func (d *decoder) fail(msg string) error {
	return &decodeError{msg: msg + " at offset " + strconv.Itoa(d.i)}
}

type decodeError struct{ msg string }

func (e *decodeError) Error() string { return e.msg }

func (d *decoder) space() {
	for d.i < len(d.s) && strings.IndexByte(" \t\r\n", d.s[d.i]) >= 0 {
		d.i++
	}
}

func (d *decoder) eat(c byte) bool {
	if d.i < len(d.s) && d.s[d.i] == c {
		d.i++
		return true
	}
	return false
}

func (d *decoder) end() error {
	d.space()
	if d.i != len(d.s) {
		return d.fail("unexpected text after the object")
	}
	return nil
}

func (d *decoder) str() (string, error) {
	if d.i >= len(d.s) || d.s[d.i] != '"' {
		return "", d.fail("expected a string")
	}
	start := d.i
	d.i++
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case '\\':
			d.i += 2
			continue
		case '"':
			d.i++
			s, err := strconv.Unquote(d.s[start:d.i])
			if err != nil {
				return "", d.fail("bad string")
			}
			return s, nil
		}
		d.i++
	}
	return "", d.fail("unterminated string")
}

func (d *decoder) value() (string, error) {
	if d.i >= len(d.s) {
		return "", d.fail("expected a value")
	}
	switch c := d.s[d.i]; {
	case c == '"':
		return d.str()
	case c == '[':
		d.i++
		var items []string
		d.space()
		if d.eat(']') {
			return "", nil
		}
		for {
			d.space()
			s, err := d.str()
			if err != nil {
				return "", err
			}
			items = append(items, s)
			d.space()
			if d.eat(',') {
				continue
			}
			if d.eat(']') {
				return strings.Join(items, ","), nil
			}
			return "", d.fail("expected , or ]")
		}
	case strings.HasPrefix(d.s[d.i:], "true"):
		d.i += 4
		return "on", nil
	case strings.HasPrefix(d.s[d.i:], "false"):
		d.i += 5
		return "off", nil
	case c == '-' || (c >= '0' && c <= '9'):
		start := d.i
		for d.i < len(d.s) && strings.IndexByte("+-.eE0123456789", d.s[d.i]) >= 0 {
			d.i++
		}
		if _, err := strconv.ParseFloat(d.s[start:d.i], 64); err != nil {
			return "", d.fail("bad number")
		}
		return d.s[start:d.i], nil
	}
	return "", d.fail("unexpected character")
}

// queryEscape and queryUnescape do what net/url's QueryEscape and
// QueryUnescape do; net/url would bring fmt into the WebAssembly module.
func queryEscape(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_', c == '.', c == '~':
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

func queryUnescape(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '+':
			b.WriteByte(' ')
		case '%':
			if i+2 >= len(s) {
				return "", false
			}
			n, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
			if err != nil {
				return "", false
			}
			b.WriteByte(byte(n))
			i += 2
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}
