package main

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/retrylab/retrylab/engine/param"
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
		b.WriteString("\nTo copy, every parameter at its default:\n\n````markdown\n```widget " + name + "\n")
		for _, p := range schema {
			b.WriteString(strings.TrimRight(p.Name+": "+defaults.Text(p.Name), " ") + "\n")
		}
		b.WriteString("```\n````\n\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
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
