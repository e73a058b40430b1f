// Package playground renders an author's draft for the playground page
// (/playground/) the way the site generator renders an article: with the
// same site/markdown converter and the same labelling of code blocks, so
// the preview is the article's body, byte for byte (a test of cmd/sitegen
// holds the two together), and its problems are the build's, in the
// build's words, at their lines: those of the converter, and those of the
// build's link check (site/linkcheck), against the site's pages and ids
// as the build wrote them into the playground's page.
//
// It is plain Go: cmd/playground runs it in the page, compiled to
// WebAssembly, and the generator's test runs it natively.
package playground

import (
	"errors"

	"github.com/retrylab/retrylab/site/linkcheck"
	"github.com/retrylab/retrylab/site/markdown"
)

// Problem is one thing the build would refuse in a draft.
type Problem struct {
	Line    int    // 1-based, front matter included; 0 for the whole draft
	Message string // the build's message, without its "file:line: "
}

// Preview is a draft, rendered.
type Preview struct {
	Title       string    // the front matter's title
	Description string    // and its description
	HTML        string    // the article's body as the generator writes it; "" when there are Problems
	Problems    []Problem // in line order; none when the build would take the draft
}

// Renderer renders drafts. It keeps no state between them.
type Renderer struct {
	conv *markdown.Converter
	site *linkcheck.Site // nil: links are not checked
}

// DraftURL is where the draft stands among the site's pages: the
// playground's own address, which resolves a relative link as any
// article's would, and whose ids, for a "#id" link, are the draft's.
const DraftURL = "/playground/"

// Option configures a Renderer.
type Option func(*Renderer)

// WithSite checks the draft's links and images against site, as the
// build checks an article's.
func WithSite(site *linkcheck.Site) Option {
	return func(r *Renderer) {
		s := *site
		s.Paths = map[string]bool{DraftURL: true}
		for p := range site.Paths {
			s.Paths[p] = true
		}
		r.site = &s
	}
}

// draftPath names the draft in the converter's messages, which Problem
// leaves out.
const draftPath = "playground.md"

// errNoFiles is what an include block says in the playground: the page
// has no copy of the repository's files to include from.
var errNoFiles = errors.New("the playground cannot read the repository's files; the site's build includes them")

// New returns a Renderer whose widgets' embed snippets load embed.js
// from origin, as the generator's do.
func New(origin string, opts ...Option) *Renderer {
	r := &Renderer{conv: markdown.New(
		markdown.WithWidgetOptions(markdown.EmbedOrigin(origin)),
		markdown.WithIncludeOptions(markdown.IncludeReader(func(string) ([]byte, error) { return nil, errNoFiles })),
	)}
	for _, o := range opts {
		o(r)
	}
	return r
}

// Render renders the draft src.
func (r *Renderer) Render(src []byte) Preview {
	page, err := r.conv.Convert(draftPath, src)
	var list []Problem
	if err != nil {
		list = problems(err)
	}
	// A draft with problems still has its links checked, as the build
	// checks those of an article with problems: every error at once.
	if r.site != nil && page != nil {
		list = merge(list, r.checkLinks(page, err == nil))
	}
	if len(list) > 0 {
		return Preview{Problems: list}
	}
	return Preview{Title: page.Title, Description: page.Description, HTML: markdown.LabelCode(page.Body)}
}

// checkLinks checks the links and images of page, the draft's, against
// the site. Its "#id" links to itself are checked against its ids when
// they are known (whole), as the build does for an article.
func (r *Renderer) checkLinks(page *markdown.Page, whole bool) []Problem {
	s := *r.site
	s.IDs = make(map[string][]string, len(r.site.IDs)+1)
	for u, ids := range r.site.IDs {
		if u != DraftURL {
			s.IDs[u] = ids
		}
	}
	if whole {
		s.IDs[DraftURL] = page.IDs
	}
	var out []Problem
	for _, ref := range page.Refs {
		if msg := s.Check(DraftURL, ref); msg != "" {
			out = append(out, Problem{Line: ref.Line, Message: msg})
		}
	}
	return out
}

// problems splits a Convert error into its problems: one *SourceError
// per line of the error, or one error alone.
func problems(err error) []Problem {
	list := []error{err}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		list = joined.Unwrap()
	}
	out := make([]Problem, 0, len(list))
	for _, e := range list {
		var se *markdown.SourceError
		if errors.As(e, &se) {
			out = append(out, Problem{Line: se.Line, Message: se.Err.Error()})
		} else {
			out = append(out, Problem{Message: e.Error()})
		}
	}
	return out
}

// merge merges a and b, each in line order, into one list in line order;
// of two problems at one line, a's comes first, as the build lists the
// converter's errors before those of its link check.
func merge(a, b []Problem) []Problem {
	out := make([]Problem, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if b[0].Line < a[0].Line {
			out, b = append(out, b[0]), b[1:]
		} else {
			out, a = append(out, a[0]), a[1:]
		}
	}
	return append(append(out, a...), b...)
}
