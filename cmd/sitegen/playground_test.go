package main

import (
	"html"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/site/linkcheck"
	"github.com/retrylab/retrylab/site/markdown"
	"github.com/retrylab/retrylab/site/playground"
	"github.com/retrylab/retrylab/site/widget"
)

// draft uses every kind of block the converter renders but an include
// (which reads the repository's files): front matter, prose with links
// and autolinks, a heading, a table, a task list, highlighted code of
// several languages, code the build labels, a widget and a widget link.
const draft = `---
title: Every block
description: One of each.
level: beginner
---

Prose with **strong**, *emphasis*, ` + "`code`" + `, ~~struck~~, https://example.com
and a [link](/double-charge/#the-lost-response): "quotes", it's -- and ... stay as typed.

## A heading

| name | n |
|:-----|--:|
| a    | 1 |

- [x] done
- [ ] not yet

` + "```go" + `
func f() error { return nil }
` + "```" + `

` + "```sh" + `
curl -X POST https://example.com/v1/charges
` + "```" + `

` + "```text" + `
HTTP/1.1 201 Created
` + "```" + `

` + "```sql" + `
SELECT 1;
` + "```" + `

` + "```widget payment" + `
keys: per-intent
faults: lose-response, ok
` + "```" + `

[Send no key](widget:payment-1?keys=off) and count again.
`

// draftSite is a content folder with the draft as /draft/, beside the
// pages its links name.
func draftSite(t *testing.T, text string) string {
	const fm = "---\ntitle: T\n---\n\n"
	content := filepath.Join(t.TempDir(), "content")
	writeFiles(t, content, map[string]string{
		"index.md":         fm + "Home.\n",
		"double-charge.md": fm + "## The lost response\n",
		"draft.md":         text,
	})
	return content
}

// The playground's preview of a draft is the body the generator writes
// for the same markdown, byte for byte: the same converter, options and
// code labels, so the two cannot drift apart.
func TestPlaygroundPreviewIsTheArticle(t *testing.T) {
	sc, err := readContent(repoRoot(t), draftSite(t, draft), defaultOrigin, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	var built *article
	for _, a := range sc.Articles {
		if a.URL == "/draft/" {
			built = a
		}
	}
	if built == nil {
		t.Fatal("no /draft/ in the build")
	}
	p := playground.New(defaultOrigin, playground.WithSite(sc.Links.Site())).Render([]byte(draft))
	if len(p.Problems) > 0 {
		t.Fatalf("the playground refuses the draft: %v", p.Problems)
	}
	if p.HTML != built.HTML {
		t.Errorf("the preview differs from the built article:\npreview: %s\nbuilt:   %s", p.HTML, built.HTML)
	}
	if p.Title != built.Title || p.Description != built.Description {
		t.Errorf("preview title %q, description %q; built %q, %q", p.Title, p.Description, built.Title, built.Description)
	}
	for _, want := range []string{`class="chroma"`, `data-widget="payment"`, `data-label="request"`, `data-widget-link="payment-1"`, "<table>"} {
		if !strings.Contains(p.HTML, want) {
			t.Errorf("the preview lacks %s: the draft no longer covers it", want)
		}
	}
}

// A draft the build refuses shows the build's own messages, each at the
// build's line, and no preview.
func TestPlaygroundProblemsAreTheBuilds(t *testing.T) {
	bad := strings.Replace(draft, "keys: per-intent", "keys: maybe", 1)
	bad = strings.Replace(bad, "```sql\nSELECT 1;\n```", "```widget paymnt\n```", 1)
	// Links to a page and to a section the site lacks, and to a section of
	// the draft itself, which the build takes from a page with problems.
	bad = strings.Replace(bad, "## A heading", "See [there](/nope/), [the retry](/double-charge/#the-lost-respons)\nand [mine](#a-heading).\n\n## A heading", 1)
	_, err := readContent(repoRoot(t), draftSite(t, bad), defaultOrigin, nil, 1)
	if err == nil {
		t.Fatal("the build took the draft")
	}
	built := strings.Split(err.Error(), "\n")
	p := playground.New(defaultOrigin, playground.WithSite(siteLinks(t))).Render([]byte(bad))
	if len(p.Problems) != len(built) {
		t.Fatalf("%d problems, the build %d:\n%v\n%v", len(p.Problems), len(built), p.Problems, err)
	}
	for i, pr := range p.Problems {
		if want := "draft.md:" + strconv.Itoa(pr.Line) + ": " + pr.Message; !strings.HasSuffix(built[i], want) {
			t.Errorf("problem %d: the playground says %q, the build %q", i+1, want, built[i])
		}
	}
	// In line order: the links first, then the blocks below them.
	if last := p.Problems[len(p.Problems)-2]; last.Message != `widget "paymnt": unknown widget (did you mean payment? known: `+strings.Join(widget.Names(), ", ")+")" {
		t.Errorf("problem %+v, want the unknown widget", last)
	}
	for _, want := range []string{"draft.md:10: link to /nope/: no such page\n",
		`link to /double-charge/#the-lost-respons: /double-charge/ has no section or widget with the id "the-lost-respons" (did you mean #the-lost-response?)`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the build does not say %q:\n%v", want, err)
		}
	}
	if p.HTML != "" {
		t.Errorf("a refused draft has a preview: %.80s", p.HTML)
	}
}

