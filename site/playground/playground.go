// Package playground renders an author's draft for the playground page
// (/playground/) the way the site generator renders an article: with the
// same site/markdown converter and the same labelling of code blocks, so
// the preview is the article's body, byte for byte (a test of cmd/sitegen
// holds the two together), and its problems are the build's, in the
// build's words, at their lines.
//
// It is plain Go: cmd/playground runs it in the page, compiled to
// WebAssembly, and the generator's test runs it natively.
package playground

import (
	"errors"

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
}

// draftPath names the draft in the converter's messages, which Problem
// leaves out.
const draftPath = "playground.md"

// errNoFiles is what an include block says in the playground: the page
// has no copy of the repository's files to include from.
var errNoFiles = errors.New("the playground cannot read the repository's files; the site's build includes them")

// New returns a Renderer whose widgets' embed snippets load embed.js
// from origin, as the generator's do.
func New(origin string) *Renderer {
	return &Renderer{conv: markdown.New(
		markdown.WithWidgetOptions(markdown.EmbedOrigin(origin)),
		markdown.WithIncludeOptions(markdown.IncludeReader(func(string) ([]byte, error) { return nil, errNoFiles })),
	)}
}

// Render renders the draft src.
func (r *Renderer) Render(src []byte) Preview {
	page, err := r.conv.Convert(draftPath, src)
	if err != nil {
		return Preview{Problems: problems(err)}
	}
	return Preview{Title: page.Title, Description: page.Description, HTML: markdown.LabelCode(page.Body)}
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
