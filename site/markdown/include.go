package markdown

import (
	"bytes"
	"errors"
	"html"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// An include block is a fenced code block with an empty body whose info
// string is a language and "include=" a file of the module, so that code
// shown in an article is code that compiles:
//
//	```go include=engine/idem/keeper.go#Keeper.Do
//	```
//
// What follows the "#" picks the part of the file:
//
//	(nothing)          the whole file
//	#Name              a function, a type, or the const or var block that declares Name
//	#Type.Method       a method, with a pointer receiver or not
//	#L10-L40, #L10     lines 10 to 40, or line 10
//
// Declarations are found with go/parser, so they need a .go file; they come
// with their doc comments. The path is relative to the source root
// (WithSourceRoot) and may not leave it. The block is replaced, while
// parsing, by the text it names, and rendered like any fenced block of its
// language (highlighted by chroma with class names), in a figure headed by
// a caption that names the file and the lines:
//
//	<figure class="include">
//	<figcaption><code>engine/idem/keeper.go</code>, lines 133–196</figcaption>
//	<pre class="chroma">...</pre></figure>
//
// A file, declaration or range that cannot be found is an error at the
// block's line, such as
//
//	content/keys.md:12: include engine/idem/keeper.go#Keeper.Run: no such declaration (declarations: Keeper.Do, Keeper, ...)
//
// On GitHub the block shows as an empty code block.

// KindIncludeBlock is the NodeKind of an IncludeBlock.
var KindIncludeBlock = gast.NewNodeKind("IncludeBlock")

// IncludeBlock is source text included from a file.
type IncludeBlock struct {
	gast.BaseBlock

	Lang        string // the info string's language: "go"
	Path        string // the file, relative to the source root, with forward slashes
	Selector    string // what followed "#": "Keeper.Do", "L10-L40" or ""
	Code        []byte // the text included, ending in a newline; nil if the block has errors
	First, Last int    // the lines of Code in the file, 1-based
	Line        int    // the line of the opening fence in the article
}

// Kind implements ast.Node.
func (n *IncludeBlock) Kind() gast.NodeKind { return KindIncludeBlock }

// Dump implements ast.Node.
func (n *IncludeBlock) Dump(source []byte, level int) {
	gast.DumpHelper(n, source, level, map[string]string{
		"Lang": n.Lang, "Path": n.Path, "Selector": n.Selector,
		"Lines": strconv.Itoa(n.First) + "-" + strconv.Itoa(n.Last), "Line": strconv.Itoa(n.Line),
	}, nil)
}

// includeAttr starts the info string field that makes a block an include.
const includeAttr = "include="

// includeTransformer replaces include blocks by IncludeBlocks.
type includeTransformer struct {
	root     string                       // "" for the working directory
	readFile func(string) ([]byte, error) // in place of root, if set (IncludeReader)
}

// Transform implements parser.ASTTransformer.
func (t *includeTransformer) Transform(doc *gast.Document, reader text.Reader, pc parser.Context) {
	source := reader.Source()
	st := stateOf(pc)
	var blocks []*gast.FencedCodeBlock
	_ = gast.Walk(doc, func(n gast.Node, entering bool) (gast.WalkStatus, error) {
		if fc, ok := n.(*gast.FencedCodeBlock); ok && entering && isIncludeInfo(fc, source) {
			blocks = append(blocks, fc)
		}
		return gast.WalkContinue, nil
	})
	for _, fc := range blocks {
		ib := &IncludeBlock{Line: st.line(source, fc.Info.Segment.Start)}
		if err := t.resolve(ib, fc, source); err != nil {
			ib.Code = nil
			st.addLine(ib.Line, err)
		}
		fc.Parent().ReplaceChild(fc.Parent(), fc, ib)
	}
}

func isIncludeInfo(fc *gast.FencedCodeBlock, source []byte) bool {
	if fc.Info == nil {
		return false
	}
	for _, f := range strings.Fields(string(fc.Info.Segment.Value(source))) {
		if strings.HasPrefix(f, includeAttr) {
			return true
		}
	}
	return false
}

// resolve reads the block's info string and fills ib from the file it
// names. The error says which include failed and why.
func (t *includeTransformer) resolve(ib *IncludeBlock, fc *gast.FencedCodeBlock, source []byte) error {
	fields := strings.Fields(string(fc.Info.Segment.Value(source)))
	ib.Lang = fields[0]
	var spec string
	var extra []string
	for _, f := range fields[1:] {
		if v, ok := strings.CutPrefix(f, includeAttr); ok && spec == "" {
			spec = v
		} else {
			extra = append(extra, f)
		}
	}
	ib.Path, ib.Selector, _ = strings.Cut(spec, "#")
	fail := func(msg string) error { return errors.New("include " + spec + ": " + msg) }
	switch {
	case strings.HasPrefix(ib.Lang, includeAttr):
		return errors.New("include: the info string starts with the language (\"go include=PATH\"), not with include=")
	case len(extra) > 0:
		return fail("unexpected " + strconv.Quote(strings.Join(extra, " ")) + " in the info string (want \"" + ib.Lang + " include=PATH[#SYMBOL]\")")
	case ib.Path == "":
		return fail("missing the file's path")
	case !filepath.IsLocal(filepath.FromSlash(ib.Path)):
		return fail("the path must be relative to the source root and stay inside it")
	case !blank(fc, source):
		return fail("the block must be empty: its text comes from the file")
	}

	read := t.read
	if t.readFile != nil {
		read = t.readFile
	}
	src, err := read(ib.Path)
	if err != nil {
		return fail(err.Error())
	}
	sel := ib.Selector
	var code []byte
	switch {
	case sel == "":
		code, ib.First, ib.Last = src, 1, countLines(src)
		if ib.Last == 0 {
			return fail("the file is empty")
		}
	case isLineRange(sel):
		first, last, err := parseLineRange(sel)
		if err != nil {
			return fail(err.Error())
		}
		if n := countLines(src); last > n {
			return fail("the file has " + strconv.Itoa(n) + " lines")
		}
		code, ib.First, ib.Last = lineSpan(src, first, last), first, last
	case strings.HasSuffix(ib.Path, ".go"):
		d, err := findDeclaration(ib.Path, src, sel)
		if err != nil {
			return fail(err.Error())
		}
		code, ib.First, ib.Last = d.text, d.first, d.last
	default:
		return fail("a declaration can be picked only from a .go file; use #L10-L40 for lines")
	}
	if len(code) == 0 || code[len(code)-1] != '\n' {
		code = append(code[:len(code):len(code)], '\n')
	}
	ib.Code = code
	return nil
}

// read returns the file at path (slash-separated, local) under the root. It
// goes through os.Root, so that no symbolic link leads outside the root
// either.
func (t *includeTransformer) read(path string) ([]byte, error) {
	root := t.root
	if root == "" {
		root = "."
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, errors.New("source root: " + err.Error())
	}
	defer r.Close()
	src, err := r.ReadFile(filepath.FromSlash(path))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			abs, aerr := filepath.Abs(root)
			if aerr != nil {
				abs = root
			}
			return nil, errors.New("no such file in " + abs)
		}
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, err
	}
	return src, nil
}