// siteLinks is what the build's link check knows of draftSite's pages.
func siteLinks(t *testing.T) *linkcheck.Site {
	t.Helper()
	sc, err := readContent(repoRoot(t), draftSite(t, "---\ntitle: D\n---\n"), defaultOrigin, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	return sc.Links.Site()
}

// A whole draft's links to itself are checked against its own headings,
// as the build checks an article's; a draft that links well is taken.
func TestPlaygroundChecksLinksToItself(t *testing.T) {
	r := playground.New(defaultOrigin, playground.WithSite(siteLinks(t)))
	const good = "---\ntitle: T\n---\n\n[up](#later), [home](/), [there](/double-charge/#the-lost-response), [away](https://example.com/x).\n\n## Later\n"
	if p := r.Render([]byte(good)); len(p.Problems) > 0 || p.HTML == "" {
		t.Errorf("a draft whose links are good is refused: %+v", p.Problems)
	}
	bad := strings.Replace(good, "#later", "#latr", 1)
	want := []playground.Problem{{Line: 5, Message: `link to #latr: ` + playground.DraftURL + ` has no section or widget with the id "latr" (did you mean #later?)`}}
	if p := r.Render([]byte(bad)); !reflect.DeepEqual(p.Problems, want) {
		t.Errorf("problems %+v, want %+v", p.Problems, want)
	}
}

// The playground's example sets its widget from the prose with a widget
// link, as an article must, rather than telling the reader in plain words
// which control to change.
func TestPlaygroundExampleLinksItsWidget(t *testing.T) {
	root := repoRoot(t)
	example, err := readExample(root, markdown.New(markdown.WithSourceRoot(root)))
	if err != nil {
		t.Fatal(err)
	}
	p := playground.New(defaultOrigin).Render([]byte(example))
	if len(p.Problems) > 0 {
		t.Fatalf("the playground refuses its example: %v", p.Problems)
	}
	roots := widgetRootRE.FindAllStringSubmatch(p.HTML, -1)
	if len(roots) == 0 {
		t.Fatal("the example has no widget")
	}
	linked := map[string]bool{}
	for _, m := range widgetLinkRE.FindAllStringSubmatch(p.HTML, -1) {
		_, query := widget.SplitPermalink(strings.SplitN(html.UnescapeString(m[2]), "#", 2)[0])
		if query != "" {
			linked[m[1]] = true
		}
	}
	for _, m := range roots {
		if !linked[m[1]] {
			t.Errorf("no link of the example's prose sets its widget %s:\n%s", m[1], example)
		}
	}
}
