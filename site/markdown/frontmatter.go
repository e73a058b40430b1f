package markdown

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/retrylab/retrylab/internal/suggest"
	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
	"go.abhg.dev/goldmark/frontmatter"
	"gopkg.in/yaml.v3"
)

// An article starts with YAML front matter:
//
//	---
//	title: Retries without double charges
//	description: Why a retry can charge twice, and the key that stops it.
//	date: 2025-03-14
//	level: beginner
//	order: 2
//	---
//
// title is required; the others are optional. A field not listed here is
// an error, so that a misspelt field does not silently go missing.

// Meta is an article's front matter, checked.
type Meta struct {
	Title       string
	Description string
	Date        time.Time // zero if absent
	Level       string    // "", or one of Levels
	Order       int       // position among the articles; 0 if absent
}

// Levels are the allowed values of the level field, easiest first.
var Levels = []string{"beginner", "intermediate", "expert"}

// metaFields are the known front matter fields, sorted for messages.
var metaFields = []string{"date", "description", "level", "order", "title"}

// GetMeta returns the front matter checked while parsing with pc: nil if
// the FrontMatter extension was not installed. When Errors(pc) is not nil,
// the fields with problems are left empty.
func GetMeta(pc parser.Context) *Meta {
	return stateOf(pc).meta
}

// frontMatterLine is the file line on which the front matter's text starts:
// line 1 is the opening "---", which must be the first line of the file.
const frontMatterLine = 2

// metaTransformer checks the front matter the frontmatter parser found.
type metaTransformer struct{}

// Transform implements parser.ASTTransformer.
func (metaTransformer) Transform(_ *gast.Document, reader text.Reader, pc parser.Context) {
	st := stateOf(pc)
	m := &Meta{}
	st.meta = m
	fail := func(line int, msg string) {
		st.addLine(line, errors.New("front matter: "+msg))
	}

	data := frontmatter.Get(pc)
	if data == nil {
		fail(1, "title is required (the file has no front matter)")
		return
	}
	if !closed(reader.Source()) {
		// The parser ends unclosed front matter at the end of the file, which
		// would turn the whole article into front matter, silently.
		fail(1, "no closing \"---\" line")
		return
	}
	var fields []metaField
	var doc yaml.Node
	if err := data.Decode(&doc); err != nil {
		var named bool
		if fields, named = yamlProblems(reader.Source(), err.Error(), fail); !named {
			return
		}
	} else {
		var root *yaml.Node
		if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
			root = doc.Content[0]
		}
		if root == nil || (root.Kind == yaml.ScalarNode && root.Tag == "!!null") {
			fail(1, "title is required")
			return
		}
		if root.Kind != yaml.MappingNode {
			fail(frontMatterLine-1+root.Line, "want \"field: value\" lines")
			return
		}
		for i := 0; i+1 < len(root.Content); i += 2 {
			k := root.Content[i]
			fields = append(fields, metaField{name: k.Value, value: root.Content[i+1], line: frontMatterLine - 1 + k.Line})
		}
	}

	seen := map[string]int{} // field -> line
	titleBad := false        // the title field was reported already
	for _, f := range fields {
		name, v, line := f.name, f.value, f.line
		if first, dup := seen[name]; dup {
			fail(line, "duplicate field "+strconv.Quote(name)+" (first on line "+strconv.Itoa(first)+")")
			continue
		}
		seen[name] = line
		if v == nil {
			titleBad = titleBad || name == "title"
			continue
		}
		if !contains(metaFields, name) {
			// "titel" is the title, misspelt: the title is not missing too.
			titleBad = titleBad || suggest.Closest(name, metaFields) == "title"
			fail(line, "unknown field "+strconv.Quote(name)+" ("+suggest.DidYouMean(name, metaFields)+"known: "+strings.Join(metaFields, ", ")+")")
			continue
		}
		if v.Kind != yaml.ScalarNode {
			fail(line, name+": want a single value")
			titleBad = titleBad || name == "title"
			continue
		}
		val := strings.TrimSpace(v.Value)
		if v.Tag == "!!null" {
			val = ""
		}
		switch name {
		case "title":
			m.Title = val
		case "description":
			m.Description = val
		case "date":
			if val == "" {
				break
			}
			d, err := time.Parse(time.DateOnly, val)
			if err != nil {
				fail(line, "date: "+strconv.Quote(val)+" is not a date (want YYYY-MM-DD)")
				break
			}
			m.Date = d
		case "level":
			if val != "" && !contains(Levels, val) {
				fail(line, "level: "+strconv.Quote(val)+" is not allowed ("+suggest.DidYouMean(val, Levels)+"allowed: "+strings.Join(Levels, ", ")+")")
				break
			}
			m.Level = val
		case "order":
			if val == "" {
				break
			}
			n, err := strconv.Atoi(val)
			if err != nil {
				fail(line, "order: "+strconv.Quote(val)+" is not a whole number")
				break
			}
			m.Order = n
		}
	}
	if m.Title == "" && !titleBad {
		line := 1
		if l, ok := seen["title"]; ok {
			line = l
		}
		fail(line, "title is required")
	}
}

