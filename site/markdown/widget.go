package markdown

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/retrylab/retrylab/engine/param"
	"github.com/retrylab/retrylab/internal/suggest"
	"github.com/retrylab/retrylab/site/widget"
	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// A widget block is a fenced code block whose info string is "widget NAME"
// and whose body is "key: value" lines:
//
//	```widget payment
//	keys: off
//	faults: lose-response, ok
//	```
//
// One key is the block's own, not a parameter: "controls: guard, dupes"
// names the parameters whose controls are shown, the others folded under
// More parameters with their values kept. Blank lines and lines starting
// with # are ignored. The block is checked
// against the widget's schema while parsing, and rendered as the widget's
// markup, already run, while rendering. On GitHub it stays a readable code
// block.

// KindWidgetBlock is the NodeKind of a WidgetBlock.
var KindWidgetBlock = gast.NewNodeKind("WidgetBlock")

// WidgetBlock is a widget in the document.
type WidgetBlock struct {
	gast.BaseBlock

	Name   string         // as written after "widget"
	Widget *widget.Widget // nil if the block has errors
	Values widget.Values  // checked against Widget's schema
	Shown  []string       // the controls shown ("controls:"), in the schema's order; nil: as declared
	ID     string         // unique in the page: "w-NAME-N"
	Line   int            // the line of the opening fence

	st *state // where a failure to run is recorded
}

// Kind implements ast.Node.
func (n *WidgetBlock) Kind() gast.NodeKind { return KindWidgetBlock }

// Dump implements ast.Node.
func (n *WidgetBlock) Dump(source []byte, level int) {
	kv := map[string]string{"Name": n.Name, "ID": n.ID, "Line": strconv.Itoa(n.Line)}
	if n.Widget != nil {
		kv["Params"] = n.Values.JSON()
	}
	gast.DumpHelper(n, source, level, kv, nil)
}

// widgetTransformer turns widget code blocks into WidgetBlocks.
type widgetTransformer struct {
	lookup func(name string) (*widget.Widget, error)
	origin string // the site's origin, for the widgets' embed snippets
}

// Transform implements parser.ASTTransformer.
func (t *widgetTransformer) Transform(doc *gast.Document, reader text.Reader, pc parser.Context) {
	source := reader.Source()
	st := stateOf(pc)

	var blocks []*gast.FencedCodeBlock
	used := map[string]bool{} // ids already in the page (headings)
	_ = gast.Walk(doc, func(n gast.Node, entering bool) (gast.WalkStatus, error) {
		if !entering {
			return gast.WalkContinue, nil
		}
		if id, ok := n.AttributeString("id"); ok {
			if b, ok := id.([]byte); ok {
				used[string(b)] = true
			}
		}
		if fc, ok := n.(*gast.FencedCodeBlock); ok && isWidgetInfo(fc, source) {
			blocks = append(blocks, fc)
		}
		return gast.WalkContinue, nil
	})

	count := map[string]int{} // widgets of each name so far, for ids
	next := func(name string) string {
		for {
			count[name]++
			id := widget.ID(name, count[name])
			if !used[id] {
				used[id] = true
				return id
			}
		}
	}
	for _, fc := range blocks {
		wb, meant := t.check(fc, source, st)
		switch {
		case wb.Widget != nil:
			wb.ID = next(wb.Name)
			pc.IDs().Put([]byte(wb.ID))
		case meant != "":
			// A block with errors keeps its place in the numbering of the
			// widget it means, so that the links to it and to the widgets
			// after it are not reported for its errors (widgetLinkTransformer).
			st.brokenWidgets = append(st.brokenWidgets, strings.TrimPrefix(next(meant), widget.IDPrefix))
		default:
			st.unnamedWidget = true
		}
		fc.Parent().ReplaceChild(fc.Parent(), fc, wb)
	}
}

func isWidgetInfo(fc *gast.FencedCodeBlock, source []byte) bool {
	if fc.Info == nil {
		return false
	}
	fields := strings.Fields(string(fc.Info.Segment.Value(source)))
	return len(fields) > 0 && fields[0] == "widget"
}

