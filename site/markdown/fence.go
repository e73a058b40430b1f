package markdown

import (
	"errors"
	"strconv"
	"strings"

	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// A code fence that is never closed runs, by CommonMark's rules, to the
// end of its container: usually the rest of the article, which then shows
// as code (or, in a widget block, as parameters that are not "key: value"
// lines). Fences checks every fence and reports one that no closing fence
// ends at the line where it opens:
//
//	content/retries.md:12: the code fence opened here ("```go") is never closed: end the block with a line of ```

// fenceTracker wraps goldmark's fenced code block parser to see which
// blocks end on a closing fence.
type fenceTracker struct {
	parser.BlockParser
}

// fenceState is what fenceTracker keeps about one document: the blocks
// opened, with their opening lines, and those a closing fence ended.
type fenceState struct {
	opened []openFence
	closed map[gast.Node]bool
}

type openFence struct {
	node gast.Node
	line int    // the opening line's start offset
	text string // the opening line, trimmed: "```go"
	mark string // its fence: "```" or "~~~~"
}

var fenceKey = parser.NewContextKey()

func fencesOf(pc parser.Context) *fenceState {
	return pc.ComputeIfAbsent(fenceKey, func() any {
		return &fenceState{closed: map[gast.Node]bool{}}
	}).(*fenceState)
}

// Open implements parser.BlockParser.
func (f fenceTracker) Open(parent gast.Node, reader text.Reader, pc parser.Context) (gast.Node, parser.State) {
	line, seg := reader.PeekLine()
	node, state := f.BlockParser.Open(parent, reader, pc)
	if node != nil {
		open := strings.TrimSpace(string(line))
		mark := open
		if i := strings.IndexFunc(open, func(r rune) bool { return r != rune(open[0]) }); i >= 0 {
			mark = open[:i]
		}
		fs := fencesOf(pc)
		fs.opened = append(fs.opened, openFence{node: node, line: seg.Start, text: open, mark: mark})
	}
	return node, state
}

// Continue implements parser.BlockParser.
func (f fenceTracker) Continue(node gast.Node, reader text.Reader, pc parser.Context) parser.State {
	state := f.BlockParser.Continue(node, reader, pc)
	if state&parser.Close != 0 {
		fencesOf(pc).closed[node] = true
	}
	return state
}

// fenceChecker reports the fences never closed, and takes their blocks out
// of the document: what they swallowed would only add errors of its own.
type fenceChecker struct{}

// Transform implements parser.ASTTransformer.
func (fenceChecker) Transform(_ *gast.Document, reader text.Reader, pc parser.Context) {
	fs := fencesOf(pc)
	st := stateOf(pc)
	for _, o := range fs.opened {
		if fs.closed[o.node] {
			continue
		}
		st.add(reader.Source(), o.line, errors.New("the code fence opened here ("+strconv.Quote(o.text)+") is never closed: end the block with a line of "+o.mark))
		if p := o.node.Parent(); p != nil {
			p.RemoveChild(p, o.node)
		}
	}
}

type fences struct{}

// Fences is the extension that refuses code fences never closed.
var Fences goldmark.Extender = fences{}

// Extend implements goldmark.Extender.
func (fences) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(
		// Before goldmark's own (700), which is then never asked.
		parser.WithBlockParsers(util.Prioritized(fenceTracker{parser.NewFencedCodeBlockParser()}, 699)),
		// Before the widget, include and live blocks read the fences.
		parser.WithASTTransformers(util.Prioritized(fenceChecker{}, 1)),
	)
}
