package widget

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/retrylab/retrylab/engine/param"
)

// data-params is JSON, read as JSON: "\/" is the escape of "/", and \u
// escapes (a surrogate pair too) are read as encoding/json reads them.
func TestParseJSONReadsEveryEscape(t *testing.T) {
	s := Schema{
		{Name: "path", Label: "Path", Kind: Enum, Default: "c", Allowed: []string{"a/b", "c", "é😀"}},
		{Name: "list", Label: "List", Kind: EnumList, Default: "", Allowed: []string{"a/b", "c"}, MaxItems: 2},
	}
	for text, want := range map[string][2]string{
		`{"path":"a\/b","list":["a\/b","\u0063"]}`: {"a/b", "a/b|c"},
		`{"p\u0061th":"\u00e9\ud83d\ude00"}`:       {"é😀", ""},
	} {
		v, err := s.ParseJSON(text)
		if err != nil {
			t.Errorf("ParseJSON(%s): %v", text, err)
			continue
		}
		if got := [2]string{v.String("path"), strings.Join(v.List("list"), "|")}; got != want {
			t.Errorf("ParseJSON(%s) = %q, want %q", text, got, want)
		}
	}
}

// JSON writes valid JSON whatever the names and values hold: strconv.Quote
// would write \a and \x00, which JSON has not.
func TestJSONIsJSONForControlCharacters(t *testing.T) {
	odd := "ring\a\x00\x1f\v\"\\/é"
	s := Schema{
		{Name: "bell\a", Label: "Bell", Kind: Enum, Default: odd, Allowed: []string{odd}},
		{Name: "list\x01", Label: "List", Kind: EnumList, Default: odd, Allowed: []string{odd}, MaxItems: 1},
	}
	text := s.Defaults().JSON()
	var got map[string]any
	if err := json.Unmarshal([]byte(text), &got); err != nil {
		t.Fatalf("JSON() = %s: %v", text, err)
	}
	if want := map[string]any{"bell\a": odd, "list\x01": []any{odd}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("JSON() = %s reads as %q, want %q", text, got, want)
	}
	back, err := s.ParseJSON(text)
	if err != nil || back.JSON() != text {
		t.Fatalf("ParseJSON(%s) = %s, %v", text, back.JSON(), err)
	}
}

// flatStd is what flat should return for text, read by encoding/json, or
// false when encoding/json refuses it or it is not a flat object.
func flatStd(text string) (map[string]string, bool) {
	if !json.Valid([]byte(text)) {
		return nil, false
	}
	d := json.NewDecoder(strings.NewReader(text))
	d.UseNumber()
	var obj map[string]any
	if d.Decode(&obj) != nil || obj == nil {
		return nil, false
	}
	out := map[string]string{}
	for k, v := range obj {
		switch v := v.(type) {
		case string:
			out[k] = v
		case json.Number:
			out[k] = string(v)
		case bool:
			out[k] = param.OnOff(v)
		case []any:
			var items []string
			for _, e := range v {
				s, ok := e.(string)
				if !ok {
					return nil, false
				}
				items = append(items, s)
			}
			out[k] = strings.Join(items, ",")
		default:
			return nil, false
		}
	}
	return out, true
}

// FuzzParseJSON holds the data-params reader to encoding/json: what it
// accepts, encoding/json reads as the same flat object; a flat object
// encoding/json reads it accepts too, unless it breaks I-JSON (a repeated
// key, bytes that are not UTF-8, a lone surrogate escape; see engine/ijson).
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{
		testSchema.Defaults().JSON(), `{"keys":"per\/intent"}`, `{"a":"\u00e9\ud83d\ude00"}`, `{"n":01}`, `{"n":1.}`,
		`{"n":1e400}`, `{"a":1,"a":2}`, `{"a":null}`, `{"a":[1]}`, `{"a":{}}`, `{"a":"\ud800"}`, "{\"a\":\"\xff\"}",
		`{"a":"\a"}`, `{"a":"\x41"}`, `{"b":truex}`, `{"b":false,"t":true}`, `[]`, `{}`,
	} {
		f.Add(s)
	}
	surrogate := regexp.MustCompile(`\\u[dD][89a-fA-F]`)
	f.Fuzz(func(t *testing.T, text string) {
		got, err := flat(text)
		want, ok := flatStd(text)
		if err == nil && (!ok || !reflect.DeepEqual(got, want)) {
			t.Fatalf("flat(%q) = %q; encoding/json reads %q (%v)", text, got, want, ok)
		}
		strict := utf8.ValidString(text) && !surrogate.MatchString(text)
		if err != nil && ok && strict && !strings.Contains(err.Error(), "duplicate key") {
			t.Fatalf("flat(%q): %v; encoding/json reads %q", text, err, want)
		}
	})
}

// stdString is s as encoding/json writes and reads it: each byte that is
// not UTF-8 becomes U+FFFD.
func stdString(s string) string {
	b, _ := json.Marshal(s)
	var out string
	json.Unmarshal(b, &out)
	return out
}

// FuzzJSON holds the data-params writer to encoding/json: whatever a
// parameter's name, enum value or number, JSON writes valid JSON that
// encoding/json reads as those values, and ParseJSON reads back.
func FuzzJSON(f *testing.F) {
	f.Add("keys", "per-intent", 0.25)
	f.Add("bell\a", "ring\x00\x7f\"\\/", -1e300)
	f.Add("\xff", "a\xed\xa0\x80", 5e-324)
	f.Fuzz(func(t *testing.T, name, value string, x float64) {
		if math.IsNaN(x) || math.IsInf(x, 0) || name == "" || name == "x" {
			return
		}
		s := Schema{
			{Name: name, Label: "Name", Kind: Enum, Default: value, Allowed: []string{value}},
			{Name: "x", Label: "X", Kind: Float, Default: param.Number(x), Min: -math.MaxFloat64, Max: math.MaxFloat64},
		}
		v, err := s.Parse(nil)
		if err != nil {
			return // not a value a schema can declare (spaces around it, say)
		}
		text := v.JSON()
		d := json.NewDecoder(bytes.NewReader([]byte(text)))
		d.UseNumber()
		var got map[string]any
		if err := d.Decode(&got); err != nil {
			t.Fatalf("JSON() = %q: encoding/json: %v", text, err)
		}
		n, _ := got["x"].(json.Number).Float64()
		if got[stdString(name)] != stdString(v.String(name)) || n != x {
			t.Fatalf("JSON() = %q reads as %q; want %q: %q and x: %v", text, got, name, v.String(name), x)
		}
		if utf8.ValidString(name) && utf8.ValidString(value) {
			back, err := s.ParseJSON(text)
			if err != nil || back.JSON() != text {
				t.Fatalf("ParseJSON(%q) = %q, %v", text, back.JSON(), err)
			}
		}
	})
}