// blank reports whether the fenced block has nothing but blank lines.
func blank(fc *gast.FencedCodeBlock, source []byte) bool {
	lines := fc.Lines()
	for i := 0; i < lines.Len(); i++ {
		if seg := lines.At(i); len(bytes.TrimSpace(seg.Value(source))) > 0 {
			return false
		}
	}
	return true
}

// isLineRange reports whether sel is meant as lines: "L" and a digit.
func isLineRange(sel string) bool {
	return len(sel) >= 2 && sel[0] == 'L' && '0' <= sel[1] && sel[1] <= '9'
}

// parseLineRange reads "L10-L40" or "L10".
func parseLineRange(sel string) (first, last int, err error) {
	bad := errors.New("bad line range " + strconv.Quote(sel) + " (want L10-L40, or L10 for one line)")
	a, b, isRange := strings.Cut(sel, "-")
	num := func(s string) (int, bool) {
		s, ok := strings.CutPrefix(s, "L")
		n, err := strconv.Atoi(s)
		return n, ok && err == nil && n >= 1 && s[0] != '+'
	}
	first, ok := num(a)
	if !ok {
		return 0, 0, bad
	}
	last = first
	if isRange {
		if last, ok = num(b); !ok {
			return 0, 0, bad
		}
	}
	if last < first {
		return 0, 0, errors.New("line range " + strconv.Quote(sel) + " ends before it starts")
	}
	return first, last, nil
}

// countLines counts src's lines, a last line without a newline included.
func countLines(src []byte) int {
	n := bytes.Count(src, []byte("\n"))
	if len(src) > 0 && src[len(src)-1] != '\n' {
		n++
	}
	return n
}