// closed reports whether the front matter opening source is closed by a
// line like its first: the same delimiter, as many times.
func closed(source []byte) bool {
	lines := strings.Split(string(source), "\n")
	open := strings.TrimSuffix(lines[0], "\r")
	for _, l := range lines[1:] {
		if strings.TrimSuffix(l, "\r") == open {
			return true
		}
	}
	return false
}

// metaField is one field of the front matter, at its line; value is nil
// when the line's problem was reported already (yamlProblems).
type metaField struct {
	name  string
	value *yaml.Node
	line  int
}

// yamlProblems says in plain words what is wrong with front matter the
// YAML package refused, and where, and returns the fields it could read.
// The YAML package's messages name its grammar ("mapping values are not
// allowed in this context"), some count lines from where a construct
// began, one line early on the first line, and it stops at the first; so
// the front matter's lines are read here, field by field: every line with
// a problem one can name is reported, and the fields of the other lines
// are returned to be checked as ever (a title with a colon does not hide
// a bad level). When no line's problem can be named, the YAML package's
// own message and line are reported, and named is false.
func yamlProblems(source []byte, yamlMsg string, fail func(int, string)) (fields []metaField, named bool) {
	lines := strings.Split(string(source), "\n")
	open := strings.TrimSuffix(lines[0], "\r")
	for i := 1; i < len(lines); i++ {
		l := strings.TrimSuffix(lines[i], "\r")
		if l == open {
			break
		}
		if msg := fieldProblem(l); msg != "" {
			fail(i+1, msg)
			named = true
			name, _, _ := strings.Cut(l, ":")
			fields = append(fields, metaField{name: strings.TrimSpace(name), line: i + 1})
			continue
		}
		var doc yaml.Node
		if yaml.Unmarshal([]byte(l), &doc) != nil || len(doc.Content) != 1 {
			continue
		}
		if m := doc.Content[0]; m.Kind == yaml.MappingNode && len(m.Content) == 2 {
			fields = append(fields, metaField{name: m.Content[0].Value, value: m.Content[1], line: i + 1})
		}
	}
	if named {
		return fields, true
	}
	line, msg := 1, yamlMsg
	if rest, ok := strings.CutPrefix(yamlMsg, "yaml: line "); ok {
		if num, tail, ok := strings.Cut(rest, ": "); ok {
			if n, err := strconv.Atoi(num); err == nil {
				line, msg = frontMatterLine-1+n, tail
			}
		}
	}
	fail(line, "YAML: "+msg)
	return nil, false
}

// fieldProblem names what is wrong with one line of front matter, written
// the way this site's fields are ("title: Retries without double
// charges"), or returns "" when nothing is.
func fieldProblem(l string) string {
	trimmed := strings.TrimSpace(l)
	if trimmed == "" || strings.HasPrefix(trimmed, "#") {
		return ""
	}
	if strings.Contains(l, "\t") {
		return "a tab character: YAML allows only spaces here"
	}
	if trimmed != l && l[0] == ' ' {
		return "an indented line: every field starts at the beginning of its line, value on the same line"
	}
	name, value, ok := strings.Cut(l, ":")
	if !ok || strings.ContainsAny(name, " \"'") {
		return strconv.Quote(trimmed) + " is not a \"field: value\" line"
	}
	value = strings.TrimSpace(value)
	quoted := "put the whole value in double quotes: " + name + ": " + strconv.Quote(unquote(value))
	switch {
	case value == "":
		return ""
	case value[0] == '"' || value[0] == '\'':
		end := closingQuote(value)
		if end < 0 {
			return "the quote that opens the value of " + name + " is never closed on this line"
		}
		if after := strings.TrimSpace(value[end+1:]); after != "" && !strings.HasPrefix(after, "#") {
			return "text after the closing quote of the value of " + name + ": " + quoted
		}
		return ""
	case strings.Contains(value, ": ") || strings.HasSuffix(value, ":"):
		return "the value of " + name + " holds a colon and a space, which YAML reads as the start of another field: " + quoted
	case strings.ContainsRune("@`|>[]{}&*!%,", rune(value[0])):
		return "a value cannot start with " + strconv.Quote(value[:1]) + " unquoted in YAML: " + quoted
	}
	return ""
}

// closingQuote is the index of the quote that closes the quoted YAML
// scalar at the start of v, or -1: "..." with backslash escapes, '...'
// with ” for a quote.
func closingQuote(v string) int {
	q := v[0]
	for i := 1; i < len(v); i++ {
		switch {
		case q == '"' && v[i] == '\\':
			i++
		case v[i] == q && q == '\'' && i+1 < len(v) && v[i+1] == '\'':
			i++
		case v[i] == q:
			return i
		}
	}
	return -1
}

// unquote is v without the quotes around it, if it has them, for a
// suggestion that quotes it again.
func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

type frontMatter struct{}

// FrontMatter is the front matter extension: YAML between "---" lines at
// the top of the file, checked into a Meta (see GetMeta).
var FrontMatter goldmark.Extender = frontMatter{}

// Extend implements goldmark.Extender.
func (frontMatter) Extend(m goldmark.Markdown) {
	(&frontmatter.Extender{Formats: []frontmatter.Format{frontmatter.YAML}}).Extend(m)
	m.Parser().AddOptions(parser.WithASTTransformers(
		util.Prioritized(metaTransformer{}, 0),
	))
}
