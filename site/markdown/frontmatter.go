package markdown

import (
	"errors"
	"strconv"
	"strings"
	"time"

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
	var doc yaml.Node
	if err := data.Decode(&doc); err != nil {
		line, msg := yamlErrorLine(err.Error())
		fail(line, msg)
		return
	}
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

	seen := map[string]int{} // field -> line
	titleBad := false        // the title field was reported already
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		line := frontMatterLine - 1 + k.Line
		name := k.Value
		if first, dup := seen[name]; dup {
			fail(line, "duplicate field "+strconv.Quote(name)+" (first on line "+strconv.Itoa(first)+")")
			continue
		}
		seen[name] = line
		if !contains(metaFields, name) {
			fail(line, "unknown field "+strconv.Quote(name)+" (known: "+strings.Join(metaFields, ", ")+")")
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
				fail(line, "level: "+strconv.Quote(val)+" is not allowed (allowed: "+strings.Join(Levels, ", ")+")")
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

// yamlErrorLine finds the line in a YAML error ("yaml: line 3: ...") and
// returns it as a line of the file. The YAML package counts some errors
// from where the construct began, and a few one line early (an unclosed
// flow list on its second line reports line 1), so the line is the YAML
// package's best, not always the exact one.
func yamlErrorLine(msg string) (int, string) {
	rest, ok := strings.CutPrefix(msg, "yaml: line ")
	if !ok {
		return 1, msg
	}
	num, tail, ok := strings.Cut(rest, ": ")
	n, err := strconv.Atoi(num)
	if !ok || err != nil {
		return 1, msg
	}
	return frontMatterLine - 1 + n, "yaml: " + tail
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
