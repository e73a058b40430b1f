package handbook

import (
	"bytes"
	"regexp"
	"strings"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// A Sentence is one sentence of a chapter's prose.
type Sentence struct {
	Line  int    // the line of the markdown its paragraph or list item starts on
	Text  string // its words as the reader sees them: no markup, one space between words
	Words int
}

// Sentences returns the sentences of a chapter's prose, in order. Prose
// is the text of its paragraphs and list items, with their inline code
// and link texts; left out are the front matter, code blocks (widget
// blocks among them), tables, headings, raw HTML and list markers.
//
// A paragraph or list item ends a sentence, and so does a '.', '!' or
// '?' followed by white space and a capital letter; a closing quote or
// bracket may come between the mark and the space, an opening one
// between the space and the capital. So "e.g. the" goes on and "a 409.
// Then" ends. A word is a run of characters between white space with at
// least one letter or digit in it: "—" alone is not one.
func Sentences(src []byte) []Sentence {
	body, skipped := stripFrontMatter(src)
	md := goldmark.New(goldmark.WithExtensions(extension.Table))
	doc := md.Parser().Parse(text.NewReader(body))
	var out []Sentence
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.Kind() {
		case ast.KindHeading, ast.KindFencedCodeBlock, ast.KindCodeBlock, ast.KindHTMLBlock, extast.KindTable:
			return ast.WalkSkipChildren, nil
		case ast.KindParagraph, ast.KindTextBlock:
			line := skipped + 1
			if lines := n.Lines(); lines.Len() > 0 {
				line += bytes.Count(body[:lines.At(0).Start], []byte("\n"))
			}
			var b strings.Builder
			inlineText(&b, n, body)
			for _, s := range splitSentences(b.String()) {
				out = append(out, Sentence{Line: line, Text: s, Words: countWords(s)})
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return out
}

// stripFrontMatter returns src without its front matter (a first line
// "---" up to the next such line), and how many lines it took.
func stripFrontMatter(src []byte) ([]byte, int) {
	if !bytes.HasPrefix(src, []byte("---\n")) {
		return src, 0
	}
	end := bytes.Index(src[4:], []byte("\n---\n"))
	if end < 0 {
		return src, 0
	}
	cut := 4 + end + len("\n---\n")
	return src[cut:], bytes.Count(src[:cut], []byte("\n"))
}

// inlineText writes the text of n's inline children: the words of text,
// code spans, emphasis and links; a line break is a space; raw HTML is
// left out.
func inlineText(b *strings.Builder, n ast.Node, src []byte) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		case *ast.AutoLink:
			b.Write(c.URL(src))
		case *ast.RawHTML:
		default:
			inlineText(b, c, src)
		}
	}
}

// sentenceEnd is where a sentence ends within a block: the mark and any
// closing quotes or brackets (group 1), the white space, and then a
// capital, perhaps after opening ones.
var sentenceEnd = regexp.MustCompile(`([.!?]["'’”)\]]*)\s+["'‘“(\[]*\p{Lu}`)

// splitSentences splits one block's text into sentences.
func splitSentences(s string) []string {
	s = strings.Join(strings.Fields(s), " ")
	var out []string
	for s != "" {
		m := sentenceEnd.FindStringSubmatchIndex(s)
		if m == nil {
			out = append(out, s)
			break
		}
		out = append(out, s[:m[3]])
		s = strings.TrimLeft(s[m[3]:], " ")
	}
	return out
}

// countWords counts the words of s: runs between spaces with a letter or
// a digit in them.
func countWords(s string) int {
	n := 0
	for _, f := range strings.Fields(s) {
		if strings.IndexFunc(f, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			n++
		}
	}
	return n
}

// Figures sum up how a chapter reads.
type Figures struct {
	Sentences int
	Words     int
	Long      int // sentences of more than LongSentence words
}

// LongSentence is the most words a sentence has before it counts as long.
const LongSentence = 35

// Measure sums up sentences.
func Measure(sentences []Sentence) Figures {
	f := Figures{Sentences: len(sentences)}
	for _, s := range sentences {
		f.Words += s.Words
		if s.Words > LongSentence {
			f.Long++
		}
	}
	return f
}

// Average is the words per sentence, 0 for no sentences.
func (f Figures) Average() float64 {
	if f.Sentences == 0 {
		return 0
	}
	return float64(f.Words) / float64(f.Sentences)
}
