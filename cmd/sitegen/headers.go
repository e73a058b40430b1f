package main

import (
	"fmt"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// HeaderRule is one [[headers]] table of netlify.toml: the header fields to
// set on every response whose request path matches For.
type HeaderRule struct {
	For    string        // the path pattern, as written
	Values []HeaderField // sorted by name
	re     *regexp.Regexp
}

// HeaderField is one header name and its value.
type HeaderField struct{ Name, Value string }

// Match reports whether the rule applies to the request path p.
//
// Patterns follow Netlify's header parser: the pattern is split on "/"; a
// segment ":name" matches one path segment, a segment "*" matches the rest of
// the path (the slash before it optional, so "/static/*" also covers
// "/static"), a "*" inside a segment matches any run of characters, slashes
// included (so "/*.wasm" covers "/static/app.wasm"), and everything else
// matches itself, case-insensitively, with an optional trailing slash.
func (r HeaderRule) Match(p string) bool { return r.re.MatchString(p) }

// compileFor turns a Netlify path pattern into the expression Netlify's own
// parser builds for it (the literal parts of mixed segments are quoted here,
// where Netlify's leaves them raw; the difference shows only for paths with
// regexp metacharacters).
func compileFor(pattern string) (*regexp.Regexp, error) {
	var parts []string
	for _, seg := range strings.Split(pattern, "/") {
		seg = strings.TrimRight(seg, " \t")
		switch {
		case seg == "":
			continue
		case strings.HasPrefix(seg, ":"):
			parts = append(parts, `([^/]+)`)
		case seg == "*":
			parts = append(parts, `?(.*)`)
		case strings.Contains(seg, "*"):
			lits := strings.Split(seg, "*")
			for i, l := range lits {
				lits[i] = regexp.QuoteMeta(l)
			}
			parts = append(parts, strings.Join(lits, `(.*)`))
		default:
			parts = append(parts, regexp.QuoteMeta(seg))
		}
	}
	return regexp.Compile(`(?i)^/` + strings.Join(parts, "/") + `/?$`)
}

// loadHeaders reads the [[headers]] rules of the netlify.toml at path.
func loadHeaders(path string) ([]HeaderRule, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	rules, err := parseHeaders(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rules, nil
}

// parseHeaders reads the [[headers]] rules of a netlify.toml document, in
// order. Values are normalised as Netlify does: trimmed, with the commas of
// a multi-line value joined by ", ", and a list joined the same way.
func parseHeaders(data []byte) ([]HeaderRule, error) {
	var doc struct {
		Headers []struct {
			For    *string        `toml:"for"`
			Values map[string]any `toml:"values"`
		} `toml:"headers"`
	}
	if _, err := toml.Decode(string(data), &doc); err != nil {
		return nil, err
	}
	rules := make([]HeaderRule, 0, len(doc.Headers))
	for i, h := range doc.Headers {
		if h.For == nil {
			return nil, fmt.Errorf("[[headers]] number %d: missing \"for\"", i+1)
		}
		pattern := strings.TrimSpace(*h.For)
		if !strings.HasPrefix(pattern, "/") {
			return nil, fmt.Errorf("[[headers]] for = %q: the path must start with /", pattern)
		}
		re, err := compileFor(pattern)
		if err != nil {
			return nil, fmt.Errorf("[[headers]] for = %q: %w", pattern, err)
		}
		rule := HeaderRule{For: pattern, re: re}
		for name, raw := range h.Values {
			name = strings.TrimSpace(name)
			if name == "" {
				return nil, fmt.Errorf("[[headers]] for = %q: empty header name", pattern)
			}
			value, err := headerValue(raw)
			if err != nil {
				return nil, fmt.Errorf("[[headers]] for = %q: %s: %w", pattern, name, err)
			}
			if strings.ContainsAny(value, "\r\n") {
				return nil, fmt.Errorf("[[headers]] for = %q: %s: a value may not span lines except between comma-separated parts", pattern, name)
			}
			rule.Values = append(rule.Values, HeaderField{Name: http.CanonicalHeaderKey(name), Value: value})
		}
		sort.Slice(rule.Values, func(a, b int) bool { return rule.Values[a].Name < rule.Values[b].Name })
		rules = append(rules, rule)
	}
	return rules, nil
}

var commaSpace = regexp.MustCompile(`\s*,\s*`)

func headerValue(raw any) (string, error) {
	switch v := raw.(type) {
	case string:
		return commaSpace.ReplaceAllString(strings.TrimSpace(v), ", "), nil
	case []any:
		parts := make([]string, len(v))
		for i, item := range v {
			s, ok := item.(string)
			if !ok {
				return "", fmt.Errorf("list item %d is a %T, not a string", i+1, item)
			}
			parts[i] = strings.TrimSpace(s)
		}
		return strings.Join(parts, ", "), nil
	}
	return "", fmt.Errorf("the value is a %T, not a string", raw)
}

// applyHeaders sets on h the fields of every rule matching the request path
// p, in order, a later rule's field replacing an earlier one of the same name
// (as Netlify merges them).
func applyHeaders(h http.Header, rules []HeaderRule, p string) {
	for _, r := range rules {
		if !r.Match(p) {
			continue
		}
		for _, f := range r.Values {
			h.Set(f.Name, f.Value)
		}
	}
}
