package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"encoding/xml"
	"html"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/site/widget"
)

// searchFragments reads the Pagefind index the build wrote: each page's
// fragment (a gzip of "pagefind_dcd" and a JSON object), by URL.
func searchFragments(t *testing.T, dir string) map[string]string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "pagefind", "fragment", "*.pf_fragment"))
	if len(files) == 0 {
		t.Fatalf("no search index under %s/pagefind/fragment", dir)
	}
	out := map[string]string{}
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
		raw = bytes.TrimPrefix(raw, []byte("pagefind_dcd"))
		var frag struct {
			URL     string `json:"url"`
			Content string `json:"content"`
		}
		if err := json.Unmarshal(raw, &frag); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[frag.URL] = frag.Content
	}
	return out
}

// The search index holds every article and nothing else (no home page,
// search page, 404, embed page, authors' guide or playground); a widget is in it by its title and
// summary, never its controls, replay buttons, output or embed snippet.
func TestSearchIndex(t *testing.T) {
	dir := builtSite(t)
	frags := searchFragments(t, dir)
	mds, _ := filepath.Glob(filepath.Join(repoRoot(t), "content", "*.md"))
	for _, md := range mds {
		slug := strings.TrimSuffix(filepath.Base(md), ".md")
		if slug == "index" {
			continue
		}
		if _, ok := frags["/"+slug+"/"]; !ok {
			t.Errorf("/%s/ is not in the search index", slug)
		}
	}
	for u := range frags {
		if u == "/" || strings.HasPrefix(u, "/search") || strings.HasPrefix(u, "/embed/") || strings.HasPrefix(u, "/404") || u == "/authoring/" || u == "/playground/" {
			t.Errorf("%s is in the search index", u)
		}
	}
	for _, u := range []string{"/which-errors-to-retry/", "/api/"} {
		if !strings.Contains(frags[u], "Retry-After") {
			t.Errorf("%s's indexed text has no Retry-After", u)
		}
	}
	catalogue := frags["/widgets/"]
	for _, w := range widget.All() {
		for _, s := range []string{w.Title, w.Summary} {
			if !strings.Contains(catalogue, s) {
				t.Errorf("the index of /widgets/ lacks widget %s's %q", w.Name, s)
			}
		}
	}
	// What only a widget's controls, player, output (backoff's chart,
	// payment's sequence of events) and embed panel say.
	for _, s := range []string{"Keys: K or Space", "first/last", "data-retrylab", "Link to this state", "To show this widget", "On this page", "Previous",
		"all served: ", "card charged: ch_"} {
		for u, c := range frags {
			if strings.Contains(c, s) {
				t.Errorf("%s's indexed text holds %q", u, s)
			}
		}
	}
}

// sitemap.xml lists the home page and every article; feed.xml is an Atom
// feed of every dated article, each dated from its front matter.
func TestSitemapAndFeed(t *testing.T) {
	dir := builtSite(t)
	var sm struct {
		URLs []struct {
			Loc     string `xml:"loc"`
			LastMod string `xml:"lastmod"`
		} `xml:"url"`
	}
	if err := xml.Unmarshal([]byte(readFile(t, filepath.Join(dir, "sitemap.xml"))), &sm); err != nil {
		t.Fatal(err)
	}
	mds, _ := filepath.Glob(filepath.Join(repoRoot(t), "content", "*.md"))
	if len(sm.URLs) != len(mds) {
		t.Errorf("sitemap.xml lists %d pages for %d content files", len(sm.URLs), len(mds))
	}
	dates := map[string]string{}
	for _, md := range mds {
		slug := strings.TrimSuffix(filepath.Base(md), ".md")
		if m := regexp.MustCompile(`(?m)^date: (\S+)$`).FindStringSubmatch(readFile(t, md)); m != nil && slug != "index" {
			dates["/"+slug+"/"] = m[1]
		}
	}
	for _, u := range sm.URLs {
		if !strings.HasPrefix(u.Loc, defaultOrigin+"/") {
			t.Errorf("sitemap: %s is not on the site's origin", u.Loc)
		}
		if want := dates[strings.TrimPrefix(u.Loc, defaultOrigin)]; u.LastMod != want {
			t.Errorf("sitemap: %s lastmod %q, want the front matter's %q", u.Loc, u.LastMod, want)
		}
	}

	var feed struct {
		XMLName xml.Name `xml:"http://www.w3.org/2005/Atom feed"`
		ID      string   `xml:"id"`
		Updated string   `xml:"updated"`
		Entries []struct {
			Title   string `xml:"title"`
			ID      string `xml:"id"`
			Updated string `xml:"updated"`
			Link    struct {
				Href string `xml:"href,attr"`
			} `xml:"link"`
		} `xml:"entry"`
	}
	if err := xml.Unmarshal([]byte(readFile(t, filepath.Join(dir, "feed.xml"))), &feed); err != nil {
		t.Fatalf("feed.xml: %v", err)
	}
	if len(feed.Entries) != len(dates) || feed.ID == "" || feed.Updated == "" {
		t.Errorf("feed.xml: %d entries for %d dated articles, id %q, updated %q", len(feed.Entries), len(dates), feed.ID, feed.Updated)
	}
	for _, e := range feed.Entries {
		path := strings.TrimPrefix(e.Link.Href, defaultOrigin)
		if e.Title == "" || e.ID != e.Link.Href || e.Updated != dates[path]+"T00:00:00Z" {
			t.Errorf("feed entry %+v: want a title, its URL as id, and the front matter's date %s", e, dates[path])
		}
	}
}

