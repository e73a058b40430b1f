package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/retrylab/retrylab/internal/precompress"
	"github.com/retrylab/retrylab/site/markdown"
	"github.com/retrylab/retrylab/site/widget"
)

// TestBuildRealSite builds content/ and checks what the pages and the
// browser rely on.
func TestBuildRealSite(t *testing.T) {
	out := productionSite(t)
	root := repoRoot(t)

	// Every article is a page: index.md at /, NAME.md at /NAME/.
	mds, _ := filepath.Glob(filepath.Join(root, "content", "*.md"))
	if len(mds) < 2 {
		t.Fatalf("content/ has %d articles; the site needs index.md and at least one more", len(mds))
	}
	for _, md := range mds {
		slug := strings.TrimSuffix(filepath.Base(md), ".md")
		want := filepath.Join(out, slug, "index.html")
		if slug == "index" {
			want = filepath.Join(out, "index.html")
		}
		if _, err := os.Stat(want); err != nil {
			t.Errorf("%s: no page: %v", filepath.Base(md), err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "404.html")); err != nil {
		t.Error(err)
	}

	// Every file under static/ carries the hash of its content in its name.
	hashed := regexp.MustCompile(`\.([0-9a-f]{8})\.[a-z0-9]+$`)
	statics := map[string]bool{}
	walkFiles(t, filepath.Join(out, staticDir), func(p string, data []byte) {
		if ext := filepath.Ext(p); ext == ".br" || ext == ".gz" {
			return
		}
		m := hashed.FindStringSubmatch(filepath.Base(p))
		sum := sha256.Sum256(data)
		if m == nil || m[1] != hex.EncodeToString(sum[:])[:hashLen] {
			t.Errorf("%s: the name does not carry the content's hash", p)
		}
		statics[filepath.Base(p)] = true
	})
	for _, logical := range []string{"style.css", "widget.css", "noscript.css", "loader.js", "favicon.svg",
		"highlight.css", "wasm_exec.js", "retrylab.wasm"} {
		stem, ext, _ := strings.Cut(logical, ".")
		found := false
		for name := range statics {
			found = found || (strings.HasPrefix(name, stem+".") && strings.HasSuffix(name, "."+ext))
		}
		if !found {
			t.Errorf("no hashed %s in static/ (have %v)", logical, keys(statics))
		}
	}

	// Each module, the handbook's and the playground's, has .br and .gz
	// siblings that decompress to it; no other file has any (the local
	// servers compress them when asked).
	withSiblings := 0
	walkFiles(t, out, func(p string, data []byte) {
		if ext := filepath.Ext(p); (ext == ".br" || ext == ".gz") && !precompressed[filepath.Ext(strings.TrimSuffix(p, ext))] {
			t.Errorf("%s: a compressed copy of a file the servers compress themselves", p)
		}
		if !precompressed[filepath.Ext(p)] {
			return
		}
		withSiblings++
		for _, enc := range []struct {
			suffix string
			open   func(io.Reader) (io.Reader, error)
		}{
			{".br", func(r io.Reader) (io.Reader, error) { return brotli.NewReader(r), nil }},
			{".gz", func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) }},
		} {
			packed, err := os.ReadFile(p + enc.suffix)
			if err != nil {
				t.Errorf("%s: %v", p, err)
				continue
			}
			r, err := enc.open(bytes.NewReader(packed))
			if err != nil {
				t.Errorf("%s%s: %v", p, enc.suffix, err)
				continue
			}
			got, err := io.ReadAll(r)
			if err != nil || !bytes.Equal(got, data) {
				t.Errorf("%s%s does not decompress to the original (%v)", p, enc.suffix, err)
			}
			if len(data) > 4096 && len(packed) >= len(data) {
				t.Errorf("%s%s is %d bytes for %d: not compressed", p, enc.suffix, len(packed), len(data))
			}
		}
	})
	if withSiblings != len(modules) {
		t.Errorf("%d modules with compressed siblings, want %d", withSiblings, len(modules))
	}

	// The layout loads the hashed assets: stylesheets, the icon, the loader
	// with the module's and wasm_exec.js's URLs, and noscript.css inside
	// <noscript>.
	index := readFile(t, filepath.Join(out, "index.html"))
	for _, re := range []string{
		`<link rel="stylesheet" href="/static/style\.[0-9a-f]{8}\.css">`,
		`<link rel="stylesheet" href="/static/widget\.[0-9a-f]{8}\.css">`,
		`<link rel="stylesheet" href="/static/highlight\.[0-9a-f]{8}\.css">`,
		`<noscript><link rel="stylesheet" href="/static/noscript\.[0-9a-f]{8}\.css"></noscript>`,
		`<script src="/static/loader\.[0-9a-f]{8}\.js" data-wasm="/static/retrylab\.[0-9a-f]{8}\.wasm" data-exec="/static/wasm_exec\.[0-9a-f]{8}\.js" data-worker="/static/simworker\.[0-9a-f]{8}\.js" defer></script>`,
	} {
		if !regexp.MustCompile(re).MatchString(index) {
			t.Errorf("index.html has no match for %s", re)
		}
	}

	// Every page: every local URL it names exists; no inline script or
	// style (the CSP forbids both); the accessibility basics.
	ref := regexp.MustCompile(`(?:href|src|data-wasm|data-exec)="(/[^"#?]*)`)
	scriptTag := regexp.MustCompile(`(?is)<script\b([^>]*)>(.*?)</script>`)
	styleAttr := regexp.MustCompile(`(?i)<[a-z][^>]*\sstyle\s*=`)
	handler := regexp.MustCompile(`(?i)<[a-z][^>]*\son[a-z]+\s*=`)
	pages := 0
	walkFiles(t, out, func(p string, data []byte) {
		if filepath.Ext(p) != ".html" {
			return
		}
		pages++
		page := string(data)
		rel, _ := filepath.Rel(out, p)
		for _, m := range ref.FindAllStringSubmatch(page, -1) {
			target := filepath.Join(out, filepath.FromSlash(m[1]))
			if strings.HasSuffix(m[1], "/") {
				target = filepath.Join(target, "index.html")
			}
			if _, err := os.Stat(target); err != nil {
				t.Errorf("%s links to %s, which the build did not write", rel, m[1])
			}
		}
		for _, m := range scriptTag.FindAllStringSubmatch(page, -1) {
			if !strings.Contains(m[1], "src=") || strings.TrimSpace(m[2]) != "" {
				t.Errorf("%s has an inline script: %.80s", rel, m[0])
			}
		}
		if m := styleAttr.FindString(page); m != "" {
			t.Errorf("%s has a style attribute: %.80s", rel, m)
		}
		if strings.Contains(strings.ToLower(page), "<style") {
			t.Errorf("%s has a <style> element", rel)
		}
		if m := handler.FindString(page); m != "" {
			t.Errorf("%s has an inline event handler: %.80s", rel, m)
		}
		basics := []string{`<html lang="en">`, `<meta name="viewport"`, `<meta name="description" content="`,
			`<a class="skip-link" href="#main">`, `<main id="main"`, `<header`, `<footer`}
		if strings.HasPrefix(filepath.ToSlash(rel), "embed/") {
			// The widget is the whole page: no site header to skip.
			basics = []string{`<html lang="en" class="embed" data-embed>`, `<meta name="viewport"`,
				`<meta name="description" content="`, `<main id="main"`, `<footer`}
		}
		for _, want := range basics {
			if !strings.Contains(page, want) {
				t.Errorf("%s lacks %s", rel, want)
			}
		}
		if n := strings.Count(page, "<h1"); n != 1 {
			t.Errorf("%s has %d h1 elements, want 1", rel, n)
		}
	})
	// The articles, the home page, an embed page per widget, 404.html,
	// the search page, the authors' guide and the playground.
	if want := len(mds) + len(widget.All()) + 4; pages != want {
		t.Errorf("%d pages, want %d", pages, want)
	}

	// The home page lists every other article, linked.
	for _, md := range mds {
		slug := strings.TrimSuffix(filepath.Base(md), ".md")
		if slug != "index" && !strings.Contains(index, `href="/`+slug+`/"`) {
			t.Errorf("the home page does not link to /%s/", slug)
		}
	}
}

