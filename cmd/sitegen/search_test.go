package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// searchCopy leaves out each skipped element with all it holds, nested
// elements of its own name and void elements included, and nothing else;
// it takes the span tags out of a <pre> but keeps their text.
func TestSearchCopy(t *testing.T) {
	const page = `<!doctype html><html lang="en"><head><title>T</title></head><body>` +
		`<nav>Home</nav><article data-pagefind-body><h1>Title</h1>` +
		`<p class="meta" data-pagefind-ignore>4 min read</p>` +
		`<details data-pagefind-ignore="all"><summary>On this page</summary></details>` +
		`<h2 id="a">Why <a class="anchor" href="#a">#</a></h2><!-- note -->` +
		`<p>Kept &amp; <span class="x">words</span>.</p>` +
		`<figure class="widget"><figcaption class="w-head"><span class="w-title">A widget</span>` +
		`<div class="w-tools"><a href="?w=x">Link</a></div></figcaption>` +
		`<form class="w-controls"><input name="n" value="1"><div><div>deep</div></div><br></form>` +
		`<div class="w-output"><div class="inner"><svg><text>all served: 132.7 s</text></svg></div><img src="x.png"></div>` +
		`<p>After the widget.</p></figure>` +
		`<div class="code"><pre class="chroma"><code><span class="line"><span class="kd">func</span> <span class="nf">f</span>()</span></code></pre></div>` +
		`<p>The end, <span>in a span</span>.</p></article></body></html>`
	const want = `<!doctype html><html lang="en"><head><title>T</title></head><body>` +
		`<nav>Home</nav><article data-pagefind-body><h1>Title</h1>` +
		`<p class="meta" data-pagefind-ignore>4 min read</p>` +
		`<h2 id="a">Why </h2>` +
		`<p>Kept &amp; <span class="x">words</span>.</p>` +
		`<figure class="widget"><figcaption class="w-head"><span class="w-title">A widget</span>` +
		`</figcaption>` +
		`<p>After the widget.</p></figure>` +
		`<div class="code"><pre class="chroma"><code>func f()</code></pre></div>` +
		`<p>The end, <span>in a span</span>.</p></article></body></html>`
	var b bytes.Buffer
	body, err := searchCopy(&b, []byte(page))
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != want {
		t.Errorf("the search copy is\n%s\nwant\n%s", got, want)
	}
	if !body {
		t.Error("searchCopy did not see the data-pagefind-body element")
	}
	b.Reset()
	if body, _ := searchCopy(&b, []byte(`<html><body><p>No body here.</p></body></html>`)); body {
		t.Error("searchCopy saw a data-pagefind-body element in a page without one")
	}
}

// fragment is what Pagefind keeps of a page for its results.
type fragment struct {
	URL       string            `json:"url"`
	Content   string            `json:"content"`
	WordCount int               `json:"word_count"`
	Filters   map[string]any    `json:"filters"`
	Meta      map[string]string `json:"meta"`
	Anchors   []anchor          `json:"anchors"`
	Sort      map[string]any    `json:"sort"`
	Language  string            `json:"language"`
}

// anchor is an element of a page with an id, as Pagefind records it:
// headings among them are the sub-results search.js shows.
type anchor struct {
	Element  string `json:"element"`
	ID       string `json:"id"`
	Text     string `json:"text"`
	Location int    `json:"location"`
}

// readFragments decodes every page's fragment (a gzip of "pagefind_dcd"
// and a JSON object) of the Pagefind bundle at dir, by URL.
func readFragments(t *testing.T, dir string) map[string]fragment {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "fragment", "*.pf_fragment"))
	if len(files) == 0 {
		t.Fatalf("no search index under %s/fragment", dir)
	}
	out := map[string]fragment{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		raw, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var frag fragment
		if err := json.Unmarshal(bytes.TrimPrefix(raw, []byte("pagefind_dcd")), &frag); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[frag.URL] = frag
	}
	return out
}

// The index the build makes from its search copies is the one Pagefind
// makes from the pages themselves, told to exclude searchSkip's
// selectors: for every page the same text, words, title and metadata.
// The one difference is intended: Pagefind records the id of a widget's
// controls (a <form>, excluded, so its "text" is its labels run
// together) as an anchor of the page, which the copy has no more. The
// anchors search.js shows, the headings, are all there.
func TestSearchCopyIndexesTheSame(t *testing.T) {
	dir := builtSite(t)
	root := repoRoot(t)
	selectors := make([]string, len(searchSkip))
	for i, r := range searchSkip {
		selectors[i] = "." + r.Class
		if r.Tag != 0 {
			selectors[i] = r.Tag.String() + selectors[i]
		}
	}
	// The pages themselves, with no index in their folder: a copy of the
	// site of hard links, less pagefind/.
	pages := t.TempDir()
	if err := linkTree(dir, pages, pagefindDir); err != nil {
		t.Fatal(err)
	}
	whole := filepath.Join(t.TempDir(), "pagefind")
	cmd := exec.CommandContext(context.Background(), filepath.Join(root, pagefindBin), "--site", pages,
		"--output-path", whole, "--exclude-selectors", strings.Join(selectors, ", "), "--silent")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pagefind on the pages: %v\n%s", err, out)
	}
	want, got := readFragments(t, whole), readFragments(t, filepath.Join(dir, pagefindDir))
	if !slices.Equal(slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want))) {
		t.Fatalf("the index of the copies has pages %v, the pages' index %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
	}
	controls := regexp.MustCompile(`^w-[a-z-]+-[0-9]+-form$`)
	dropped := 0
	for u, w := range want {
		g := got[u]
		var anchors []anchor
		for _, a := range w.Anchors {
			if a.Element == "form" && controls.MatchString(a.ID) {
				dropped++
				continue
			}
			anchors = append(anchors, a)
		}
		w.Anchors = anchors
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s: the copy's index differs from the page's:\n got %+v\nwant %+v", u, g, w)
		}
	}
	if dropped == 0 {
		t.Error("no widget's controls were an anchor of the pages' own index: this test no longer tests what it says")
	}
}
