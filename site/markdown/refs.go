package markdown

import (
	"html"
	"strings"

	gast "github.com/yuin/goldmark/ast"
)

// Ref is a link or an image of an article, for the site generator to check
// against the pages and files it builds.
type Ref struct {
	Dest  string // the destination as written: "/double-charge/#keys", "images/flow.svg"
	Line  int    // the line of the link's text in the file
	Image bool   // an image (![alt](dest)) rather than a link
}

// refs lists doc's links and images in order. Autolinks (a bare
// https://...) are left out: they name other sites.
func refs(doc gast.Node, st *state, source []byte) []Ref {
	var out []Ref
	_ = gast.Walk(doc, func(n gast.Node, entering bool) (gast.WalkStatus, error) {
		if !entering {
			return gast.WalkContinue, nil
		}
		var r Ref
		switch n := n.(type) {
		case *gast.Link:
			r = Ref{Dest: string(n.Destination)}
		case *gast.Image:
			r = Ref{Dest: string(n.Destination), Image: true}
		default:
			return gast.WalkContinue, nil
		}
		r.Line = st.line(source, nodeOffset(n))
		out = append(out, r)
		return gast.WalkContinue, nil
	})
	return out
}

// nodeOffset is where n starts in the source: its own position when the
// parser recorded one, else that of the nearest block holding it.
func nodeOffset(n gast.Node) int {
	for ; n != nil; n = n.Parent() {
		if p := n.Pos(); p >= 0 {
			return p
		}
		if n.Type() == gast.TypeBlock && n.Lines().Len() > 0 {
			return n.Lines().At(0).Start
		}
	}
	return 0
}

// ids lists every id of a rendered body: headings and widgets, the
// targets of "#anchor" links. This package's HTML always quotes an id
// with double quotes, so an id is the value of every `id="` after a space
// (any of \t\n\f\r and space). It scans rather than using a regular
// expression, which took a tenth of a 1,000-article build's time.
func ids(body string) []string {
	const attr = `id="`
	var out []string
	for {
		i := strings.Index(body, attr)
		if i < 0 {
			return out
		}
		value := body[i+len(attr):]
		if i == 0 || !strings.ContainsRune("\t\n\f\r ", rune(body[i-1])) {
			body = value
			continue
		}
		end := strings.IndexByte(value, '"')
		if end < 0 {
			return out
		}
		out = append(out, html.UnescapeString(value[:end]))
		body = value[end+1:]
	}
}
