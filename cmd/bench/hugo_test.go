package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The Hugo site holds the corpus's articles under content/, the home page
// as _index.md, and a layout for each kind of page.
func TestHugoSite(t *testing.T) {
	files := hugoSite(3)
	for _, name := range []string{"hugo.toml", "layouts/baseof.html", "layouts/single.html", "layouts/list.html",
		"content/_index.md", "content/article-0001.md", "content/article-0003.md"} {
		if files[name] == "" {
			t.Errorf("no %s", name)
		}
	}
	if len(files) != 4+4 {
		t.Errorf("%d files, want the 4 of the layout and 4 pages", len(files))
	}
}

// With Hugo installed, it builds the corpus: a page per article, with its
// Go block highlighted with classes, its widget block as code and its
// table of contents, and a home page listing every article.
func TestHugoBuildsTheCorpus(t *testing.T) {
	ctx := context.Background()
	bin, err := hugoBin(ctx)
	if err != nil {
		t.Skip(err)
	}
	src, out := t.TempDir(), filepath.Join(t.TempDir(), "site")
	if err := writeFiles(src, hugoSite(3)); err != nil {
		t.Fatal(err)
	}
	if _, err := hugoBuild(ctx, bin, src, out); err != nil {
		t.Fatal(err)
	}
	if n, err := countPages(out); err != nil || n != 4 {
		t.Errorf("%d pages (%v), want 4", n, err)
	}
	page, err := os.ReadFile(filepath.Join(out, "article-0002", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<span class="kd">func</span>`, `<code class="language-widget" data-lang="widget">keys: per-attempt`,
		`<a href="#what-the-widget-shows">`, "<title>Article 2 · Corpus</title>"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("article-0002 lacks %s", want)
		}
	}
	home, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(home), `<li><a href="/article-`) != 3 {
		t.Errorf("the home page does not list the 3 articles:\n%s", home)
	}
}