// Every article's head names its canonical URL and carries the Open
// Graph and Twitter card tags, and links the feed.
func TestSocialTags(t *testing.T) {
	dir := builtSite(t)
	page := readFile(t, filepath.Join(dir, "double-charge", "index.html"))
	for _, want := range []string{
		`<link rel="canonical" href="` + defaultOrigin + `/double-charge/">`,
		`<meta property="og:url" content="` + defaultOrigin + `/double-charge/">`,
		`<meta property="og:title" content="The double charge">`,
		`<meta property="og:type" content="article">`,
		`<meta property="og:description" content="Why a payment`,
		`<meta name="twitter:card" content="summary">`,
		`<meta name="twitter:title" content="The double charge">`,
		`<link rel="alternate" type="application/atom+xml" href="/feed.xml"`,
		`<link rel="next" href="/safe-and-idempotent/">`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("/double-charge/ lacks %s", want)
		}
	}
}

// The reading time counts prose and code, not a widget block's parameters,
// and adds a minute for each widget.
func TestReadingMinutes(t *testing.T) {
	words := strings.Repeat("word ", 440)
	for _, c := range []struct {
		src  string
		want int
	}{
		{"---\ntitle: T\n---\n\nshort", 1},
		{"---\ntitle: T\n---\n" + words, 2},
		{"---\ntitle: T\n---\n" + words + "\n```widget payment\n" + strings.Repeat("keys: off\n", 500) + "```\n", 3},
		{"---\ntitle: T\n---\n" + words + "\n```go\n" + words + "\n```\n", 4},
	} {
		if got := readingMinutes([]byte(c.src)); got != c.want {
			t.Errorf("readingMinutes(%.40q...) = %d, want %d", c.src, got, c.want)
		}
	}
}

// maxIncludeLines is how long code included from the engine may be: the
// idea in about 30 lines, its doc comment included.
const maxIncludeLines = 32

var includeCaptionRE = regexp.MustCompile(`<figcaption><code>([^<]+)</code>, lines? (\d+)(?:–(\d+))?</figcaption>`)

// Every include of every page shows at most maxIncludeLines lines.
func TestIncludesAreShort(t *testing.T) {
	pages, _ := filepath.Glob(filepath.Join(builtSite(t), "*", "index.html"))
	n := 0
	for _, page := range pages {
		for _, m := range includeCaptionRE.FindAllStringSubmatch(readFile(t, page), -1) {
			n++
			first, _ := strconv.Atoi(m[2])
			last := first
			if m[3] != "" {
				last, _ = strconv.Atoi(m[3])
			}
			if lines := last - first + 1; lines > maxIncludeLines {
				t.Errorf("%s: %s, lines %d–%d: %d lines, more than %d", filepath.Base(filepath.Dir(page)), m[1], first, last, lines, maxIncludeLines)
			}
		}
	}
	if n < 20 {
		t.Errorf("%d includes found; the captions' form may have changed", n)
	}
}

var (
	widgetRootRE = regexp.MustCompile(`<figure class="widget" id="w-([^"]+)" data-widget="([^"]+)"`)
	widgetLinkRE = regexp.MustCompile(`<a data-widget-link="([^"]+)" href="([^"]+)"`)
)

// Every widget of every page is driven by at least one link in its
// prose, and every link is a permalink to a widget of its page in a
// state the widget's schema accepts.
func TestEveryWidgetHasALink(t *testing.T) {
	dir := builtSite(t)
	pages, _ := filepath.Glob(filepath.Join(dir, "*", "index.html"))
	pages = append(pages, filepath.Join(dir, "index.html"))
	widgets, links := 0, 0
	for _, page := range pages {
		body := readFile(t, page)
		name := strings.TrimPrefix(filepath.Dir(page), dir) + "/"
		roots := map[string]string{} // widget names by id without "w-"
		for _, m := range widgetRootRE.FindAllStringSubmatch(body, -1) {
			roots[m[1]] = m[2]
		}
		linked := map[string]bool{}
		for _, m := range widgetLinkRE.FindAllStringSubmatch(body, -1) {
			links++
			linked[m[1]] = true
			id, query := widget.SplitPermalink(strings.SplitN(html.UnescapeString(m[2]), "#", 2)[0])
			w, err := widget.Find(roots[m[1]])
			switch {
			case id != widget.IDPrefix+m[1]:
				t.Errorf("%s: the link to %s is a permalink to %q", name, m[1], id)
			case err != nil:
				t.Errorf("%s: a link to %s, which the page lacks", name, m[1])
			default:
				if _, err := w.Schema.ParseQuery(query); err != nil {
					t.Errorf("%s: the link to %s sets %q: %v", name, m[1], query, err)
				}
			}
		}
		for _, m := range widgetRootRE.FindAllStringSubmatch(body, -1) {
			id := m[1]
			widgets++
			if !linked[id] {
				t.Errorf("%s: no link in the prose sets the widget %s", name, id)
			}
		}
	}
	if widgets < 20 || links < widgets {
		t.Errorf("%d widgets and %d links found; the markup's form may have changed", widgets, links)
	}
}
