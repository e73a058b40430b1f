package main

import (
	"bytes"
	"context"
	"html"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/site/markdown"
	"github.com/retrylab/retrylab/site/widget"
)

var tagRe = regexp.MustCompile(`<[^>]*>`)

// textOf is the text of an HTML fragment: tags dropped, entities decoded.
func textOf(fragment string) string { return html.UnescapeString(tagRe.ReplaceAllString(fragment, "")) }

// The authors' guide lists every registered widget and, under it, every
// parameter with its label, default, bounds or allowed values and help,
// then a block to copy with every parameter at its default; the footer of
// every page links to it.
func TestAuthoringPageListsEveryWidget(t *testing.T) {
	dir := builtSite(t)
	page := readFile(t, filepath.Join(dir, "authoring", "index.html"))
	for _, w := range widget.All() {
		start := strings.Index(page, `id="widget-`+w.Name+`"`)
		if start < 0 {
			t.Errorf("/authoring/ has no section for widget %s", w.Name)
			continue
		}
		section := page[start:]
		if end := strings.Index(section[1:], "<h3 "); end >= 0 {
			section = section[:end+1]
		}
		items := regexp.MustCompile(`(?s)<li>(.*?)</li>`).FindAllStringSubmatch(section, -1)
		defaults := w.Schema.Defaults()
		for _, p := range w.Schema {
			var item string
			for _, it := range items {
				if strings.HasPrefix(it[1], "<code>"+p.Name+"</code>") {
					item = textOf(it[1])
				}
			}
			if item == "" {
				t.Errorf("widget %s: /authoring/ does not list parameter %s", w.Name, p.Name)
				continue
			}
			def := defaults.Text(p.Name)
			kind := map[widget.Kind]string{widget.Bool: "one of", widget.Enum: "one of", widget.Int: "a whole number",
				widget.Float: "a number", widget.EnumList: "a list of"}[p.Kind]
			for what, want := range map[string]string{"label": p.Label, "kind": kind, "bounds": p.Bounds(), "help": p.Help[1:]} {
				if !strings.Contains(item, want) {
					t.Errorf("widget %s, parameter %s: the guide's line %q lacks its %s %q", w.Name, p.Name, item, what, want)
				}
			}
			if def != "" && !strings.Contains(item, "default "+def+".") {
				t.Errorf("widget %s, parameter %s: the guide's line %q lacks its default %q", w.Name, p.Name, item, def)
			}
		}
		block := textOf(section[strings.Index(section, "<pre"):])
		want := "```widget " + w.Name + "\n"
		for _, p := range w.Schema {
			want += strings.TrimRight(p.Name+": "+defaults.Text(p.Name), " ") + "\n"
		}
		if !strings.Contains(block, want+"```") {
			t.Errorf("widget %s: no block to copy with the defaults:\n%s\nin\n%s", w.Name, want, block)
		}
	}
	index := readFile(t, filepath.Join(dir, "index.html"))
	if !strings.Contains(index, `<a href="/authoring/">`) {
		t.Error("the footer does not link to /authoring/")
	}
}

// Each block to copy is a widget block that the build accepts as it is,
// and `sitegen widgets` prints the reference of the guide.
func TestWidgetReference(t *testing.T) {
	var ref bytes.Buffer
	if err := writeWidgetReference(&ref, nil, nil); err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)````markdown\n(.*?)````\n").FindAllStringSubmatch(ref.String(), -1)
	if len(blocks) != len(widget.All()) {
		t.Fatalf("%d blocks to copy for %d widgets", len(blocks), len(widget.All()))
	}
	conv := markdown.New()
	for i, w := range widget.All() {
		p, err := conv.Convert("reference", []byte("---\ntitle: T\n---\n"+blocks[i][1]))
		if err != nil {
			t.Errorf("widget %s: the block to copy fails: %v\n%s", w.Name, err, blocks[i][1])
			continue
		}
		if len(p.Widgets) != 1 || p.Widgets[0] != w.Name {
			t.Errorf("widget %s: the block to copy makes widgets %v", w.Name, p.Widgets)
		}
	}

	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"widgets"}, &stdout, &stderr); code != 0 {
		t.Fatalf("sitegen widgets: exit %d, %s", code, stderr.String())
	}
	if stdout.String() != ref.String() {
		t.Error("sitegen widgets does not print the guide's reference")
	}
	stdout.Reset()
	if code := run(context.Background(), []string{"widgets", "paymnt"}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), `widget "paymnt": unknown widget (did you mean payment? known: `) {
		t.Errorf("sitegen widgets paymnt: exit %d, %q; want 2 and the known widgets", code, stderr.String())
	}
}
