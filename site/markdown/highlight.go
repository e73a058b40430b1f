package markdown

import (
	"slices"
	"sort"
	"strings"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/yuin/goldmark"
	highlighting "github.com/yuin/goldmark-highlighting/v2"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"
)

// Fenced code blocks are highlighted with chroma into spans with class
// names (<span class="kd">), never inline styles, so that one stylesheet,
// HighlightCSS, colours them for light and dark readers alike. A block of a
// language chroma does not know, or of none, is written as plain escaped
// text in <pre><code>.
//
// Every code block is in the keyboard's tab order (<pre tabindex="0">): a
// block scrolls sideways when its lines are longer than the column, and a
// region that scrolls must take focus to be scrolled without a mouse.
// chroma writes a highlighted block's <pre> through focusPre, the
// extension's wrapper writes an unhighlighted one (plainPre), and
// indentedCode an indented block; include.go and live.go write theirs.

// The chroma styles of HighlightCSS.
const (
	LightStyle = "github"
	DarkStyle  = "github-dark"
)

// Highlighting is the code highlighting extension, with the renderer of
// indented code blocks.
var Highlighting goldmark.Extender = codeBlocks{highlighting.NewHighlighting(
	highlighting.WithCustomStyle(classesOnly),
	highlighting.WithFormatOptions(chromahtml.WithClasses(true), chromahtml.WithPreWrapper(focusPre{})),
	highlighting.WithCodeBlockOptions(blockOptions),
	highlighting.WithWrapperRenderer(plainPre),
)}

type codeBlocks struct{ fenced goldmark.Extender }

func (e codeBlocks) Extend(m goldmark.Markdown) {
	e.fenced.Extend(m)
	m.Renderer().AddOptions(renderer.WithNodeRenderers(util.Prioritized(indentedCode{}, 200)))
}

// indentedCode renders an indented code block as goldmark does, in the
// tab order.
type indentedCode struct{}

func (indentedCode) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindCodeBlock, func(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			_, _ = w.WriteString("</code></pre>\n")
			return ast.WalkContinue, nil
		}
		_, _ = w.WriteString(`<pre tabindex="0"><code>`)
		lines := n.Lines()
		for i := range lines.Len() {
			line := lines.At(i)
			html.DefaultWriter.RawWrite(w, line.Value(source))
		}
		return ast.WalkContinue, nil
	})
}

// plainPre writes the <pre><code> of a block chroma does not highlight,
// which the extension would write without tabindex; chroma writes a
// highlighted block's own (focusPre).
func plainPre(w util.BufWriter, c highlighting.CodeBlockContext, entering bool) {
	switch {
	case c.Highlighted():
	case !entering:
		_, _ = w.WriteString("</code></pre>\n")
	default:
		_, _ = w.WriteString(`<pre tabindex="0"><code`)
		if lang, ok := c.Language(); ok && len(lang) > 0 {
			_, _ = w.WriteString(` class="language-`)
			_, _ = w.Write(util.EscapeHTML(lang))
			_ = w.WriteByte('"')
		}
		_ = w.WriteByte('>')
	}
}

// A block whose info string gives it the class wrap, as in
//
//	```text {.wrap}
//
// is written <pre tabindex="0" class="chroma wrap">, and the stylesheet
// wraps its long lines at the block's width, each line's continuation
// under a hanging indent, where another block scrolls sideways: for
// output whose lines are sentences, which a phone would otherwise show a
// few words of. Its text is the same, so Copy copies the lines as they
// are.
const wrapClass = "wrap"

func blockOptions(c highlighting.CodeBlockContext) []chromahtml.Option {
	if a := c.Attributes(); a != nil {
		if v, ok := a.GetString("class"); ok {
			if b, ok := v.([]byte); ok && slices.Contains(strings.Fields(string(b)), wrapClass) {
				return []chromahtml.Option{chromahtml.WithPreWrapper(focusPre{wrap: true})}
			}
		}
	}
	return nil
}

// focusPre is chroma's <pre><code> in the tab order, with the class
// wrap added when wrap.
type focusPre struct{ wrap bool }

func (p focusPre) Start(code bool, styleAttr string) string {
	if p.wrap {
		styleAttr = strings.Replace(styleAttr, `class="chroma"`, `class="chroma `+wrapClass+`"`, 1)
	}
	if code {
		return `<pre tabindex="0"` + styleAttr + "><code>"
	}
	return `<pre tabindex="0"` + styleAttr + ">"
}

