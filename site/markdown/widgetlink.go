package markdown

import (
	"bytes"
	"errors"
	"slices"
	"strings"

	"github.com/retrylab/retrylab/site/widget"
	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// A widget link is a markdown link whose destination is "widget:" and a
// widget of the page, with the parameters the prose asks the reader to
// set:
//
//	[send the same key](widget:payment-1?keys=per-intent)
//
// The widget is named as its permalink names it: its name and its count
// in the page, "payment-1" for the first payment widget (the id w-payment-1
// without its "w-"). The parameters are a query, as in a permalink (a
// list's items separated by commas); those not given keep the values the
// widget's block sets. Both are checked at build time: an unknown widget,
// an unknown parameter or a bad value is an error at the link's line. The
// link renders as
//
//	<a data-widget-link="payment-1" href="PERMALINK">send the same key</a>
//
// where PERMALINK is widget.Permalink of the widget in that state: without
// the page's module it opens the page with the widget in that state; with
// it, a click sets the widget's controls in place (wasm/links.go).

// WidgetLinkScheme begins the destination of a widget link.
const WidgetLinkScheme = "widget:"

// KindWidgetLink is the NodeKind of a WidgetLink.
var KindWidgetLink = gast.NewNodeKind("WidgetLink")

// WidgetLink is a link in the prose that sets a widget of the page.
type WidgetLink struct {
	gast.BaseInline

	Target string // the widget as written: "payment-1"
	Href   string // the widget's permalink in the state the link sets
	Title  []byte // the link's title, if any
}

// Kind implements ast.Node.
func (n *WidgetLink) Kind() gast.NodeKind { return KindWidgetLink }

// Dump implements ast.Node.
func (n *WidgetLink) Dump(source []byte, level int) {
	gast.DumpHelper(n, source, level, map[string]string{"Target": n.Target, "Href": n.Href}, nil)
}

// widgetLinkTransformer turns links to "widget:..." into WidgetLinks. It
// runs after the widget transformer, which numbers the page's widgets.
type widgetLinkTransformer struct{}

// Transform implements parser.ASTTransformer.
func (widgetLinkTransformer) Transform(doc *gast.Document, reader text.Reader, pc parser.Context) {
	source := reader.Source()
	st := stateOf(pc)

	blocks := map[string]*WidgetBlock{} // by the id a link names
	var ids []string
	var links []*gast.Link
	_ = gast.Walk(doc, func(n gast.Node, entering bool) (gast.WalkStatus, error) {
		if !entering {
			return gast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *WidgetBlock:
			if n.Widget != nil {
				id := strings.TrimPrefix(n.ID, widget.IDPrefix)
				blocks[id] = n
				ids = append(ids, id)
			}
		case *gast.Link:
			if strings.HasPrefix(string(n.Destination), WidgetLinkScheme) {
				links = append(links, n)
			}
		}
		return gast.WalkContinue, nil
	})

	cursor := map[gast.Node]int{}
	for _, l := range links {
		line := linkLine(l, source, st, cursor)
		target, query, _ := strings.Cut(strings.TrimPrefix(string(l.Destination), WidgetLinkScheme), "?")
		wb := blocks[target]
		if wb == nil {
			// A link to a block with errors, or one that may be (a block
			// that names no widget), is left to that block's error.
			if !st.unnamedWidget && !slices.Contains(st.brokenWidgets, target) {
				st.addLine(line, errors.New("widget link "+target+": "+unknownWidget(target, ids)))
			}
			continue
		}
		v, err := wb.Values.WithQuery(query)
		if err != nil {
			st.addLine(line, errors.New("widget link "+target+": "+err.Error()))
			continue
		}
		wl := &WidgetLink{Target: target, Href: widget.Permalink(wb.ID, v), Title: l.Title}
		for c := l.FirstChild(); c != nil; {
			next := c.NextSibling()
			wl.AppendChild(wl, c)
			c = next
		}
		l.Parent().ReplaceChild(l.Parent(), l, wl)
	}
}

// unknownWidget says what is wrong with a link to a widget the page lacks.
func unknownWidget(target string, ids []string) string {
	if target == "" {
		return `missing the widget: write "widget:NAME-N?param=value" (the page has: ` + listOrNone(ids) + ")"
	}
	return "no such widget in this page (the page has: " + listOrNone(ids) + ")"
}

func listOrNone(ids []string) string {
	if len(ids) == 0 {
		return "no widgets"
	}
	return strings.Join(ids, ", ")
}

// linkLine is the line a link is on: where its destination is written in
// its paragraph, searched from after the previous link's (cursor, by
// paragraph), else where its text starts, else its paragraph's first line.
func linkLine(l *gast.Link, source []byte, st *state, cursor map[gast.Node]int) int {
	var para gast.Node
	for p := l.Parent(); p != nil; p = p.Parent() {
		if p.Type() == gast.TypeBlock && p.Lines().Len() > 0 {
			para = p
			break
		}
	}
	if para != nil {
		lines := para.Lines()
		from := max(cursor[para], lines.At(0).Start)
		end := lines.At(lines.Len() - 1).Stop
		if i := bytes.Index(source[from:end], l.Destination); i >= 0 {
			cursor[para] = from + i + len(l.Destination)
			return st.line(source, from+i)
		}
	}
	line := 0
	_ = gast.Walk(l, func(n gast.Node, entering bool) (gast.WalkStatus, error) {
		if t, ok := n.(*gast.Text); ok && entering {
			line = st.line(source, t.Segment.Start)
			return gast.WalkStop, nil
		}
		return gast.WalkContinue, nil
	})
	switch {
	case line != 0:
		return line
	case para != nil:
		return st.line(source, para.Lines().At(0).Start)
	}
	return 1
}

// WidgetLinkHTMLRenderer renders WidgetLinks.
type WidgetLinkHTMLRenderer struct{}

// RegisterFuncs implements renderer.NodeRendererFuncRegisterer.
func (WidgetLinkHTMLRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(KindWidgetLink, renderWidgetLink)
}

func renderWidgetLink(w util.BufWriter, source []byte, node gast.Node, entering bool) (gast.WalkStatus, error) {
	n := node.(*WidgetLink)
	if !entering {
		_, _ = w.WriteString("</a>")
		return gast.WalkContinue, nil
	}
	_, _ = w.WriteString(`<a data-widget-link="`)
	_, _ = w.Write(util.EscapeHTML([]byte(n.Target)))
	_, _ = w.WriteString(`" href="`)
	_, _ = w.Write(util.EscapeHTML([]byte(n.Href)))
	_ = w.WriteByte('"')
	if n.Title != nil {
		_, _ = w.WriteString(` title="`)
		_, _ = w.Write(util.EscapeHTML(n.Title))
		_ = w.WriteByte('"')
	}
	_ = w.WriteByte('>')
	return gast.WalkContinue, nil
}

type widgetLinks struct{}

// WidgetLinks is the widget link extension. It needs Widgets, whose
// blocks its links name.
var WidgetLinks goldmark.Extender = widgetLinks{}

// Extend implements goldmark.Extender.
func (widgetLinks) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(parser.WithASTTransformers(
		// After the widget blocks (500), which number the widgets.
		util.Prioritized(widgetLinkTransformer{}, 600),
	))
	m.Renderer().AddOptions(renderer.WithNodeRenderers(
		util.Prioritized(WidgetLinkHTMLRenderer{}, 500),
	))
}