// TestBuildFailure: a misspelled widget fails the build with file:line
// errors for every bad file, and the previous output stays as it was.
func TestBuildFailure(t *testing.T) {
	root := repoRoot(t)
	parent := t.TempDir()
	content := filepath.Join(parent, "content")
	out := filepath.Join(parent, "public")
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(content, "index.md"), "---\ntitle: Home\n---\n\nHello.\n")
	// Line 7 holds the fence of the misspelled widget.
	write(filepath.Join(content, "bad.md"), "---\ntitle: Bad\n---\n\nSome text.\n\n```widget paymnt\nkeys: off\n```\n")
	// Line 5; a second file, so both errors must be reported.
	write(filepath.Join(content, "worse.md"), "---\ntitle: Worse\n---\n\n```widget pament\n```\n")

	// The previous build: files and a folder that must not change.
	write(filepath.Join(out, "index.html"), "<!doctype html><title>old</title>")
	write(filepath.Join(out, "static", "style.0123abcd.css"), "body{}")
	write(filepath.Join(out, "static", "style.0123abcd.css.br"), "not really brotli")
	before := snapshot(t, out)
	outInfo, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}

	_, err = build(context.Background(), buildConfig{Root: root, Content: content, Out: out})
	if err == nil {
		t.Fatal("the build succeeded with misspelled widgets")
	}
	msg := err.Error()
	for _, want := range []string{
		filepath.Join(content, "bad.md") + `:7: widget "paymnt": unknown widget (did you mean payment? known: `,
		filepath.Join(content, "worse.md") + `:5: widget "pament": unknown widget (did you mean payment? known: `,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error lacks %q:\n%s", want, msg)
		}
	}

	if after := snapshot(t, out); !equalSnapshots(before, after) {
		t.Errorf("the previous output changed:\nbefore %v\nafter  %v", before, after)
	}
	if info, err := os.Stat(out); err != nil || !os.SameFile(info, outInfo) {
		t.Errorf("the output folder was replaced (%v)", err)
	}
	entries, _ := os.ReadDir(parent)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "content public" {
		t.Errorf("left in %s: %v, want only content and public", parent, names)
	}
}

