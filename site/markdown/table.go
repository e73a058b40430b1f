package markdown

import (
	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// A table of the prose may be wider than a phone's screen: left to
// itself it widens the page, and a phone's browser zooms the whole page
// out to fit it. Each table is put in a box that scrolls sideways
// instead (style.css, .table-scroll), focusable so that the arrow keys
// scroll it, and named for a screen reader by what it does:
//
//	<div class="table-scroll" tabindex="0" role="group" aria-label="Table, scrolls sideways"><table>…</table></div>

// KindTableScroll is the NodeKind of a TableScroll.
var KindTableScroll = gast.NewNodeKind("TableScroll")

// TableScroll is the box around a table of the prose.
type TableScroll struct{ gast.BaseBlock }

// Kind implements ast.Node.
func (*TableScroll) Kind() gast.NodeKind { return KindTableScroll }

// Dump implements ast.Node.
func (n *TableScroll) Dump(source []byte, level int) { gast.DumpHelper(n, source, level, nil, nil) }

// tableScrolls puts every table of the document in a TableScroll.
type tableScrolls struct{}

func (tableScrolls) Transform(doc *gast.Document, _ text.Reader, _ parser.Context) {
	var tables []gast.Node
	_ = gast.Walk(doc, func(n gast.Node, entering bool) (gast.WalkStatus, error) {
		if entering && n.Kind() == extast.KindTable {
			tables = append(tables, n)
			return gast.WalkSkipChildren, nil
		}
		return gast.WalkContinue, nil
	})
	for _, t := range tables {
		box := &TableScroll{}
		parent := t.Parent()
		parent.ReplaceChild(parent, t, box)
		box.AppendChild(box, t)
	}
}

func renderTableScroll(w util.BufWriter, _ []byte, _ gast.Node, entering bool) (gast.WalkStatus, error) {
	if entering {
		_, _ = w.WriteString(`<div class="table-scroll" tabindex="0" role="group" aria-label="Table, scrolls sideways">` + "\n")
	} else {
		_, _ = w.WriteString("</div>\n")
	}
	return gast.WalkContinue, nil
}

type tableScrollRenderer struct{}

// RegisterFuncs implements renderer.NodeRendererFuncRegisterer.
func (tableScrollRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(KindTableScroll, renderTableScroll)
}

type tables struct{}

// Tables is GFM's tables, each in a box that scrolls sideways, with a
// column's alignment as align= rather than goldmark's default style=
// attribute, which the pages' CSP (style-src 'self') would block.
var Tables goldmark.Extender = tables{}

// Extend implements goldmark.Extender.
func (tables) Extend(m goldmark.Markdown) {
	extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignAttribute)).Extend(m)
	m.Parser().AddOptions(parser.WithASTTransformers(util.Prioritized(tableScrolls{}, 700)))
	m.Renderer().AddOptions(renderer.WithNodeRenderers(util.Prioritized(tableScrollRenderer{}, 500)))
}