// check reads a widget code block into a WidgetBlock, recording every
// problem with its line. meant is the widget the block names, or the one
// it most likely means when the name is unknown (suggest.Closest), or "".
func (t *widgetTransformer) check(fc *gast.FencedCodeBlock, source []byte, st *state) (wb *WidgetBlock, meant string) {
	wb = &WidgetBlock{st: st}
	wb.Line = st.line(source, fc.Info.Segment.Start)
	fail := func(line int, what string, err error) {
		st.addLine(line, fmt.Errorf("%s: %w", what, err))
	}

	fields := strings.Fields(string(fc.Info.Segment.Value(source)))
	head := "widget"
	ok := true
	switch len(fields) {
	case 1:
		fail(wb.Line, "widget", errors.New("missing name (known: "+strings.Join(widget.Names(), ", ")+")"))
		ok = false
	case 2:
		wb.Name = fields[1]
		head = "widget " + wb.Name
	default:
		wb.Name = fields[1]
		head = "widget " + wb.Name
		fail(wb.Line, head, errors.New("unexpected "+strconv.Quote(strings.Join(fields[2:], " "))+" after the name"))
		ok = false
	}

	var w *widget.Widget
	if wb.Name != "" {
		var err error
		if w, err = t.lookup(wb.Name); err == nil && w == nil {
			err = errors.New("widget " + strconv.Quote(wb.Name) + ": unknown widget")
		}
		if err != nil {
			// The registry's message names the widget and lists the known ones.
			st.addLine(wb.Line, err)
			ok = false
			meant = suggest.Closest(wb.Name, widget.Names())
		} else {
			meant = w.Name
		}
	}

	raw := map[string]string{}
	lineOf := map[string]int{}
	lines := fc.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		line := st.line(source, seg.Start)
		s := strings.TrimSpace(string(seg.Value(source)))
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		key, val, found := strings.Cut(s, ":")
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		switch {
		case !found || key == "":
			fail(line, head, errors.New(strconv.Quote(s)+" is not a \"key: value\" line"))
			ok = false
			continue
		case lineOf[key] != 0:
			fail(line, head, errors.New("duplicate key "+strconv.Quote(key)+" (first on line "+strconv.Itoa(lineOf[key])+")"))
			ok = false
			continue
		}
		if key == ControlsKey {
			lineOf[key] = line
			if w != nil {
				shown, err := shownControls(w.Schema, val)
				if err != nil {
					fail(line, head, err)
					ok = false
				}
				wb.Shown = shown
			}
			continue
		}
		raw[key], lineOf[key] = val, line
		if w != nil {
			// One key at a time against its own declaration, so that each
			// problem gets its own line.
			if err := checkKey(w.Schema, key, val); err != nil {
				fail(line, head, err)
				ok = false
			}
		}
	}
	if !ok {
		return wb, meant
	}
	v, err := w.Schema.Parse(raw)
	if err != nil {
		// A rule between parameters (slow-to above slow-from), which only
		// the whole block can break: on the line of the parameter it
		// names, or the block's if that one is at its default.
		line := wb.Line
		var pe *param.Error
		if errors.As(err, &pe) && lineOf[pe.Param] != 0 {
			line = lineOf[pe.Param]
		}
		fail(line, head, err)
		return wb, meant
	}
	wb.Widget, wb.Values = w, v
	return wb, meant
}

// ControlsKey is the widget block's key that names the controls shown.
// No widget has a parameter of that name (the registry's tests check).
const ControlsKey = "controls"

