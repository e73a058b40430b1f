package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/retrylab/retrylab/site/linkcheck"
	"github.com/retrylab/retrylab/site/markdown"
	"github.com/retrylab/retrylab/site/playground"
	"github.com/retrylab/retrylab/site/widget"
)

// Site-wide text.
const (
	siteName        = "retrylab"
	siteDescription = "An interactive handbook on idempotency and safe retries."
)

// buildConfig says where a build reads and writes.
type buildConfig struct {
	Root    string // the module root: site/templates, site/static and ./wasm are found here
	Content string // the folder of markdown articles
	Out     string // the output folder, replaced as a whole when the build succeeds
	// Quick leaves out the brotli sibling of files over quickLimit (the
	// module): for serve's rebuilds, where waiting for brotli's best level
	// would make every engine edit slow to show. The .gz is still written.
	Quick bool
	// Origin is the site's scheme and host, which the embed snippets in
	// the pages load embed.js from until the page's module puts in the
	// origin the reader is on. Empty: siteOrigin's.
	Origin string
	// Cache, when set, is what the previous build in this process left
	// (serve's rebuilds after an edit that changes no Go code): see
	// buildCache.
	Cache *buildCache
	// Siblings, when set, keeps the module's compressed siblings between
	// builds, outside Out (siblingCache): the command's default is
	// defaultSiblingCache's.
	Siblings *siblingCache
	// Workers is how many articles are converted, and pages rendered, at
	// once: 0 for GOMAXPROCS, 1 for one at a time. The pages are the same
	// byte for byte whatever it is (TestParallelBuildIsSerial).
	Workers int
}

// defaultOrigin is the origin of `sitegen serve` at its default address,
// for builds that are not told the site's.
const defaultOrigin = "http://localhost:8080"

// siteOrigin is the origin of the site being built: Netlify's URL, which
// its builds set to the site's main address, or defaultOrigin.
func siteOrigin() string {
	u, err := url.Parse(os.Getenv("URL"))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return defaultOrigin
	}
	return u.Scheme + "://" + u.Host
}

// buildStats describes a finished build.
type buildStats struct {
	Pages      int         // HTML files written, 404.html included
	Assets     int         // hashed files under /static/
	Bytes      int64       // size of every file written, the precompressed siblings aside
	Compressed int64       // size of the .br and .gz siblings
	Reused     int         // siblings taken from the previous build
	Wasm       moduleSizes // the handbook's module
	Playground moduleSizes // the playground's module, as Wasm is the handbook's
	Took       time.Duration
	Warning    string // something to tell, though the build succeeded
	// Unfinished: the search index is the previous build's until finish.
	Unfinished bool
}

// moduleSizes are a module's bytes as written and as its precompressed
// siblings (Brotli 0 for a quick build's).
type moduleSizes struct{ Raw, Gzip, Brotli int64 }

// String is the one-line summary a build prints.
func (s buildStats) String() string {
	br := size(s.Wasm.Brotli) + " brotli"
	if s.Wasm.Brotli == 0 {
		br = "no brotli (quick)"
	}
	line := fmt.Sprintf("%d pages, %d assets, %s (+%s .br/.gz of the module, %d reused); wasm %s, %s gzip, %s; %.2fs",
		s.Pages, s.Assets, size(s.Bytes), size(s.Compressed), s.Reused,
		size(s.Wasm.Raw), size(s.Wasm.Gzip), br, s.Took.Seconds())
	if s.Unfinished {
		line += " (search index to follow)"
	}
	if s.Warning != "" {
		line += "\nwarning: " + s.Warning
	}
	return line
}

