package markdown

import (
	"html"
	"strings"

	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/util"
	"go.abhg.dev/goldmark/anchor"
)

// Heading is one entry of a page's table of contents.
type Heading struct {
	Level int    // 2 or 3
	ID    string // the heading's id, for "#ID" links
	Text  string // plain text, without markup or the anchor link
}

// The table of contents lists the h2 and h3 headings: h1 is the article's
// title, and deeper levels make the list longer than it is useful.
const (
	tocMinLevel = 2
	tocMaxLevel = 3
)

// TOC returns the h2 and h3 headings of doc that have an id, in document
// order.
func TOC(doc gast.Node, source []byte) []Heading {
	var toc []Heading
	_ = gast.Walk(doc, func(n gast.Node, entering bool) (gast.WalkStatus, error) {
		h, ok := n.(*gast.Heading)
		if !entering || !ok {
			return gast.WalkContinue, nil
		}
		if h.Level < tocMinLevel || h.Level > tocMaxLevel {
			return gast.WalkSkipChildren, nil
		}
		id, ok := h.AttributeString("id")
		if b, isBytes := id.([]byte); ok && isBytes && len(b) > 0 {
			toc = append(toc, Heading{Level: h.Level, ID: string(b), Text: headingText(h, source)})
		}
		return gast.WalkSkipChildren, nil
	})
	return toc
}

// headingText returns a heading's text as a reader sees it: emphasis, code
// and links reduced to their text, escapes and entities resolved, the
// anchor link left out.
func headingText(h *gast.Heading, source []byte) string {
	var b strings.Builder
	var walk func(n gast.Node, code bool)
	walk = func(n gast.Node, code bool) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *anchor.Node, *gast.RawHTML:
				// Not text.
			case *gast.Text:
				v := c.Segment.Value(source)
				if !code {
					v = util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(v)))
				}
				b.Write(v)
				if c.SoftLineBreak() || c.HardLineBreak() {
					b.WriteByte(' ')
				}
			case *gast.String:
				if c.IsCode() {
					// Markup ready to write, such as the typographer's "&rsquo;".
					b.WriteString(html.UnescapeString(string(c.Value)))
				} else {
					b.Write(c.Value)
				}
			case *gast.AutoLink:
				b.Write(c.Label(source))
			case *gast.CodeSpan:
				walk(c, true)
			default:
				walk(c, code)
			}
		}
	}
	walk(h, false)
	return strings.TrimSpace(b.String())
}