func (focusPre) End(code bool) string {
	if code {
		return "</code></pre>"
	}
	return "</pre>"
}

// classesOnly is the style code is highlighted with: an empty one. With
// classes, chroma's HTML names each token's class and takes nothing from
// the style; the colours are HighlightCSS's. But goldmark-highlighting
// makes a formatter for every code block, and each compiles its style
// afresh: a real style costs a large build several percent of its time,
// this one nothing.
var classesOnly = chroma.MustNewStyle("classes", chroma.StyleEntries{})

// HighlightCSS returns the stylesheet for highlighted code: LightStyle by
// default and DarkStyle under @media (prefers-color-scheme: dark), every
// rule scoped to .chroma. It is generated from chroma's styles.
//
// In the dark section, a property the light style sets on a class and the
// dark style does not (say, bold for a name label) is reset, so that no
// light rule shows through.
func HighlightCSS() string {
	f := chromahtml.New(chromahtml.WithClasses(true))
	light := cssRules(f, LightStyle)
	dark := cssRules(f, DarkStyle)

	var b strings.Builder
	b.WriteString("/* Code highlighting, generated from chroma's " + LightStyle + " and " + DarkStyle + " styles. */\n")
	for _, r := range light {
		b.WriteString(r.selector + " { " + strings.Join(r.decls, "; ") + " }\n")
	}
	b.WriteString("@media (prefers-color-scheme: dark) {\n")
	lightBySel := map[string]cssRule{}
	for _, r := range light {
		lightBySel[r.selector] = r
	}
	darkBySel := map[string]bool{}
	for _, r := range dark {
		darkBySel[r.selector] = true
		decls := append(append([]string(nil), r.decls...), resets(lightBySel[r.selector], r)...)
		b.WriteString("  " + r.selector + " { " + strings.Join(decls, "; ") + " }\n")
	}
	for _, r := range light {
		if !darkBySel[r.selector] {
			if decls := resets(r, cssRule{}); len(decls) > 0 {
				b.WriteString("  " + r.selector + " { " + strings.Join(decls, "; ") + " }\n")
			}
		}
	}
	b.WriteString("}\n")
	return b.String()
}

// cssRule is one rule of chroma's stylesheet.
type cssRule struct {
	selector string
	decls    []string // "property: value"
}

// cssRules returns the rules of a chroma style scoped to .chroma. chroma
// also writes a rule for .bg, the body of a stand-alone page; it is left
// out, since on the site it would colour any element of class "bg".
func cssRules(f *chromahtml.Formatter, style string) []cssRule {
	var b strings.Builder
	if err := f.WriteCSS(&b, styles.Get(style)); err != nil {
		// WriteCSS fails only when its writer does; a strings.Builder
		// does not.
		panic("markdown: chroma CSS: " + err.Error())
	}
	var rules []cssRule
	for _, line := range strings.Split(b.String(), "\n") {
		// Each line is "/* TokenType */ selector { decl; decl }".
		if i := strings.Index(line, "*/"); strings.HasPrefix(line, "/*") && i >= 0 {
			line = line[i+2:]
		}
		sel, body, ok := strings.Cut(line, "{")
		sel = strings.TrimSpace(sel)
		if !ok || (sel != ".chroma" && !strings.HasPrefix(sel, ".chroma ")) {
			continue
		}
		var decls []string
		for _, d := range strings.Split(strings.TrimSuffix(strings.TrimSpace(body), "}"), ";") {
			if d = strings.TrimSpace(d); d != "" {
				decls = append(decls, d)
			}
		}
		rules = append(rules, cssRule{selector: sel, decls: decls})
	}
	return rules
}

// resetValues are the values that undo a colour or font property a light
// rule sets, back to what the enclosing text has.
var resetValues = map[string]string{
	"color":            "inherit",
	"background-color": "transparent",
	"font-weight":      "inherit",
	"font-style":       "inherit",
	"text-decoration":  "inherit",
}

// resets returns declarations that reset the properties light sets and dark
// does not, sorted.
func resets(light, dark cssRule) []string {
	set := map[string]bool{}
	for _, d := range dark.decls {
		set[property(d)] = true
	}
	var out []string
	for _, d := range light.decls {
		p := property(d)
		if v, ok := resetValues[p]; ok && !set[p] {
			out = append(out, p+": "+v)
			set[p] = true
		}
	}
	sort.Strings(out)
	return out
}

func property(decl string) string {
	p, _, _ := strings.Cut(decl, ":")
	return strings.TrimSpace(p)
}
