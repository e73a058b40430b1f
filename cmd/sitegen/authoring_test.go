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
		// Its link sets the widget to a state other than its block's.
		links := widgetLinksIn(t, "widget "+w.Name, blocks[i][1])
		if len(links) != 1 || links[0][0] != w.Name+"-1" || links[0][1] == "" {
			t.Errorf("widget %s: the block to copy has links %v, want one that sets %s-1", w.Name, links, w.Name)
		}
	}
	for _, want := range []string{"`[text](widget:NAME-N?param=value&param=value)`", "`NAME-N` is the Nth widget called NAME",
		"The parts of its output, by the headings the reader sees: **Server's ledger**, **Client's receipt**."} {
		if !strings.Contains(ref.String(), want) {
			t.Errorf("the reference does not say %q", want)
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

// widgetLinksIn converts md, a page's body, and returns the widget links
// it renders, each as the widget it names and the query of its
// permalink without the widget's own parameter; it fails the test when
// the build refuses md or when a "widget:" link is not rendered as one.
func widgetLinksIn(t *testing.T, what, md string) [][2]string {
	t.Helper()
	p, err := markdown.New().Convert(what, []byte("---\ntitle: T\n---\n\n"+md))
	if err != nil {
		t.Errorf("%s: the build refuses it: %v\n%s", what, err, md)
		return nil
	}
	var out [][2]string
	for _, m := range widgetLinkRE.FindAllStringSubmatch(p.Body, -1) {
		id, query := widget.SplitPermalink(strings.SplitN(html.UnescapeString(m[2]), "#", 2)[0])
		if id != widget.IDPrefix+m[1] {
			t.Errorf("%s: the link to %s is a permalink to %q", what, m[1], id)
		}
		out = append(out, [2]string{m[1], query})
	}
	if want := strings.Count(md, "]("+markdown.WidgetLinkScheme); len(out) != want {
		t.Errorf("%s: %d widget links rendered of the %d written:\n%s", what, len(out), want, p.Body)
	}
	return out
}

// The authors' guide explains widget links where authors look, with an
// example that the build takes as it stands: a widget block and links
// that set it, by its name and number in the page.
func TestAuthoringGuideShowsWidgetLinks(t *testing.T) {
	root := repoRoot(t)
	guide, err := readGuide(root, markdown.New(markdown.WithSourceRoot(root)), nil)
	if err != nil {
		t.Fatal(err)
	}
	start := strings.Index(guide.Body, `id="widget-links"`)
	if start < 0 {
		t.Fatal("the guide has no section #widget-links")
	}
	section := textOf(guide.Body[start:strings.Index(guide.Body, `id="widgets"`)])
	for _, want := range []string{"widget:", "payment-1", "counted from 1", "payment-2", "#w-payment-2",
		"keep the values of the widget's block", "Server's ledger", "More parameters", "Embed"} {
		if !strings.Contains(section, want) {
			t.Errorf("the guide's section on widget links does not say %q", want)
		}
	}
	src := readFile(t, filepath.Join(root, guideFile))
	src = src[strings.Index(src, "{#widget-links}"):]
	examples := regexp.MustCompile("(?s)````markdown\n(.*?)````\n").FindAllStringSubmatch(src, -1)
	if len(examples) == 0 {
		t.Fatal("the guide's section on widget links has no example")
	}
	for _, ex := range examples {
		links := widgetLinksIn(t, "the guide's example", ex[1])
		if len(links) == 0 {
			t.Errorf("the guide's example has no widget link:\n%s", ex[1])
		}
		for _, l := range links {
			if l[0] != "payment-1" || l[1] == "" {
				t.Errorf("the guide's example links to %s with %q, want payment-1 in another state", l[0], l[1])
			}
		}
	}
	// The reference, which follows the section, shows the syntax too.
	if !strings.Contains(guide.Body, "<code>[text](widget:NAME-N?param=value&amp;param=value)</code>") {
		t.Error("the guide's reference does not show a widget link's syntax")
	}
}
