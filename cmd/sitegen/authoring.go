package main

import (
	"html"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/retrylab/retrylab/engine/param"
	"github.com/retrylab/retrylab/site/markdown"
	"github.com/retrylab/retrylab/site/widget"
)

// The authors' guide, /authoring/, is site/authoring.md followed by the
// widget reference, which widgetReference writes from the parameter
// declarations of every registered widget (widget.Declarations), so that
// it says what the build checks. `sitegen widgets` prints the same
// reference in a terminal.

// guideFile is the guide's text, relative to the module root.
const guideFile = "site/authoring.md"

// readGuide converts the authors' guide with conv. It links a widget to
// its chapter only when chapters (URL path -> title) has it, so that a
// widget whose chapter is still unwritten is listed without a dead link.
func readGuide(root string, conv converter, chapters map[string]string) (*article, error) {
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(guideFile)))
	if err != nil {
		return nil, err
	}
	var ref strings.Builder
	writeWidgetReference(&ref, chapters, nil)
	// The reference follows the guide's own text, so errors in that text
	// keep their lines.
	src = append(append(src, '\n'), ref.String()...)
	page, err := conv.Convert(guideFile, src)
	if page == nil {
		return nil, err
	}
	// With problems, the page holds only its links, for checking.
	return &article{Page: page, URL: "/" + authoringDir + "/", File: authoringDir + "/index.html",
		Minutes: readingMinutes(src)}, err
}

