package widget

import (
	"errors"
	"sort"
	"strconv"
	"strings"

	"github.com/retrylab/retrylab/engine/ijson"
	"github.com/retrylab/retrylab/engine/param"
)

// JSON encodes the values as the flat JSON object the page carries in
// data-params: numbers and booleans as JSON numbers and booleans, lists as
// arrays of strings, keys in schema order.
func (v Values) JSON() string {
	b := []byte{'{'}
	for i, p := range v.Values.Schema() {
		if i > 0 {
			b = append(b, ',')
		}
		b = ijson.AppendString(b, p.Name)
		b = append(b, ':')
		val, _ := v.Value(p.Name)
		switch p.Kind {
		case Bool:
			b = strconv.AppendBool(b, val.Bool)
		case Int, Float:
			b = append(b, param.Number(val.Num)...)
		case Enum:
			b = ijson.AppendString(b, val.Str)
		case EnumList:
			b = append(b, '[')
			for j, s := range val.List {
				if j > 0 {
					b = append(b, ',')
				}
				b = ijson.AppendString(b, s)
			}
			b = append(b, ']')
		}
	}
	return string(append(b, '}'))
}

// ParseJSON reads what JSON wrote (or any flat object of the same shape)
// and checks it against the schema.
func (s Schema) ParseJSON(text string) (Values, error) {
	raw, err := flat(text)
	if err != nil {
		return Values{}, &Error{Param: "data-params", Value: text, Msg: "is not a flat JSON object: " + err.Error()}
	}
	return s.Parse(raw)
}

// flat reads a JSON object whose values are strings, numbers, booleans or
// arrays of strings, each in the textual form Parse accepts: a number as
// written, a boolean as on or off, an array as its strings joined by
// commas.
func flat(text string) (map[string]string, error) {
	v, err := ijson.Parse(text)
	if err != nil {
		return nil, err
	}
	if v.Kind() != ijson.Object {
		return nil, errors.New("it is " + v.Kind().String())
	}
	out := map[string]string{}
	for key, val := range v.Members() {
		switch val.Kind() {
		case ijson.String, ijson.Number:
			out[key] = val.Text()
		case ijson.Bool:
			out[key] = param.OnOff(val.Text() == "true")
		case ijson.Array:
			items := make([]string, len(val.Elems()))
			for i, e := range val.Elems() {
				if e.Kind() != ijson.String {
					return nil, errors.New(quote(key) + " holds " + e.Kind().String() + ": want strings only")
				}
				items[i] = e.Text()
			}
			out[key] = strings.Join(items, ",")
		default:
			return nil, errors.New(quote(key) + " is " + val.Kind().String() + ": want a string, number, boolean or array of strings")
		}
	}
	return out, nil
}

// Query encodes the values that differ from their defaults as a URL query
// (without the "?"), keys sorted: the form an embed URL and a permalink use.
func (v Values) Query() string {
	var parts []string
	for _, kv := range v.changed() {
		parts = append(parts, queryEscape(kv[0])+"="+queryEscape(kv[1]))
	}
	// Not sort.Strings: its pdqsort of strings would be linked into the
	// page's module beside the stable sort engine/ijson links already.
	sort.Stable(sort.StringSlice(parts))
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
	return v.Schema().Parse(raw)
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
	// Not sort.Strings: its pdqsort of strings would be linked into the
	// page's module beside the stable sort engine/ijson links already.
	sort.Stable(sort.StringSlice(keys))
	for _, k := range keys {
		if len(q[k]) > 1 {
			return nil, &Error{Param: k, Value: strings.Join(q[k], ","), Msg: "is given more than once"}
		}
		raw[k] = q[k][0]
	}
	return raw, nil
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
