package main

import (
	"strings"
	"testing"

	"github.com/retrylab/retrylab/site/markdown"
	"github.com/retrylab/retrylab/site/widget"
)

func TestAnnouncedURL(t *testing.T) {
	for line, want := range map[string]string{
		"sitegen: previewing /tmp/x/site at http://127.0.0.1:40123/ with the production headers; Ctrl-C stops": "http://127.0.0.1:40123/",
		"sitegen: previewing /tmp/x at http://127.0.0.1:8080 with the production headers":                      "http://127.0.0.1:8080/",
	} {
		if got, ok := announcedURL(line); !ok || got != want {
			t.Errorf("announcedURL(%q) = %q, %v; want %q", line, got, ok, want)
		}
	}
	if _, ok := announcedURL("sitegen: listen tcp: address in use"); ok {
		t.Error("found an address in an error")
	}
}

// Every generated article is a valid page for the generator: front matter
// with a title, a highlighted Go block, and a payment widget block that
// the schema accepts (an invalid one would fail the build).
func TestCorpusContent(t *testing.T) {
	files := corpusContent(30)
	if len(files) != 31 {
		t.Fatalf("%d files for 30 articles, want 31 with the home page", len(files))
	}
	conv := markdown.New()
	for name, text := range files {
		page, err := conv.Convert(name, []byte(text))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if page.Title == "" {
			t.Errorf("%s: no title", name)
		}
		if name == "index.md" {
			continue
		}
		if len(page.Widgets) != 1 || page.Widgets[0] != "payment" {
			t.Errorf("%s: widgets %v, want one payment", name, page.Widgets)
		}
		if !strings.Contains(string(page.Body), `data-widget="payment"`) || !strings.Contains(string(page.Body), "chroma") {
			t.Errorf("%s: no rendered widget or highlighted code in the page", name)
		}
	}
}

// The widget content has one page per registered widget, each with that
// widget at its defaults, below the first screen.
func TestWidgetContent(t *testing.T) {
	ws := widget.All()
	files := widgetContent(ws)
	if len(files) != len(ws)+1 {
		t.Fatalf("%d files for %d widgets", len(files), len(ws))
	}
	conv := markdown.New()
	for _, w := range ws {
		name := widgetPageSlug(w.Name) + ".md"
		text, ok := files[name]
		if !ok {
			t.Fatalf("no page for %s", w.Name)
		}
		page, err := conv.Convert(name, []byte(text))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(page.Widgets) != 1 || page.Widgets[0] != w.Name {
			t.Errorf("%s: widgets %v", name, page.Widgets)
		}
		// About 70 words a paragraph, twelve of them: several screens of
		// text before the widget.
		if i := strings.Index(text, "```widget"); len(strings.Fields(text[:i])) < 500 {
			t.Errorf("%s: the widget comes after only %d words", name, len(strings.Fields(text[:i])))
		}
	}
}