// writeWidgetReference writes, in markdown, every widget named in only
// (all of them when only is empty) with every parameter: its label, kind,
// default, bounds or allowed values and help, then a block to copy with
// every parameter at its default. A widget's chapter is linked by its
// title when chapters (URL path -> title) has it; with nil chapters, by
// its path.
func writeWidgetReference(w io.Writer, chapters map[string]string, only []string) error {
	decls := widget.Declarations()
	names := make([]string, 0, len(decls))
	for name := range decls {
		if len(only) == 0 || slices.Contains(only, name) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("## Every widget {#widgets}\n\n")
	b.WriteString("Generated from the parameters each widget declares (`engine/param`), which also check every widget block: what is listed here is what the build accepts. `go run ./cmd/sitegen widgets` prints the same in a terminal.\n\n")
	b.WriteString(widgetLinkSyntax)
	for _, name := range names {
		w, _ := widget.Lookup(name)
		b.WriteString("### " + name + ": " + w.Title + " {#widget-" + name + "}\n\n")
		b.WriteString(w.Summary)
		if title, ok := chapters[w.Chapter]; ok || (chapters == nil && w.Chapter != "") {
			if !ok {
				title = w.Chapter
			}
			b.WriteString(" Explained in [" + title + "](" + w.Chapter + ").")
		}
		b.WriteString("\n\n")
		schema := decls[name]
		defaults := schema.Defaults()
		for _, p := range schema {
			b.WriteString("- " + paramLine(p, defaults.Text(p.Name)) + "\n")
		}
		if parts := outputParts(w); len(parts) > 0 {
			b.WriteString("\nThe parts of its output, by the headings the reader sees: " + strings.Join(parts, ", ") + ".\n")
		}
		b.WriteString("\nTo copy, every parameter at its default, and a link that sets the widget from the prose:\n\n````markdown\n```widget " + name + "\n")
		for _, p := range schema {
			b.WriteString(strings.TrimRight(p.Name+": "+defaults.Text(p.Name), " ") + "\n")
		}
		b.WriteString("```\n\n" + exampleLink(w) + "\n````\n\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// widgetLinkSyntax is the reference's summary of widget links, which the
// guide's section #widget-links explains at length (site/markdown,
// widgetlink.go, is what checks them).
const widgetLinkSyntax = "A link in the prose sets a widget of its page: `[text](widget:NAME-N?param=value&param=value)`. " +
	"`NAME-N` is the Nth widget called NAME in the page, counted from 1 in the order the blocks come (`payment-1` is the first payment widget, whose id is `w-payment-1`). " +
	"Any parameter listed below for that widget can be set, with a value written as in its block (a list's items separated by commas, without spaces); " +
	"the parameters a link leaves out keep the values of the widget's block. " +
	"An unknown widget, parameter or value is an error at the link's line, and every widget must be set by at least one link in its page's prose. " +
	"Name a control by its label (in italics below) and a part of the output by its heading.\n\n"

// exampleLink is a widget link that sets w, the first widget of its name
// in a page, to a value other than its default: the first parameter, in
// the order of its controls, for which such a value runs. It is "" for a
// widget that no single changed value runs.
func exampleLink(w *widget.Widget) string {
	defaults := w.Schema.Defaults()
	// The controls a reader sees first, then those under "More parameters".
	params := slices.Concat(
		slices.DeleteFunc(slices.Clone(w.Schema), func(p widget.Param) bool { return p.More }),
		slices.DeleteFunc(slices.Clone(w.Schema), func(p widget.Param) bool { return !p.More }))
	for _, p := range params {
		var candidates []string
		switch p.Kind {
		case param.Bool, param.Enum:
			candidates = p.Allowed
			if p.Kind == param.Bool {
				candidates = []string{"on", "off"}
			}
		case param.Int, param.Float:
			candidates = []string{param.Number(p.Min), param.Number(p.Max)}
		}
		for _, c := range candidates {
			if c == defaults.Text(p.Name) {
				continue
			}
			v, err := defaults.With(p.Name, c)
			if err != nil {
				continue
			}
			if _, err := w.Run(v); err != nil {
				continue
			}
			return "[Set *" + p.Label + "* to " + p.Word(c) + "](" + markdown.WidgetLinkScheme + w.Name + "-1?" + p.Name + "=" + c + ") and watch what changes."
		}
	}
	return ""
}

var (
	outputRe = regexp.MustCompile(`(?s)data-region="output">(.*)<details class="w-embed"`)
	headRe   = regexp.MustCompile(`<h3[^>]*>(.+?)</h3>|<svg[^>]* role="img"[^>]*><title>([^<]+)</title>`)
	tagsRe   = regexp.MustCompile(`<[^>]*>`)
)

// outputParts names the parts of w's output, drawn at its defaults, as
// the reader sees them: the heading of each panel, written in bold, and
// the title of each chart, in italics ("the chart *Goodput ...*").
func outputParts(w *widget.Widget) []string {
	var h widget.HTML
	if err := widget.Render(&h, w, w.Schema.Defaults(), widget.Place{ID: widget.IDPrefix + w.Name + "-1"}); err != nil {
		return nil
	}
	m := outputRe.FindStringSubmatch(h.String())
	if m == nil {
		return nil
	}
	var parts []string
	for _, hm := range headRe.FindAllStringSubmatch(m[1], -1) {
		if hm[1] != "" {
			parts = append(parts, "**"+html.UnescapeString(tagsRe.ReplaceAllString(hm[1], ""))+"**")
		} else {
			parts = append(parts, "the chart *"+html.UnescapeString(hm[2])+"*")
		}
	}
	return parts
}

// paramLine is one parameter of the reference, with def, its default
// written as a widget block would: "`keys`, *Idempotency keys*: one of
// off, per-intent, per-attempt; default `off`. Off: no key; ..."
func paramLine(p param.Param, def string) string {
	shown := "`" + def + "`"
	if def == "" {
		shown = "none (an empty list)"
	}
	var kind string
	switch p.Kind {
	case param.Bool, param.Enum:
		kind = "one of " + p.Bounds()
	case param.Int:
		kind = "a whole number, " + p.Bounds()
	case param.Float:
		kind = "a number, " + p.Bounds()
		if p.Step > 0 {
			kind += ", in steps of " + param.Number(p.Step)
		}
	case param.EnumList:
		kind = p.Bounds()
		if p.Pad != "" {
			kind += "; every item after the last is `" + p.Pad + "`"
		}
		if p.CountFrom != "" {
			kind += "; the controls offer as many as `" + p.CountFrom + "`"
		}
	default:
		kind = p.Kind.String()
	}
	help := strings.TrimSpace(p.Help)
	if help != "" {
		help = strings.ToUpper(help[:1]) + help[1:]
		if !strings.HasSuffix(help, ".") {
			help += "."
		}
	}
	line := "`" + p.Name + "`, *" + p.Label + "*: " + kind + "; default " + shown + ". " + help
	if p.More {
		line += " Under \"More parameters\"."
	}
	return line
}