func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// build renders the site into a fresh folder next to cfg.Out and, only when
// every step succeeded, swaps it in. On failure cfg.Out is untouched, the
// folder is removed, and the error lists every problem found (one per line
// for markdown errors, each starting "file:line:").
func build(ctx context.Context, cfg buildConfig) (stats buildStats, err error) {
	start := time.Now()
	if cfg.Origin == "" {
		cfg.Origin = siteOrigin()
	}
	out, err := filepath.Abs(cfg.Out)
	if err != nil {
		return stats, err
	}
	tmp, err := buildDir(out)
	if err != nil {
		return stats, err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	// The modules take longest to build: start them first, and read the
	// articles while they compile.
	var mods map[string][]byte
	wasmDone := make(chan error, 1)
	go func() {
		var err error
		mods, err = cfg.Cache.buildModules(ctx, cfg.Root, tmp)
		wasmDone <- err
	}()

	sc, err := readContent(cfg.Root, cfg.Content, cfg.Origin, cfg.Cache, cfg.Workers)
	if err != nil {
		cancel()
		<-wasmDone
		return stats, err
	}

	as := newAssets(tmp, out)
	js, err := addFiles(ctx, cfg, as, sc, tmp)
	if err != nil {
		cancel()
		<-wasmDone
		return stats, err
	}
	if err := <-wasmDone; err != nil {
		return stats, err
	}
	names, err := addModules(cfg.Cache, as, mods)
	if err != nil {
		return stats, err
	}
	// With a cache, Pagefind, which takes far longer than the pages
	// (about a second), is left for finish: the previous index stands in
	// until then.
	stats.Unfinished = cfg.Cache.unfinishedFrom(out)

	// The module's compressed siblings (brotli's best level takes seconds
	// on it) are made while the pages are rendered and indexed; a failed
	// build waits for them before it removes the folder.
	type compressed struct {
		stats compressStats
		err   error
	}
	packing := make(chan compressed, 1)
	go func() {
		cs, err := compressTree(ctx, tmp, out, cfg.Siblings, cfg.Quick, stats.Unfinished)
		packing <- compressed{cs, err}
	}()
	packed := sync.OnceValue(func() compressed { return <-packing })
	defer func() {
		cancel()
		packed()
	}()

	n, err := renderSite(tmp, filepath.Join(cfg.Root, "site", "templates"), as, sc, cfg.Origin, cfg.Workers)
	if err != nil {
		return stats, err
	}
	stats.Pages = n
	if stats.Unfinished {
		if err := linkTree(filepath.Join(out, pagefindDir), filepath.Join(tmp, pagefindDir), ""); err != nil {
			return stats, err
		}
	} else if err := indexSearch(ctx, cfg.Root, tmp); err != nil {
		return stats, err
	}

	cs := packed()
	if cs.err != nil {
		return stats, cs.err
	}
	stats.Compressed, stats.Reused = cs.stats.Bytes, cs.stats.Reused
	if err := measure(tmp, as, &stats); err != nil {
		return stats, err
	}
	if err := ctx.Err(); err != nil {
		return stats, err
	}

	if stats.Warning, err = swapIn(tmp, out); err != nil {
		return stats, err
	}
	cfg.Cache.keep(mods, names, js)
	stats.Took = time.Since(start)
	return stats, nil
}

// buildDir makes the folder a build of out is written into, beside it.
func buildDir(out string) (string, error) {
	parent, base := filepath.Split(out)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	// The pattern matches the /public.*/ line of .gitignore.
	tmp, err := os.MkdirTemp(parent, base+".build-*")
	if err != nil {
		return "", err
	}
	// MkdirTemp makes the folder private (0700); the site is for everyone.
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	return tmp, nil
}

// addFiles copies into tmp what the site serves as it is: the static
// assets, the root files, the articles' images, the highlighting's
// stylesheet and Go's wasm_exec.js, which it returns for the cache.
func addFiles(ctx context.Context, cfg buildConfig, as *assets, sc *siteContent, tmp string) ([]byte, error) {
	if err := as.addDir(filepath.Join(cfg.Root, "site", "static")); err != nil {
		return nil, err
	}
	if err := copyRoot(filepath.Join(cfg.Root, filepath.FromSlash(siteRootFiles)), tmp); err != nil {
		return nil, err
	}
	if err := copyImages(sc.Images, tmp); err != nil {
		return nil, err
	}
	if err := as.add("highlight.css", []byte(markdown.HighlightCSS())); err != nil {
		return nil, err
	}
	js, err := cfg.Cache.wasmExec(ctx)
	if err != nil {
		return nil, err
	}
	return js, as.add("wasm_exec.js", js)
}

// addModules adds the built WebAssembly modules under their hashed
// names, which it returns by asset.
func addModules(cache *buildCache, as *assets, mods map[string][]byte) (map[string]string, error) {
	names := make(map[string]string, len(modules))
	for _, m := range modules {
		data := mods[m.asset]
		names[m.asset] = cache.moduleName(m.asset, data)
		if err := as.addHashed(m.asset, names[m.asset], data); err != nil {
			return nil, err
		}
	}
	return names, nil
}

// swapIn makes the finished tree at tmp the site at out. The new site is
// live once it returns no error: failing to tidy the old one away is not
// a failed build (serve would say the previous site is still served,
// which is no longer true), only worth a warning.
func swapIn(tmp, out string) (warning string, err error) {
	old, err := replaceDir(tmp, out)
	if err != nil {
		return "", fmt.Errorf("moving the new site into %s: %w", out, err)
	}
	if old != "" {
		if err := os.RemoveAll(old); err != nil {
			return fmt.Sprintf("the previous site is left at %s: %v", old, err), nil
		}
	}
	return "", nil
}

// measure fills in the sizes of stats from the finished tree at dir.
func measure(dir string, as *assets, stats *buildStats) error {
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if ext := filepath.Ext(p); ext == ".br" || ext == ".gz" {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		stats.Bytes += info.Size()
		if rel, _ := filepath.Rel(dir, p); strings.HasPrefix(filepath.ToSlash(rel), staticDir+"/") {
			stats.Assets++
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := measureModule(dir, as, "retrylab.wasm", &stats.Wasm); err != nil {
		return err
	}
	return measureModule(dir, as, "playground.wasm", &stats.Playground)
}

// measureModule fills m with the sizes of the module of asset name in the
// finished tree at dir.
func measureModule(dir string, as *assets, name string, m *moduleSizes) error {
	u, err := as.url(name)
	if err != nil {
		return err
	}
	file := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(u, "/")))
	for _, f := range []struct {
		name string
		n    *int64
	}{{file, &m.Raw}, {file + ".gz", &m.Gzip}, {file + ".br", &m.Brotli}} {
		info, err := os.Stat(f.name)
		if errors.Is(err, fs.ErrNotExist) && strings.HasSuffix(f.name, ".br") {
			continue // a quick build
		}
		if err != nil {
			return err
		}
		*f.n = info.Size()
	}
	return nil
}

// article is one converted content file and where it goes.
type article struct {
	*markdown.Page
	URL     string // "/" for index.md, "/NAME/" for NAME.md
	File    string // the output file, relative: "index.html", "NAME/index.html"
	Minutes int    // the reading time, in whole minutes (readingMinutes)
	Number  int    // the position in handbook order, from 1; 0 for the home page
	HTML    string // the body with its code blocks labelled (markdown.LabelCode)
}

// copyImages copies the images of content/ (URL path -> file) into the
// output folder out, at their URL paths.
func copyImages(images map[string]string, out string) error {
	for u, file := range images {
		data, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		dst := filepath.Join(out, filepath.FromSlash(strings.TrimPrefix(u, "/")))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// copyRoot copies the files of dir (site/root) to the top of the output
// folder out under their own names: files whose URL others keep, such as
// /embed.js, which other sites' pages load, and which therefore cannot
// carry a hash.
func copyRoot(dir, out string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() || skipName(e.Name()) || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		file := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		if e.Name() == "embed.js" {
			if data, err = embedScript(data); err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
		}
		if strings.HasSuffix(e.Name(), ".js") {
			if data, err = withNames(file, data); err != nil {
				return err
			}
		}
		if err := os.WriteFile(filepath.Join(out, e.Name()), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// widgetsMark is where embed.js lists the site's simulators: the build
// writes their names in place of the empty list that follows it.
const widgetsMark = "/*widgets*/[]"

// embedScript is embed.js with the names of the registered widgets in
// place of widgetsMark, so that a snippet naming none of them is told so
// on the page that embeds it, without a frame.
func embedScript(src []byte) ([]byte, error) {
	if n := bytes.Count(src, []byte(widgetsMark)); n != 1 {
		return nil, fmt.Errorf("%d places for the widgets' names (%s), want one", n, widgetsMark)
	}
	names := make([]string, 0, len(widget.Names()))
	for _, n := range widget.Names() {
		names = append(names, strconv.Quote(n))
	}
	return bytes.Replace(src, []byte(widgetsMark), []byte("["+strings.Join(names, ", ")+"]"), 1), nil
}

// siteContent is what a build reads: the articles, the authors' guide and
// the images.
type siteContent struct {
	Articles []*article
	Guide    *article          // /authoring/
	Example  string            // the playground's starter text (readExample)
	Links    linkcheck.Data    // what the link check knows, for the playground's
	Images   map[string]string // URL path -> file (listContent)
}

// readContent converts every content/*.md, on up to workers goroutines at
// once (forEach), and the authors' guide; the widgets' embed snippets name
// origin. It refuses what content/ must not hold (listContent,
// checkNames) and every link or image that names nothing the site will
// have. The errors of all files are returned together, in the files'
// order, each as "file:line: what".
func readContent(root, dir, origin string, cache *buildCache, workers int) (*siteContent, error) {
	rules, err := loadHeaders(filepath.Join(root, "netlify.toml"))
	if err != nil {
		return nil, err
	}
	reserved, err := reservedNames(root)
	if err != nil {
		return nil, err
	}
	// A file refused or misnamed is reported with the errors of the
	// articles, all at once.
	cf, refused := listContent(root, dir)
	if len(cf.Articles) == 0 {
		return nil, refused
	}
	errs := []error{refused, checkNames(root, cf.Articles, reserved, rules)}
	live, liveKey, err := liveOptions(root)
	if err != nil {
		return nil, err
	}
	conv := cache.converter(origin+"\x00"+liveKey, markdown.New(markdown.WithSourceRoot(root),
		markdown.WithWidgetOptions(markdown.EmbedOrigin(origin)),
		markdown.WithLiveOptions(live...)))
	sc := &siteContent{Images: cf.Images}
	articles := make([]*article, len(cf.Articles))
	failed := make([]error, len(cf.Articles))
	forEach(len(cf.Articles), workers, func(i int) {
		articles[i], failed[i] = readArticle(root, cf.Articles[i], conv, cache)
	})
	// The pages with problems are still pages of the site, and their
	// links are checked with the rest: one build reports every error.
	var partial []*article
	for i, a := range articles {
		switch {
		case failed[i] == nil:
			sc.Articles = append(sc.Articles, a)
		case a != nil:
			partial = append(partial, a)
		}
		errs = append(errs, failed[i])
	}
	chapters := map[string]string{}
	for _, a := range sc.Articles {
		chapters[a.URL] = a.Title
	}
	guide, err := readGuide(root, conv, chapters)
	switch {
	case err == nil:
		guide.HTML = cache.label(guide.Page)
		sc.Guide = guide
	case guide != nil:
		partial = append(partial, guide)
	}
	errs = append(errs, err)
	if sc.Example, err = readExample(root, conv); err != nil {
		errs = append(errs, err)
	}
	m, err := newSiteMap(root, sc, partial, rules)
	if err != nil {
		return nil, err
	}
	pages := append(partial, sc.Articles...)
	if sc.Guide != nil {
		pages = append(pages, sc.Guide)
	}
	errs = append(errs, m.checkRefs(pages))
	if err := sourceErrors(errs); err != nil {
		return nil, err
	}
	sc.Links = m.Data(playground.DraftURL)
	return sc, nil
}

// readArticle converts the article in file f with conv.
func readArticle(root, f string, conv converter, cache *buildCache) (*article, error) {
	src, err := os.ReadFile(f)
	if err != nil {
		return nil, err
	}
	name := displayPath(root, f)
	page, err := conv.Convert(name, src)
	if err != nil {
		if page == nil {
			return nil, err
		}
		return newArticle(f, page, src), err
	}
	if page.Title == "" {
		return nil, fmt.Errorf("%s: no title in the front matter", name)
	}
	a := newArticle(f, page, src)
	a.HTML = cache.label(page)
	return a, nil
}

// newArticle is the article of page, converted from the file f with
// source src, its HTML not yet labelled.
func newArticle(f string, page *markdown.Page, src []byte) *article {
	slug := strings.TrimSuffix(filepath.Base(f), ".md")
	a := &article{Page: page, URL: "/" + slug + "/", File: slug + "/index.html", Minutes: readingMinutes(src)}
	if slug == "index" {
		a.URL, a.File = "/", "index.html"
	}
	return a
}

// newSiteMap lists what the site built from sc will serve, for checking
// links: every page and the ids of those made from markdown (but those of
// the pages with problems, partial), the embed
// pages, the search page, the feeds, the files of site/root and the
// images.
func newSiteMap(root string, sc *siteContent, partial []*article, rules []HeaderRule) (*siteMap, error) {
	m := newLinkSite(rules)
	for _, a := range sc.Articles {
		m.Add(a.URL, a.IDs)
	}
	if sc.Guide != nil {
		m.Add(sc.Guide.URL, sc.Guide.IDs)
	}
	for _, a := range partial {
		m.AddUnknown(a.URL)
	}
	for _, w := range widget.All() {
		m.Paths["/"+embedDir+"/"+w.Name+"/"] = true
	}
	for _, b := range builtTop {
		if b.url != "" {
			m.Paths[b.url] = true
		}
	}
	names, err := rootFiles(root)
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		m.Paths["/"+name] = true
	}
	for u := range sc.Images {
		m.Paths[u] = true
	}
	return m, nil
}

// displayPath is p relative to the module root when it lies inside it
// ("content/retries.md"), else p as given.
func displayPath(root, p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if rel, err := filepath.Rel(root, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(rel)
	}
	return p
}

// pageData is what a page template is executed with.
type pageData struct {
	SiteName    string
	Title       string // the page's h1
	DocTitle    string // the <title>
	Description string
	URL         string
	Date        time.Time
	Level       string
	Body        template.HTML
	TOC         []tocEntry // set when the page has two headings or more
	Articles    []*article // the index's list, in handbook order
	Groups      []group    // the index's list by level
	Widgets     []string   // the widgets the page holds
	Index       bool       // the home page
	NotFound    bool       // 404.html
	Search      bool       // the search page
	Example     string     // the playground's starter text
	SiteLinks   string     // the playground's: linkcheck.Data, as JSON
	Unindexed   bool       // kept out of the search index: the authors' guide, for authors, not readers
	Credit      link       // an embed page's: the article that explains its widget
	Canonical   string     // the page's absolute URL on the site's origin
	Minutes     int        // an article's reading time
	Prev, Next  *link      // an article's neighbours in handbook order
}

// group is one level of the home page's contents.
type group struct {
	ID, Name, Blurb string
	Articles        []*article
}

// levelGroups splits the articles, in handbook order, by their level:
// the levels in markdown.Levels' order, then the pages with none (the
// reference pages) under "Reference". An empty level is left out.
func levelGroups(list []*article) []group {
	blurbs := map[string]string{
		"beginner":     "What a timeout means, and why a retry can charge twice. No background needed.",
		"intermediate": "The tools: keys, constraints, backoff, budgets, claims and leases, the outbox, the duplicates your infrastructure makes, and receiving webhooks.",
		"expert":       "Redis as a key store, effects outside your database, overload that feeds itself, sagas, ordering, what to watch in production, and a whole payments API.",
		"":             "Run it yourself: a real Idempotency-Key API to curl, and every simulator on one page.",
	}
	var out []group
	for _, lv := range append(append([]string{}, markdown.Levels...), "") {
		g := group{ID: lv, Name: lv, Blurb: blurbs[lv]}
		if lv == "" {
			g.ID, g.Name = "reference", "Reference"
		} else {
			g.Name = strings.ToUpper(lv[:1]) + lv[1:]
		}
		for _, a := range list {
			if a.Level == lv {
				g.Articles = append(g.Articles, a)
			}
		}
		if len(g.Articles) > 0 {
			out = append(out, g)
		}
	}
	return out
}

// link is a page to link to and its title.
type link struct{ URL, Title string }

// tocEntry is one heading of a table of contents, with the headings nested
// under it.
type tocEntry struct {
	ID, Text string
	Children []tocEntry
}

// tocTree nests flat headings by level: a heading goes under the nearest
// earlier one of a smaller level.
func tocTree(hs []markdown.Heading) []tocEntry {
	i := 0
	return tocNest(hs, &i, 0)
}

// tocNest takes the headings from hs[*i] on while they are deeper than
// parent, each with the deeper ones that follow it as its children.
func tocNest(hs []markdown.Heading, i *int, parent int) []tocEntry {
	var list []tocEntry
	for *i < len(hs) && hs[*i].Level > parent {
		h := hs[*i]
		*i++
		list = append(list, tocEntry{ID: h.ID, Text: h.Text, Children: tocNest(hs, i, h.Level)})
	}
	return list
}

// sortArticles orders the index's list: by front-matter order (pages
// without one, order 0, after those with one), then date, then title.
func sortArticles(as []*article) {
	sort.SliceStable(as, func(i, j int) bool {
		a, b := as[i], as[j]
		if a.Order != b.Order {
			if a.Order == 0 || b.Order == 0 {
				return b.Order == 0
			}
			return a.Order < b.Order
		}
		if !a.Date.Equal(b.Date) {
			return a.Date.Before(b.Date)
		}
		return a.Title < b.Title
	})
}

// renderSite writes every page, an embed page for every widget and
// 404.html into dir, on up to workers goroutines at once (forEach), and
// returns how many HTML files it wrote. The embed snippets in the pages
// name origin.
func renderSite(dir, templates string, as *assets, sc *siteContent, origin string, workers int) (int, error) {
	pages := sc.Articles
	layouts, err := loadTemplates(templates, template.FuncMap{"asset": as.url})
	if err != nil {
		return 0, err
	}
	var index *article
	var list []*article
	for _, p := range pages {
		if p.URL == "/" {
			index = p
		} else {
			list = append(list, p)
		}
	}
	if index == nil {
		return 0, errors.New("content: no index.md for the home page")
	}
	sortArticles(list)
	for i, a := range list {
		a.Number = i + 1
	}

	var errs []error
	// The pages are listed first and rendered together at the end.
	type page struct {
		file, layout string
		d            *pageData
	}
	var queue []page
	write := func(file, layout string, d *pageData) {
		queue = append(queue, page{file, layout, d})
	}
	for _, p := range pages {
		d := articleData(p, origin)
		if i := p.Number - 1; i >= 0 {
			if i > 0 {
				d.Prev = &link{URL: list[i-1].URL, Title: list[i-1].Title}
			}
			if i+1 < len(list) {
				d.Next = &link{URL: list[i+1].URL, Title: list[i+1].Title}
			}
		}
		layout := "article"
		if p == index {
			layout = "index"
			d.Index = true
			d.Articles = list
			d.Groups = levelGroups(list)
			d.DocTitle = p.Title
			if p.Title != siteName {
				d.DocTitle = siteName + ": " + p.Title
			}
		}
		write(p.File, layout, d)
	}
	guide := articleData(sc.Guide, origin)
	guide.Unindexed = true
	write(sc.Guide.File, "article", guide)
	for _, w := range widget.All() {
		d, err := embedPage(w, pages, origin)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		write(embedDir+"/"+w.Name+"/index.html", "embed", d)
	}
	write(notFoundFile, "404", &pageData{
		SiteName:    siteName,
		Title:       "Page not found",
		DocTitle:    "Page not found · " + siteName,
		Description: siteDescription,
		NotFound:    true,
	})
	write(searchDir+"/index.html", "search", &pageData{
		SiteName:    siteName,
		Title:       "Search",
		DocTitle:    "Search · " + siteName,
		Description: "Search every article and simulator of " + siteName + ".",
		URL:         "/search/",
		Search:      true,
		Canonical:   origin + "/search/",
	})
	write(playgroundDir+"/index.html", "playground", playgroundPage(sc.Example, sc.Links, origin))
	failed := make([]error, len(queue))
	forEach(len(queue), workers, func(i int) {
		failed[i] = renderPage(dir, layouts, queue[i].file, queue[i].layout, queue[i].d)
	})
	n := 0
	for _, err := range failed {
		if err != nil {
			errs = append(errs, err)
		} else {
			n++
		}
	}
	for _, f := range []struct {
		name string
		data func() ([]byte, error)
	}{
		{sitemapFile, func() ([]byte, error) { return sitemap(origin, index, list) }},
		{feedFile, func() ([]byte, error) { return atomFeed(origin, index, list) }},
	} {
		data, err := f.data()
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, f.name), data, 0o644)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("writing %s: %w", f.name, err))
		}
	}
	return n, errors.Join(errs...)
}