// shownControls reads a "controls:" value, parameter names separated by
// commas, into those names in the schema's order.
func shownControls(s widget.Schema, val string) ([]string, error) {
	named := map[string]bool{}
	var names []string
	for _, p := range s {
		names = append(names, p.Name)
	}
	for _, f := range strings.Split(val, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			return nil, errors.New(ControlsKey + ": " + strconv.Quote(val) + " names no parameter: write them separated by commas (known: " + strings.Join(names, ", ") + ")")
		}
		if _, ok := s.Param(f); !ok {
			msg := ControlsKey + ": no parameter " + strconv.Quote(f) + " ("
			if near := suggest.Closest(f, names); near != "" {
				msg += "did you mean " + near + "? "
			}
			return nil, errors.New(msg + "known: " + strings.Join(names, ", ") + ")")
		}
		if named[f] {
			return nil, errors.New(ControlsKey + ": " + strconv.Quote(f) + " named twice")
		}
		named[f] = true
	}
	var shown []string
	for _, p := range s {
		if named[p.Name] {
			shown = append(shown, p.Name)
		}
	}
	return shown, nil
}

// checkKey checks one key of a widget block against its parameter's own
// declaration (not the rules between parameters: the others may be given
// on later lines), or says the schema has no such parameter.
func checkKey(s widget.Schema, key, val string) error {
	p, ok := s.Param(key)
	if !ok {
		_, err := s.Parse(map[string]string{key: val}) // the unknown parameter's error
		return err
	}
	_, err := p.Parse(val)
	return err
}

// WidgetHTMLRenderer renders WidgetBlocks with widget.Render, each widget
// with the same parameters once (widgetCache).
type WidgetHTMLRenderer struct {
	// Origin is the site's scheme and host, which each widget's embed
	// snippet loads embed.js from (see EmbedOrigin).
	Origin string
	cache  widgetCache
}

// RegisterFuncs implements renderer.NodeRenderer.
func (r *WidgetHTMLRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(KindWidgetBlock, r.renderWidget)
}

// renderWidget writes the widget, already run. A widget that fails to run
// renders nothing and records its error with its line (see Errors) rather
// than stopping the walk, so that one build reports every failure.
func (r *WidgetHTMLRenderer) renderWidget(w util.BufWriter, source []byte, node gast.Node, entering bool) (gast.WalkStatus, error) {
	n := node.(*WidgetBlock)
	if !entering || n.Widget == nil {
		return gast.WalkSkipChildren, nil
	}
	html, err := r.cache.render(n.Widget, n.Values, widget.Place{ID: n.ID, Origin: r.Origin, Shown: n.Shown})
	if err != nil {
		if n.st != nil {
			n.st.addLine(n.Line, fmt.Errorf("widget %s: %w", n.Name, err))
			return gast.WalkSkipChildren, nil
		}
		return gast.WalkStop, &SourceError{Line: n.Line, Err: fmt.Errorf("widget %s: %w", n.Name, err)}
	}
	_, _ = w.WriteString(html)
	_ = w.WriteByte('\n')
	return gast.WalkSkipChildren, nil
}

// WidgetOption configures the widget extension.
type WidgetOption func(*widgetTransformer)

// WithLookup sets how widget names are resolved; the default is
// widget.Find, the site's registry. The error for an unknown name is
// reported as is, so it should name the known widgets.
func WithLookup(lookup func(name string) (*widget.Widget, error)) WidgetOption {
	return func(t *widgetTransformer) { t.lookup = lookup }
}

// EmbedOrigin sets the site's scheme and host ("https://retrylab.example"),
// which the embed snippet of every widget loads embed.js from. Without it
// the snippet names /embed.js, a path that holds only on the site itself.
func EmbedOrigin(origin string) WidgetOption {
	return func(t *widgetTransformer) { t.origin = origin }
}

type widgets struct{ opts []WidgetOption }

// Widgets is the widget block extension with the site's registry.
var Widgets = NewWidgets()

// NewWidgets returns the widget block extension.
func NewWidgets(opts ...WidgetOption) goldmark.Extender {
	return &widgets{opts: opts}
}

// Extend implements goldmark.Extender.
func (e *widgets) Extend(m goldmark.Markdown) {
	t := &widgetTransformer{lookup: widget.Find}
	for _, opt := range e.opts {
		opt(t)
	}
	m.Parser().AddOptions(parser.WithASTTransformers(
		util.Prioritized(t, 500),
	))
	m.Renderer().AddOptions(renderer.WithNodeRenderers(
		util.Prioritized(&WidgetHTMLRenderer{Origin: t.origin}, 500),
	))
}
