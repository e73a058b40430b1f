package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/engine/figures"
	"github.com/retrylab/retrylab/engine/param"
	"github.com/retrylab/retrylab/site/widget"
)

// What a stylesheet or a script names, classes and data attributes, is
// drawn by something: the built pages, a widget's output in one of the
// states the sweep below runs it in (every enum value of every
// parameter, every step), site/widget/names.go's declarations, which the
// module and the loader set, or a script that draws it itself. A class
// made from a Go name ("k-"+Kind.String(), "p-"+policy, "s"+status) is
// caught here when the name changes and the stylesheet does not.
func TestStylesAndScriptsNameWhatIsDrawn(t *testing.T) {
	root := repoRoot(t)
	drawn := newDrawn()
	err := filepath.WalkDir(builtSite(t), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		b, err := os.ReadFile(p)
		drawn.markup(string(b))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range widget.All() {
		for _, v := range sweep(t, w) {
			run, err := w.Run(v)
			if err != nil {
				continue // a combination the model refuses, with a message
			}
			var h widget.HTML
			if err := widget.Render(&h, w, v, widget.Place{ID: widget.ID(w.Name, 1)}); err != nil {
				t.Fatal(err)
			}
			steps := run.Steps()
			for step := 0; step <= steps; step += max(1, steps/200) {
				run.Output(&h, step)
			}
			drawn.markup(h.String())
		}
	}
	// What the module and the loader set.
	for _, group := range widget.ScriptNames() {
		for _, v := range group {
			drawn.classes[v] = true
			drawn.attrs[v] = true
		}
	}
	for attr, values := range map[widget.Attr][]string{
		widget.AttrBusy:    {widget.BusyLoading, widget.BusyRunning},
		widget.AttrPending: {widget.PendingReplay},
	} {
		for _, v := range values {
			drawn.attrs[string(attr)+"="+v] = true
		}
	}
	drawn.attrs[string(widget.AttrHydratedAt)] = true
	drawn.attrs[string(widget.AttrPlaying)] = true
	drawn.attrs[string(widget.AttrMS)] = true
	for _, v := range []string{widget.ClassChanged, widget.ClassFieldError} {
		drawn.classes[v] = true
	}

	scripts, _ := filepath.Glob(filepath.Join(root, "site", "static", "*.js"))
	scripts = append(scripts, filepath.Join(root, "site", "root", "embed.js"))
	srcs := map[string]string{}
	for _, f := range scripts {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs[f] = string(b)
		drawn.script(string(b))
	}

	sheets, _ := filepath.Glob(filepath.Join(root, "site", "static", "*.css"))
	for _, f := range sheets {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range cssSelectors(string(b)) {
			drawn.check(t, filepath.Base(f), s.line, s.text)
		}
	}
	for f, src := range srcs {
		for _, s := range jsSelectors(src) {
			drawn.check(t, filepath.Base(f), s.line, s.text)
		}
	}
}

// sweep is the values a widget is drawn with: its defaults, each value of
// each enum parameter and the largest of each whole number, one at a time,
// and the published cases
// (engine/figures).
func sweep(t *testing.T, w *widget.Widget) []widget.Values {
	vs := []widget.Values{w.Schema.Defaults()}
	for _, r := range figures.Of(w.Name) {
		// Budget's rows are its engine's, in parameters its widget,
		// which runs both cases at once, does not take.
		if v, err := w.Schema.Parse(r.Params); err == nil {
			vs = append(vs, v)
		}
	}
	for _, p := range w.Schema {
		var values []string
		switch p.Kind {
		case param.Enum:
			values = p.Allowed
		case param.Bool:
			values = []string{"on", "off"}
		case param.Int:
			values = []string{strconv.Itoa(int(p.Max))} // the longest run, whose story is shown a window at a time
		}
		for _, a := range values {
			v, err := w.Schema.Defaults().With(p.Name, a)
			if err != nil && p.Kind == param.Int {
				continue // past what another parameter allows (storm's slow-from and seconds)
			}
			if err != nil {
				t.Fatalf("%s: %s=%s: %v", w.Name, p.Name, a, err)
			}
			vs = append(vs, v)
		}
	}
	return vs
}

type drawnNames struct {
	classes map[string]bool
	attrs   map[string]bool // "data-x", and "data-x=v" for each value seen
}

func newDrawn() *drawnNames {
	return &drawnNames{classes: map[string]bool{}, attrs: map[string]bool{}}
}

var (
	classAttr = regexp.MustCompile(`\bclass="([^"]*)"`)
	dataAttr  = regexp.MustCompile(`\s(data-[a-z0-9-]+)(?:="([^"]*)")?`)
)

func (d *drawnNames) markup(html string) {
	for _, m := range classAttr.FindAllStringSubmatch(html, -1) {
		for _, c := range strings.Fields(m[1]) {
			d.classes[c] = true
		}
	}
	for _, m := range dataAttr.FindAllStringSubmatch(html, -1) {
		d.attrs[m[1]] = true
		d.attrs[m[1]+"="+m[2]] = true
	}
}

// What a script draws itself: the classes it gives the elements it makes
// (className = "a b", el("li", "a"), classList.add("a")), and the data
// attributes it sets.
var (
	scriptClass = regexp.MustCompile(`(?:className = |el\("[a-z0-9]+", |classList\.(?:add|toggle)\()"([^"]*)"|class=\\?"([^"\\]*)\\?"`)
	scriptAttr  = regexp.MustCompile(`setAttribute\("(data-[a-z0-9-]+)"(?:, ([^;\n]*)\))?`)
	jsLiteral   = regexp.MustCompile(`"([^"]*)"`)
)

func (d *drawnNames) script(src string) {
	for _, m := range scriptClass.FindAllStringSubmatch(src, -1) {
		for _, c := range strings.Fields(m[1] + " " + m[2]) {
			d.classes[c] = true
		}
	}
	for _, m := range scriptAttr.FindAllStringSubmatch(src, -1) {
		d.attrs[m[1]] = true
		for _, v := range jsLiteral.FindAllStringSubmatch(m[2], -1) {
			d.attrs[m[1]+"="+v[1]] = true
		}
	}
}

type selector struct {
	line int
	text string
}

var (
	cssComment = regexp.MustCompile(`(?s)/\*.*?\*/`)
	cssBlock   = regexp.MustCompile(`[^{};]*\{`)
	selClass   = regexp.MustCompile(`\.(-?[_a-zA-Z][\w-]*)`)
	selAttr    = regexp.MustCompile(`\[(data-[a-z0-9-]+)(?:[~|^$*]?=["']?([^"'\]]*)["']?)?\]`)
)

// cssSelectors are the selectors of a stylesheet's rules, each with its line.
func cssSelectors(css string) []selector {
	css = cssComment.ReplaceAllStringFunc(css, func(c string) string { return strings.Repeat("\n", strings.Count(c, "\n")) })
	var out []selector
	for _, loc := range cssBlock.FindAllStringIndex(css, -1) {
		text := css[loc[0] : loc[1]-1]
		trimmed := strings.TrimSpace(text)
		if trimmed == "" || strings.HasPrefix(trimmed, "@") {
			continue // an at-rule's condition names no class
		}
		start := loc[0] + strings.Index(text, trimmed)
		out = append(out, selector{1 + strings.Count(css[:start], "\n"), trimmed})
	}
	return out
}

var jsLookup = regexp.MustCompile(`(?:querySelector|querySelectorAll|closest|matches)\(("[^"]*"|'[^']*')`)

// jsSelectors are the selectors a script looks elements up by.
func jsSelectors(src string) []selector {
	var out []selector
	for _, loc := range jsLookup.FindAllStringSubmatchIndex(src, -1) {
		out = append(out, selector{1 + strings.Count(src[:loc[0]], "\n"), src[loc[2]+1 : loc[3]-1]})
	}
	return out
}

func (d *drawnNames) check(t *testing.T, file string, line int, sel string) {
	t.Helper()
	for _, m := range selClass.FindAllStringSubmatch(sel, -1) {
		if !d.classes[m[1]] {
			t.Errorf("%s:%d: %s: nothing draws the class %q", file, line, sel, m[1])
		}
	}
	for _, m := range selAttr.FindAllStringSubmatch(sel, -1) {
		name := m[1]
		if !d.attrs[name] {
			t.Errorf("%s:%d: %s: nothing draws the attribute %s", file, line, sel, name)
			continue
		}
		if strings.Contains(m[0], "=") && !d.attrs[name+"="+m[2]] {
			t.Errorf("%s:%d: %s: nothing draws %s=%q", file, line, sel, name, m[2])
		}
	}
}
