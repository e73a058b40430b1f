package markdown

import (
	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
	"go.abhg.dev/goldmark/anchor"
)

// Every heading gets an id, made from its text ("Retry with keys" ->
// "retry-with-keys") or given with an attribute ("## Retry with keys
// {#keys}") so that links survive a reworded title, and ends with a "#"
// link to itself:
//
//	<h2 id="keys">Retry with keys <a class="anchor" aria-label="Link to this section: Retry with keys" href="#keys">#</a></h2>
//
// The link's accessible name is its aria-label, not the bare "#". AnchorCSS
// hides it until its heading is hovered or the link has the focus.

// anchorLabel prefixes a heading's text in its anchor's aria-label.
const anchorLabel = "Link to this section: "

// anchorLabeler names each anchor link after its heading. It runs after the
// anchor transformer (priority 100), which adds the links.
type anchorLabeler struct{}

// Transform implements parser.ASTTransformer.
func (anchorLabeler) Transform(doc *gast.Document, reader text.Reader, _ parser.Context) {
	source := reader.Source()
	_ = gast.Walk(doc, func(n gast.Node, entering bool) (gast.WalkStatus, error) {
		h, ok := n.(*gast.Heading)
		if !entering || !ok {
			return gast.WalkContinue, nil
		}
		label := anchorLabel + headingText(h, source)
		for c := h.FirstChild(); c != nil; c = c.NextSibling() {
			if a, ok := c.(*anchor.Node); ok {
				a.SetAttributeString("aria-label", []byte(label))
			}
		}
		return gast.WalkSkipChildren, nil
	})
}

type anchors struct{}

// Anchors is the heading id and anchor link extension.
var Anchors goldmark.Extender = anchors{}

// Extend implements goldmark.Extender.
func (anchors) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(parser.WithAutoHeadingID(), parser.WithHeadingAttribute())
	(&anchor.Extender{
		Texter:     anchor.Text("#"),
		Attributer: anchor.Attributes{"class": "anchor"},
	}).Extend(m)
	m.Parser().AddOptions(parser.WithASTTransformers(
		util.Prioritized(anchorLabeler{}, 101),
	))
}

// AnchorCSS returns the stylesheet for anchor links: hidden until their
// heading is hovered or they have the focus, and always shown, faintly,
// where there is no hover (touch screens). Hiding uses opacity, not
// display or visibility, so the link stays in the tab order.
func AnchorCSS() string {
	return `.anchor { margin-left: 0.25em; text-decoration: none; opacity: 0; }
:is(h1, h2, h3, h4, h5, h6):hover > .anchor, .anchor:focus { opacity: 1; }
@media (hover: none) { .anchor { opacity: 0.6; } }
`
}
