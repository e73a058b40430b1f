// Package markdown turns the handbook's articles into pages: goldmark with
// front matter, GitHub Flavored Markdown, code highlighting with CSS
// classes, heading anchors, a table of contents, widget blocks and code
// included from the module's own source.
//
// Each feature is a goldmark extension of its own, in a file of its own
// (FrontMatter, Fences, Widgets, WidgetLinks, Includes, Anchors,
// Highlighting), usable without the rest; Converter puts them together for
// the site generator, and lists each page's links, images and ids
// (Page.Refs, Page.IDs) for it to check against the site it builds.
//
// Raw HTML in markdown is not rendered (goldmark's default): every
// interactive part of a page is a widget block, checked at build time, so
// articles have no need for markup of their own, and a stray "<" in prose
// cannot break a page.
package markdown

import (
	"bytes"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/retrylab/retrylab/site/widget"
	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// Page is one converted article.
type Page struct {
	Path        string    // source path as given
	Title       string    //
	Description string    //
	Date        time.Time // zero if absent
	Level       string    // "", or one of Levels
	Order       int       // 0 if absent
	Body        string    // the article's rendered HTML (trusted: our content)
	TOC         []Heading // the h2 and h3 headings, in order
	Widgets     []string  // the widgets used, each once, in order of first use
	Refs        []Ref     // the links and images, in order
	IDs         []string  // every id in Body: the targets of "#anchor" links
}

// Converter converts articles to pages. It is safe for concurrent use: each
// Convert parses with a context of its own.
type Converter struct {
	md goldmark.Markdown
}

type options struct {
	typographer bool
	widgetOpts  []WidgetOption
	includeOpts []IncludeOption
	liveOpts    []LiveOption
}

// Option configures a Converter.
type Option func(*options)

// WithTypographer turns "--", "..." and straight quotes in prose into
// dashes, ellipses and curly quotes. It is off by default: articles quote
// command lines and HTTP headers, where "--" must stay "--".
func WithTypographer() Option {
	return func(o *options) { o.typographer = true }
}

// WithWidgetOptions configures the widget block extension (for example
// WithLookup, to resolve widget names from another registry).
func WithWidgetOptions(opts ...WidgetOption) Option {
	return func(o *options) { o.widgetOpts = append(o.widgetOpts, opts...) }
}

// WithSourceRoot sets the folder that include blocks' paths are relative
// to: the module root, for the site. Without it they are relative to the
// working directory.
func WithSourceRoot(root string) Option {
	return WithIncludeOptions(IncludeRoot(root))
}

// WithIncludeOptions configures the include extension (see IncludeRoot and
// IncludeLink).
func WithIncludeOptions(opts ...IncludeOption) Option {
	return func(o *options) { o.includeOpts = append(o.includeOpts, opts...) }
}

// WithLiveOptions configures the live API panel's block (see LiveAPI and
// LiveAssets).
func WithLiveOptions(opts ...LiveOption) Option {
	return func(o *options) { o.liveOpts = append(o.liveOpts, opts...) }
}

// New returns a Converter.
func New(opts ...Option) *Converter {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	exts := []goldmark.Extender{
		FrontMatter,
		Fences,
		Tables,
		extension.Strikethrough,
		extension.Linkify,
		extension.TaskList,
		Highlighting,
		Anchors,
		NewWidgets(o.widgetOpts...),
		WidgetLinks,
		NewIncludes(o.includeOpts...),
		NewLive(o.liveOpts...),
	}
	if o.typographer {
		exts = append(exts, extension.Typographer)
	}
	return &Converter{md: goldmark.New(goldmark.WithExtensions(exts...))}
}

// Convert converts the article at path (used in error messages only) with
// source src. The error, if any, lists every problem in the file, each as
// a *SourceError on its own line ("path:line: what"), in line order; the
// page is then nil, or holds only the Path and Refs, so that the links of
// a file with problems can be checked with them.
//
// The source must be UTF-8: other bytes are an error at their line, before
// any parsing.
func (c *Converter) Convert(path string, src []byte) (*Page, error) {
	if err := checkUTF8(path, src); err != nil {
		return nil, err
	}
	pc := parser.NewContext()
	SetPath(pc, path)
	doc := c.md.Parser().Parse(text.NewReader(src), parser.WithContext(pc))
	if err := Errors(pc); err != nil {
		return &Page{Path: path, Refs: refs(doc, stateOf(pc), src)}, err
	}
	var body bytes.Buffer
	if err := c.md.Renderer().Render(&body, src, doc); err != nil {
		return nil, &SourceError{Path: path, Line: 1, Err: err}
	}
	// Widgets run while rendering; their failures are recorded, not returned.
	if err := Errors(pc); err != nil {
		return &Page{Path: path, Refs: refs(doc, stateOf(pc), src)}, err
	}
	m := GetMeta(pc)
	html := body.String()
	return &Page{
		Path:        path,
		Title:       m.Title,
		Description: m.Description,
		Date:        m.Date,
		Level:       m.Level,
		Order:       m.Order,
		Body:        html,
		TOC:         TOC(doc, src),
		Widgets:     widgetsUsed(doc),
		Refs:        refs(doc, stateOf(pc), src),
		IDs:         ids(html),
	}, nil
}

// checkUTF8 reports the first bytes of src that are not UTF-8, at their
// line: a file saved as Latin-1 or Windows-1252 would otherwise show
// replacement characters where its accents were.
func checkUTF8(path string, src []byte) error {
	if utf8.Valid(src) {
		return nil
	}
	line, col := 1, 1
	for i := 0; i < len(src); {
		r, n := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && n <= 1 {
			return &SourceError{Path: path, Line: line, Err: fmt.Errorf(
				"byte 0x%02x at column %d is not UTF-8 text: save the file as UTF-8", src[i], col)}
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		i += n
	}
	return nil
}

// widgetsUsed lists the widgets of doc's widget blocks, each once, in order
// of first use.
func widgetsUsed(doc gast.Node) []string {
	var names []string
	seen := map[*widget.Widget]bool{}
	_ = gast.Walk(doc, func(n gast.Node, entering bool) (gast.WalkStatus, error) {
		if wb, ok := n.(*WidgetBlock); ok && entering && wb.Widget != nil && !seen[wb.Widget] {
			seen[wb.Widget] = true
			names = append(names, wb.Widget.Name)
		}
		return gast.WalkContinue, nil
	})
	return names
}
