package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/engine/explore"
	"github.com/retrylab/retrylab/engine/figures"
	"github.com/retrylab/retrylab/engine/models"
	"github.com/retrylab/retrylab/site/markdown"
	"github.com/retrylab/retrylab/site/widget"
)

// Every model registered in engine/models is the whole way through the
// project: a command of the CLI, with its flags and --help; a widget of
// the same name; published figures; the claims its chapter makes, which
// engine/explore checks across schedule seeds; and a chapter that plays
// the widget, the one the widget says explains it. And every widget is a model's. A
// model is added by registering it and writing its view, its figures and
// its article (the README's "Adding a simulator"); this test is what says
// one of them is missing, and it names no model.
func TestEveryModelIsEverywhere(t *testing.T) {
	root := filepath.Join("..", "..")
	conv := markdown.New(markdown.WithSourceRoot(root))
	for _, m := range models.All {
		if code, out, errs := cli("sim", m.Name, "--help"); code != 0 || !strings.Contains(out, "retrylab sim "+m.Name) {
			t.Errorf("%s: retrylab sim %s --help: exit %d, %q %q", m.Name, m.Name, code, out, errs)
		}
		if code, _, errs := cli("sim", m.Name, "--json"); code != 0 {
			t.Errorf("%s: retrylab sim %s --json: exit %d, %s", m.Name, m.Name, code, errs)
		}
		if len(figures.Of(m.Name)) == 0 {
			t.Errorf("%s: no published figures in engine/figures", m.Name)
		}
		if len(explore.Of(m.Name)) == 0 {
			t.Errorf("%s: no claims of its chapter in engine/explore, to check across schedule seeds", m.Name)
		}
		w, ok := widget.Lookup(m.Name)
		if !ok {
			t.Errorf("%s: no widget of that name in site/widget", m.Name)
			continue
		}
		chapter := strings.Trim(w.Chapter, "/")
		if chapter == "" || strings.Contains(chapter, "/") {
			t.Errorf("%s: the widget's chapter %q is not an article's path", m.Name, w.Chapter)
			continue
		}
		path := filepath.Join(root, "content", chapter+".md")
		src, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: the widget's chapter: %v", m.Name, err)
			continue
		}
		page, err := conv.Convert(filepath.ToSlash(filepath.Join("content", chapter+".md")), src)
		if err != nil {
			t.Errorf("%s: %v", m.Name, err)
			continue
		}
		if !slices.Contains(page.Widgets, m.Name) {
			t.Errorf("%s: its chapter, %s, plays no widget %s (it plays %v)", m.Name, path, m.Name, page.Widgets)
		}
	}
	for _, name := range widget.Names() {
		if _, ok := models.Find(name); !ok {
			t.Errorf("widget %s: no model of that name in engine/models", name)
		}
	}
}