// renderPage executes layout with d and writes the page to dir/file.
func renderPage(dir string, layouts map[string]*template.Template, file, layout string, d *pageData) error {
	var buf bytes.Buffer
	if err := layouts[layout].ExecuteTemplate(&buf, entryTemplate(layout), d); err != nil {
		return fmt.Errorf("rendering %s with %s.html: %w", file, layout, err)
	}
	dst := filepath.Join(dir, filepath.FromSlash(file))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, buf.Bytes(), 0o644)
}

// articleData is what page p of markdown is rendered with; the home
// page and the articles in handbook order add to it.
func articleData(p *article, origin string) *pageData {
	d := &pageData{
		SiteName:    siteName,
		Title:       p.Title,
		DocTitle:    p.Title + " · " + siteName,
		Description: p.Description,
		URL:         p.URL,
		Date:        p.Date,
		Level:       p.Level,
		Body:        template.HTML(p.HTML),
		Widgets:     p.Widgets,
		Canonical:   origin + p.URL,
		Minutes:     p.Minutes,
	}
	if d.Description == "" {
		d.Description = siteDescription
	}
	if len(p.TOC) >= 2 {
		d.TOC = tocTree(p.TOC)
	}
	return d
}

// embedPage is the page of /embed/NAME/: w alone, at its defaults (the
// page's module applies the query), crediting the article that explains
// it when the site has it, else the home page.
func embedPage(w *widget.Widget, pages []*article, origin string) (*pageData, error) {
	credit := link{URL: "/"}
	// The widget's permalink opens the chapter in the embed's state: its
	// first widget of this name has the embed's id. A site without that
	// chapter, or a chapter without that widget, leaves the link naming
	// the embed page's own state.
	at := widget.Place{ID: widget.ID(w.Name, 1), Origin: origin}
	for _, p := range pages {
		if p.URL == w.Chapter {
			credit = link{URL: p.URL, Title: p.Title}
			if slices.Contains(p.Widgets, w.Name) {
				at.Article = p.URL
			}
		}
	}
	var h widget.HTML
	if err := widget.Render(&h, w, w.Schema.Defaults(), at); err != nil {
		return nil, fmt.Errorf("embed page of widget %s: %w", w.Name, err)
	}
	return &pageData{
		SiteName:    siteName,
		Title:       w.Title,
		DocTitle:    w.Title + " · " + siteName,
		Description: w.Summary,
		URL:         "/embed/" + w.Name + "/",
		Body:        template.HTML(h.String()),
		Widgets:     []string{w.Name},
		Credit:      credit,
	}, nil
}

