package widget

import (
	"sort"
	"strings"

	"github.com/retrylab/retrylab/internal/suggest"
)

// Widget is one simulator of the handbook.
type Widget struct {
	Name    string // the name in a widget block, data-widget and /embed/NAME/
	Title   string // shown above the widget
	Summary string // one sentence: what the reader can try
	// Chapter is the path of the article that explains the widget
	// ("/double-charge/"); an embed page's credit links there.
	Chapter string
	Schema  Schema
	// Run calls the engine with checked values. The error is for values the
	// schema accepts but the model does not (say, a combination); it is
	// shown to the reader.
	Run func(Values) (Run, error)
}

// Run is one run of a widget's model, ready to draw.
type Run interface {
	// Steps is how many trace steps a reader can replay; 0 for a widget
	// that only shows its end state.
	Steps() int
	// Output writes the widget's output region as it stands after step
	// events (0 to Steps(); Steps() is the end state). The region holds
	// exactly one element with class "w-outcome" carrying the headline
	// figures as data-* attributes.
	Output(h *HTML, step int)
}

// all is the registry: the widget of each model (engine/models) that has
// one, which the file of its view adds from an init function (register).
// Every init function has run before any other code reads it; afterwards
// it is only read.
var all []*Widget

// register adds w to the registry. Two widgets of one name are a mistake
// that any test of the package finds at start-up.
func register(w *Widget) {
	if _, dup := Lookup(w.Name); dup {
		panic("widget: two widgets called " + quote(w.Name))
	}
	all = append(all, w)
}

// Lookup returns the widget called name.
func Lookup(name string) (*Widget, bool) {
	for _, w := range all {
		if w.Name == name {
			return w, true
		}
	}
	return nil, false
}

// Names lists the registered widgets' names, sorted.
func Names() []string {
	names := make([]string, len(all))
	for i, w := range all {
		names[i] = w.Name
	}
	// Not sort.Strings: its pdqsort of strings would be linked into the
	// page's module beside the stable sort engine/ijson links already.
	sort.Stable(sort.StringSlice(names))
	return names
}

// All returns the registered widgets in name order.
func All() []*Widget {
	out := append([]*Widget(nil), all...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// UnknownError is a widget name the registry does not have.
type UnknownError struct{ Name string }

func (e *UnknownError) Error() string {
	return "widget " + quote(e.Name) + ": unknown widget (" + suggest.DidYouMean(e.Name, Names()) + "known: " + strings.Join(Names(), ", ") + ")"
}

// Find is Lookup with an error that lists the known widgets.
func Find(name string) (*Widget, error) {
	if w, ok := Lookup(name); ok {
		return w, nil
	}
	return nil, &UnknownError{Name: name}
}

// Declarations returns every widget's declared parameters by widget name,
// for the authors' reference: the same declarations (engine/param) that
// check a widget block, draw the controls and make the CLI's flags.
func Declarations() map[string]Schema {
	out := make(map[string]Schema, len(all))
	for _, w := range all {
		out[w.Name] = w.Schema
	}
	return out
}
