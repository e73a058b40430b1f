package markdown

import (
	"errors"
	"sort"
	"strconv"

	"github.com/yuin/goldmark/parser"
)

// SourceError is a problem at one line of a source file. Its message reads
// "path:line: what", the form editors and terminals turn into a link. It
// unwraps to the underlying error (a *widget.Error, a *widget.UnknownError,
// ...), so callers can inspect it with errors.As.
type SourceError struct {
	Path string // the source path as given to Convert or SetPath
	Line int    // 1-based, counted in the whole file, front matter included
	Err  error
}

func (e *SourceError) Error() string {
	path := e.Path
	if path == "" {
		path = "<input>"
	}
	return path + ":" + strconv.Itoa(e.Line) + ": " + e.Err.Error()
}

func (e *SourceError) Unwrap() error { return e.Err }

// state is what the extensions of this package keep about the document
// being converted. It lives in the parser.Context, so a parser shared by
// many conversions keeps nothing between them.
type state struct {
	path  string
	lines []int // offsets at which each line of the source starts
	errs  []*SourceError
	meta  *Meta

	// The widget blocks with errors, which links to them must not be
	// reported for: the ids they hold in the numbering of the widget
	// they mean ("payment-1"), and whether one names no widget at all.
	brokenWidgets []string
	unnamedWidget bool
}

var stateKey = parser.NewContextKey()

func stateOf(pc parser.Context) *state {
	return pc.ComputeIfAbsent(stateKey, func() any { return &state{} }).(*state)
}

// SetPath sets the source path that errors found while parsing with pc
// name. Convert does this; call it when using the extensions directly.
func SetPath(pc parser.Context, path string) {
	stateOf(pc).path = path
}

// Errors returns every problem the extensions of this package found in the
// document parsed (and, for widgets, rendered) with pc: one *SourceError per
// problem, in line order, joined with errors.Join so that each is on its own
// line. It returns nil if there were none.
func Errors(pc parser.Context) error {
	st := stateOf(pc)
	if len(st.errs) == 0 {
		return nil
	}
	list := append([]*SourceError(nil), st.errs...)
	sort.SliceStable(list, func(i, j int) bool { return list[i].Line < list[j].Line })
	errs := make([]error, len(list))
	for i, e := range list {
		errs[i] = e
	}
	return errors.Join(errs...)
}

// add records a problem at a byte offset of the source.
func (st *state) add(source []byte, offset int, err error) {
	st.addLine(st.line(source, offset), err)
}

// addLine records a problem at a line.
func (st *state) addLine(line int, err error) {
	st.errs = append(st.errs, &SourceError{Path: st.path, Line: line, Err: err})
}

// line returns the 1-based line of a byte offset of source.
func (st *state) line(source []byte, offset int) int {
	if st.lines == nil {
		st.lines = []int{0}
		for i, c := range source {
			if c == '\n' {
				st.lines = append(st.lines, i+1)
			}
		}
	}
	// The number of line starts at or before offset is the line number.
	return sort.Search(len(st.lines), func(i int) bool { return st.lines[i] > offset })
}