// lineSpan returns lines first to last (1-based, within src) of src.
func lineSpan(src []byte, first, last int) []byte {
	start := 0
	for line := 1; line < first; line++ {
		start += bytes.IndexByte(src[start:], '\n') + 1
	}
	end := start
	for line := first; line <= last; line++ {
		i := bytes.IndexByte(src[end:], '\n')
		if i < 0 {
			return src[start:]
		}
		end += i + 1
	}
	return src[start:end]
}

// includeStyle and includeFormatter render included code exactly as the
// Highlighting extension renders a fenced block: chroma, with class names.
var (
	includeStyle     = styles.Get(LightStyle)
	includeFormatter = chromahtml.New(chromahtml.WithClasses(true), chromahtml.WithPreWrapper(focusPre{}))
)

// IncludeHTMLRenderer renders IncludeBlocks: a caption with the file and
// lines, then the code, highlighted, in one figure.
type IncludeHTMLRenderer struct {
	// Link, if set, makes the caption a link to the included lines.
	Link func(path string, first, last int) string
}

// RegisterFuncs implements renderer.NodeRendererFuncRegisterer.
func (r *IncludeHTMLRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(KindIncludeBlock, r.renderInclude)
}

func (r *IncludeHTMLRenderer) renderInclude(w util.BufWriter, _ []byte, node gast.Node, entering bool) (gast.WalkStatus, error) {
	n := node.(*IncludeBlock)
	if !entering || n.Code == nil {
		return gast.WalkSkipChildren, nil
	}
	_, _ = w.WriteString("<figure class=\"include\">\n<figcaption>")
	file := "<code>" + html.EscapeString(n.Path) + "</code>"
	if r.Link != nil {
		if href := r.Link(n.Path, n.First, n.Last); href != "" {
			file = "<a href=\"" + html.EscapeString(href) + "\">" + file + "</a>"
		}
	}
	_, _ = w.WriteString(file)
	if n.First == n.Last {
		_, _ = w.WriteString(", line " + strconv.Itoa(n.First))
	} else {
		_, _ = w.WriteString(", lines " + strconv.Itoa(n.First) + "–" + strconv.Itoa(n.Last))
	}
	_, _ = w.WriteString("</figcaption>\n")
	if err := highlight(w, n.Lang, n.Code); err != nil {
		return gast.WalkStop, err
	}
	_, _ = w.WriteString("</figure>\n")
	return gast.WalkSkipChildren, nil
}

// highlight writes code as the Highlighting extension writes a fenced
// block of lang: highlighted when chroma knows lang, else escaped in
// <pre tabindex="0"><code class="language-LANG">.
func highlight(w util.BufWriter, lang string, code []byte) error {
	if l := lexers.Get(lang); l != nil {
		it, err := chroma.Coalesce(l).Tokenise(nil, string(code))
		if err == nil {
			return includeFormatter.Format(w, includeStyle, it)
		}
	}
	_, _ = w.WriteString("<pre tabindex=\"0\"><code class=\"language-" + html.EscapeString(lang) + "\">")
	_, _ = w.WriteString(html.EscapeString(string(code)))
	_, _ = w.WriteString("</code></pre>\n")
	return nil
}

// IncludeOption configures the include extension.
type IncludeOption func(*includes)

// IncludeRoot sets the folder include paths are relative to: the module
// root, for the site. The default is the working directory.
func IncludeRoot(root string) IncludeOption {
	return func(e *includes) { e.root = root }
}

// IncludeLink makes each caption a link, to link(path, first, last) (for
// example the file's lines in a repository browser); no link if it
// returns "".
func IncludeLink(link func(path string, first, last int) string) IncludeOption {
	return func(e *includes) { e.link = link }
}

// IncludeReader makes include blocks read their files with read, which
// is given the block's slash-separated path, in place of the source root:
// for a converter with no file system, such as the playground's in the
// browser, whose read says why it has none.
func IncludeReader(read func(path string) ([]byte, error)) IncludeOption {
	return func(e *includes) { e.read = read }
}

type includes struct {
	root string
	read func(path string) ([]byte, error)
	link func(path string, first, last int) string
}

// Includes is the include extension, with paths relative to the working
// directory.
var Includes = NewIncludes()

// NewIncludes returns the include extension.
func NewIncludes(opts ...IncludeOption) goldmark.Extender {
	e := &includes{}
	for _, opt := range opts {
		opt(e)
	}
	return e
}

// Extend implements goldmark.Extender.
func (e *includes) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(parser.WithASTTransformers(
		util.Prioritized(&includeTransformer{root: e.root, readFile: e.read}, 500),
	))
	m.Renderer().AddOptions(renderer.WithNodeRenderers(
		util.Prioritized(&IncludeHTMLRenderer{Link: e.link}, 500),
	))
}