// layoutNames are the page templates in site/templates; each is parsed
// together with base.html, which defines "base", the document, calling
// the page's "main", and "head", the document's head.
var layoutNames = []string{"article", "index", "404", "search", "embed", "playground"}

// entryTemplate is the template a layout's pages are executed from:
// "base", but for embed pages, which are a document of their own.
func entryTemplate(layout string) string {
	if layout == "embed" {
		return "embed-page"
	}
	return "base"
}

// loadTemplates parses the layouts from disk (on every build, so `serve`
// picks up edits).
func loadTemplates(dir string, funcs template.FuncMap) (map[string]*template.Template, error) {
	out := map[string]*template.Template{}
	for _, name := range layoutNames {
		t, err := template.New(name).Funcs(funcs).ParseFiles(
			filepath.Join(dir, "base.html"),
			filepath.Join(dir, name+".html"),
		)
		if err != nil {
			return nil, err
		}
		if entry := entryTemplate(name); t.Lookup(entry) == nil {
			return nil, fmt.Errorf("%s and %s: no {{define %q}}", filepath.Join(dir, "base.html"), filepath.Join(dir, name+".html"), entry)
		}
		out[name] = t
	}
	return out, nil
}

// replaceDirAside replaces out by tmp with two renames: out aside to a
// fresh name next to it, then tmp to out; if the second rename fails, the
// first is undone. It returns where the previous tree now is ("" when out
// did not exist).
func replaceDirAside(tmp, out string) (string, error) {
	if _, err := os.Lstat(out); errors.Is(err, fs.ErrNotExist) {
		return "", os.Rename(tmp, out)
	}
	// MkdirTemp picks a fresh name; the folder goes again so that out can
	// take the name (Windows cannot rename onto a folder).
	aside, err := os.MkdirTemp(filepath.Dir(out), filepath.Base(out)+".old-*")
	if err != nil {
		return "", err
	}
	if err := os.Remove(aside); err != nil {
		return "", err
	}
	if err := os.Rename(out, aside); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, out); err != nil {
		if undo := os.Rename(aside, out); undo != nil {
			return "", errors.Join(err, undo)
		}
		return "", err
	}
	return aside, nil
}