// TestReplaceDir: the new tree takes the output's name, and the previous
// tree is handed back for removal, with the atomic exchange and with the
// two-rename fallback.
func TestReplaceDir(t *testing.T) {
	for _, name := range []string{"exchange", "aside"} {
		t.Run(name, func(t *testing.T) {
			parent := t.TempDir()
			out := filepath.Join(parent, "public")
			tmp := filepath.Join(parent, "public.build-1")
			for dir, file := range map[string]string{out: "old.txt", tmp: "new.txt"} {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, file), []byte(file), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			replace := replaceDir
			if name == "aside" {
				replace = replaceDirAside
			}
			old, err := replace(tmp, out)
			if err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, filepath.Join(out, "new.txt")); got != "new.txt" {
				t.Errorf("out holds %q", got)
			}
			if got := readFile(t, filepath.Join(old, "old.txt")); got != "old.txt" {
				t.Errorf("the previous tree at %s holds %q", old, got)
			}
			// With nothing at out, the tree simply moves there.
			out2 := filepath.Join(parent, "fresh")
			if old, err := replace(out, out2); err != nil || old != "" {
				t.Errorf("replace onto nothing: old %q, err %v", old, err)
			}
		})
	}
}

func TestHashedName(t *testing.T) {
	data := []byte("body{}")
	sum := sha256.Sum256(data)
	h := hex.EncodeToString(sum[:])[:8]
	for name, want := range map[string]string{
		"style.css":       "style." + h + ".css",
		"js/app.min.js":   "js/app.min." + h + ".js",
		"LICENSE":         "LICENSE." + h,
		"dir.v2/noext":    "dir.v2/noext." + h,
		"retrylab.wasm":   "retrylab." + h + ".wasm",
		"wasm_exec.js":    "wasm_exec." + h + ".js",
		".hidden":         ".hidden." + h,
		"highlight.css":   "highlight." + h + ".css",
		"a/b/favicon.ico": "a/b/favicon." + h + ".ico",
	} {
		if got := hashedName(name, data); got != want {
			t.Errorf("hashedName(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestCompressTreeReuses: the module's siblings from the previous build are
// taken as they are (the same hashed name means the same content), a new
// module's are made, and no other file gets any.
func TestCompressTreeReuses(t *testing.T) {
	dir, prev := t.TempDir(), t.TempDir()
	big := bytes.Repeat([]byte("retry with the same key; "), 2000) // 50,000 bytes
	files := map[string][]byte{
		"index.html":                 []byte("<!doctype html><p>hello hello hello</p>"),
		"static/app.0123abcd.js":     big,
		"static/old.0123abcd.wasm":   big,
		"static/new.89abcdef.wasm":   big,
		"static/huge.76543210.wasm":  bytes.Repeat(big, 21), // 1,050,000 bytes > quickLimit
		"static/photo.01234567.png":  big,
		"static/style.fedcba98.css":  big,
		"embed/payment/index.html":   big,
		"pagefind/pagefind-ui.json":  big,
		"static/other.00000000.wasm": nil, // empty, still a module
	}
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The previous build has the siblings of old.wasm, and one of
	// index.html, which must not come back; and a .gz of new.wasm made at
	// gzip's best level, not the one used now, which is made again.
	gzipAt := func(level int, s string) []byte {
		var b bytes.Buffer
		w, _ := gzip.NewWriterLevel(&b, level)
		w.Write([]byte(s))
		w.Close()
		return b.Bytes()
	}
	previous := map[string][]byte{
		"static/old.0123abcd.wasm.br": []byte("previous static/old.0123abcd.wasm.br"),
		"static/old.0123abcd.wasm.gz": gzipAt(precompress.GzipLevel, "previous static/old.0123abcd.wasm.gz"),
		"index.html.br":               []byte("previous index.html.br"),
		"static/new.89abcdef.wasm.gz": gzipAt(gzip.BestCompression, "previous static/new.89abcdef.wasm.gz"),
	}
	for name, data := range previous {
		p := filepath.Join(prev, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	stats, err := compressTree(context.Background(), dir, prev, nil, true, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(dir, "static/old.0123abcd.wasm.br")); got != "previous static/old.0123abcd.wasm.br" {
		t.Errorf("old.wasm.br was not reused: %.40q", got)
	}
	want := map[string]bool{
		"static/old.0123abcd.wasm.br": true, "static/old.0123abcd.wasm.gz": true,
		"static/new.89abcdef.wasm.br": true, "static/new.89abcdef.wasm.gz": true,
		// quick: the module over quickLimit gets its .gz but no new .br.
		"static/huge.76543210.wasm.gz":  true,
		"static/other.00000000.wasm.br": true, "static/other.00000000.wasm.gz": true,
	}
	got := map[string]bool{}
	walkFiles(t, dir, func(p string, _ []byte) {
		if ext := filepath.Ext(p); ext == ".br" || ext == ".gz" {
			rel, _ := filepath.Rel(dir, p)
			got[filepath.ToSlash(rel)] = true
		}
	})
	for name := range want {
		if !got[name] {
			t.Errorf("missing %s", name)
		}
	}
	for name := range got {
		if !want[name] {
			t.Errorf("%s was written", name)
		}
	}
	if stats.Files != len(want) || stats.Reused != 2 {
		t.Errorf("stats %+v, want %d files, 2 reused", stats, len(want))
	}
	if got := readFile(t, filepath.Join(dir, "static/old.0123abcd.wasm.gz")); got != string(previous["static/old.0123abcd.wasm.gz"]) {
		t.Error("old.wasm.gz, made at the level used now, was not reused")
	}
	zr, err := gzip.NewReader(bytes.NewReader([]byte(readFile(t, filepath.Join(dir, "static/new.89abcdef.wasm.gz")))))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(zr); err != nil || !bytes.Equal(got, big) {
		t.Errorf("new.wasm.gz: %.40q (%v), want new.wasm compressed anew, not the previous build's copy made at another level", got, err)
	}
}

func TestTOCTree(t *testing.T) {
	hs := []markdown.Heading{
		{Level: 2, ID: "a", Text: "A"},
		{Level: 3, ID: "a1", Text: "A1"},
		{Level: 3, ID: "a2", Text: "A2"},
		{Level: 2, ID: "b", Text: "B"},
		{Level: 2, ID: "c", Text: "C"},
		{Level: 3, ID: "c1", Text: "C1"},
	}
	got := tocString(tocTree(hs))
	if want := "a(a1 a2) b c(c1)"; got != want {
		t.Errorf("tocTree = %s, want %s", got, want)
	}
	// A page that starts at h3 keeps those at the top level.
	got = tocString(tocTree([]markdown.Heading{{Level: 3, ID: "x"}, {Level: 2, ID: "y"}, {Level: 3, ID: "z"}}))
	if want := "x y(z)"; got != want {
		t.Errorf("tocTree = %s, want %s", got, want)
	}
}

func tocString(es []tocEntry) string {
	var parts []string
	for _, e := range es {
		s := e.ID
		if len(e.Children) > 0 {
			s += "(" + tocString(e.Children) + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

func TestSortArticles(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 11, d, 0, 0, 0, 0, time.UTC) }
	art := func(title string, order int, date time.Time) *article {
		return &article{Page: &markdown.Page{Title: title, Order: order, Date: date}}
	}
	as := []*article{
		art("unordered", 0, day(1)),
		art("second", 2, day(1)),
		art("first-b", 1, day(5)),
		art("first-a", 1, day(3)),
		art("same-day-z", 3, day(9)),
		art("same-day-a", 3, day(9)),
	}
	sortArticles(as)
	var got []string
	for _, a := range as {
		got = append(got, a.Title)
	}
	want := "first-a first-b second same-day-a same-day-z unordered"
	if strings.Join(got, " ") != want {
		t.Errorf("order %v, want %s", got, want)
	}
}

// walkFiles calls fn with every regular file under dir and its content.
func walkFiles(t *testing.T, dir string, fn func(path string, data []byte)) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fn(p, data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func readFile(t testing.TB, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// snapshot records every entry under dir: path, mode, size, mtime and
// content.
func snapshot(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		line := p + " " + info.Mode().String() + " " + info.ModTime().String()
		if !d.IsDir() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			line += " " + string(data)
		}
		out = append(out, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func equalSnapshots(a, b []string) bool {
	return strings.Join(a, "\n") == strings.Join(b, "\n")
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
