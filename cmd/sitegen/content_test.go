package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/site/markdown"
	"github.com/retrylab/retrylab/site/widget"
)

// writeFiles writes files (path relative to dir -> text) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Each mistake an author can make fails the build with the file, the line
// and what to do, and leaves the previous site as it was.
func TestBuildRefusesBrokenPages(t *testing.T) {
	const fm = "---\ntitle: T\n---\n\n" // the text starts on line 5
	base := map[string]string{
		"index.md":         fm + "Home.\n",
		"double-charge.md": fm + "## The lost response\n\nText.\n",
	}
	for _, c := range []struct {
		name  string
		files map[string]string
		want  []string // "file:line: message", the file relative to content/
	}{
		{"a page that does not exist",
			map[string]string{"x.md": fm + "See [the charge](/double-charg/).\n"},
			[]string{`x.md:5: link to /double-charg/: no such page (did you mean /double-charge/?)`}},
		{"an anchor that does not exist",
			map[string]string{"x.md": fm + "Text.\n\nSee [it](/double-charge/#nope) or [here](#lots).\n\n## Lost\n"},
			[]string{
				`x.md:7: link to /double-charge/#nope: /double-charge/ has no section or widget with the id "nope"`,
				`x.md:7: link to #lots: /x/ has no section or widget with the id "lots" (did you mean #lost?)`,
			}},
		{"a link to a file rather than its page",
			map[string]string{"x.md": fm + "See [it](double-charge.md).\n"},
			[]string{`x.md:5: link to double-charge.md: no such page (link to the page, /double-charge/, not to its file)`}},
		{"an image that does not exist",
			map[string]string{"x.md": fm + "![A flow](/images/flow.svg)\n", "images/other.png": "png"},
			[]string{`x.md:5: image /images/flow.svg: no such file (images go in content/images/, written /images/NAME)`}},
		{"an image from another site",
			map[string]string{"x.md": fm + "Text\n![A flow](https://example.com/flow.svg)\n"},
			[]string{`x.md:6: image https://example.com/flow.svg: the Content-Security-Policy (img-src in netlify.toml) blocks images from other sites: save the file in content/images/ and write /images/NAME`}},
		{"a code fence never closed",
			map[string]string{"x.md": fm + "Text.\n\n```go\nfunc main() {}\n\n## Later\n"},
			[]string{"x.md:7: the code fence opened here (\"```go\") is never closed: end the block with a line of ```"}},
		{"a file that is not UTF-8",
			map[string]string{"x.md": fm + "Un caf\xe9.\n"},
			[]string{`x.md:5: byte 0xe9 at column 7 is not UTF-8 text: save the file as UTF-8`}},
		{"the name of the embed pages",
			map[string]string{"embed.md": fm + "Text.\n"},
			[]string{`embed.md:1: the name "embed" is taken: /embed is where the widgets' embed pages are, which any site may frame: rename the file`}},
		{"the name of the hashed assets",
			map[string]string{"Static.md": fm + "Text.\n"},
			[]string{`Static.md:1: the name "Static" is taken: /static is the site's hashed assets, cached for a year: rename the file`}},
		{"a name a header rule of netlify.toml covers",
			map[string]string{"embedded.md": fm + "Text.\n"},
			[]string{`embedded.md:1: the page /embedded/ would be served with the headers netlify.toml sets for /embed/* (Content-Security-Policy): rename the file`}},
		{"the name of a file of site/root",
			map[string]string{"embed.js.md": fm + "Text.\n"},
			[]string{`embed.js.md:1: the name "embed.js" is taken: /embed.js is a file of site/root/ that other sites load by its name: rename the file`}},
		{"two names that differ by case",
			map[string]string{"Retries.md": fm + "Text.\n", "retries.md": fm + "Text.\n"},
			[]string{`retries.md:1: the same name as ` + "CONTENT/" + `Retries.md when case is ignored: the two pages would be one on macOS and Windows: rename one`}},
		{"an article in a sub-folder",
			map[string]string{"guides/x.md": fm + "Text.\n"},
			[]string{`guides/x.md:1: a file in a sub-folder of content/, which the build does not read: articles are content/NAME.md, served at /NAME/, and images go in content/images/`}},
		{"a .markdown file",
			map[string]string{"notes.markdown": fm + "Text.\n"},
			[]string{`notes.markdown:1: the build reads only .md files: rename it to notes.md`}},
		{"a file that is no article",
			map[string]string{"notes.txt": "Text.\n", "flow.svg": "<svg/>", "images/notes.txt": "x"},
			[]string{
				`flow.svg:1: an image outside content/images/: move it there and write /images/flow.svg`,
				`images/notes.txt:1: not an image: content/images/ holds the images of the articles (.avif, .gif, .jpeg, .jpg, .png, .svg, .webp)`,
				`notes.txt:1: not an article: content/ holds articles (NAME.md) and, in content/images/, their images`,
			}},
		{"every kind of problem at once",
			map[string]string{"notes.markdown": fm + "Text.\n", "static.md": fm + "Text.\n", "x.md": fm + "```widget paymnt\n```\n"},
			[]string{
				`notes.markdown:1: the build reads only .md files: rename it to notes.md`,
				`static.md:1: the name "static" is taken: /static is the site's hashed assets, cached for a year: rename the file`,
				`x.md:5: widget "paymnt": unknown widget (did you mean payment? known: ` + strings.Join(widget.Names(), ", ") + `)`,
			}},
		{"every error of every file at once, in file and line order, and none that follows from another",
			map[string]string{
				"x.md": fm + "```widget payment\n```\n\n" + // 5-6
					"Set [it](widget:payment-1?keys=of) and see [there](/nope/).\n\n" + // 8
					"```widget paymnet\n```\n\n" + // 10-11
					"[The second](widget:payment-2) and [the section](/y/#later).\n", // 13
				"y.md": "---\ntitle: Retries: x\nlevel: expret\n---\n\n## Later\n\nSee [x](/x/#nope).\n",
			},
			[]string{
				`x.md:8: widget link payment-1: keys: "of" is not allowed (did you mean off? allowed: off, per-intent, per-attempt)`,
				`x.md:8: link to /nope/: no such page`,
				`x.md:10: widget "paymnet": unknown widget (did you mean payment? known: ` + strings.Join(widget.Names(), ", ") + `)`,
				`y.md:2: front matter: the value of title holds a colon and a space, which YAML reads as the start of another field: put the whole value in double quotes: title: "Retries: x"`,
				`y.md:3: front matter: level: "expret" is not allowed (did you mean expert? allowed: beginner, intermediate, expert)`,
			}},
		{"a colon in a title",
			map[string]string{"x.md": "---\ntitle: Retries: x\n---\n"},
			[]string{`x.md:2: front matter: the value of title holds a colon and a space, which YAML reads as the start of another field: put the whole value in double quotes: title: "Retries: x"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			parent := t.TempDir()
			content := filepath.Join(parent, "content")
			out := filepath.Join(parent, "public")
			writeFiles(t, content, base)
			writeFiles(t, content, c.files)
			writeFiles(t, out, map[string]string{"index.html": "<!doctype html><title>old</title>", "static/style.0123abcd.css": "body{}"})
			before := snapshot(t, out)
			outInfo, err := os.Stat(out)
			if err != nil {
				t.Fatal(err)
			}

			_, err = build(context.Background(), buildConfig{Root: repoRoot(t), Content: content, Out: out, Quick: true})
			if err == nil {
				t.Fatal("the build succeeded")
			}
			lines := strings.Split(err.Error(), "\n")
			var want []string
			for _, w := range c.want {
				w = strings.ReplaceAll(w, "CONTENT/", content+string(filepath.Separator))
				want = append(want, content+string(filepath.Separator)+filepath.FromSlash(w[:strings.Index(w, ":")])+w[strings.Index(w, ":"):])
			}
			if !slices.Equal(lines, want) {
				t.Errorf("the build says:\n%s\nwant:\n%s", err, strings.Join(want, "\n"))
			}
			if after := snapshot(t, out); !equalSnapshots(before, after) {
				t.Errorf("the previous output changed:\nbefore %v\nafter  %v", before, after)
			}
			if info, err := os.Stat(out); err != nil || !os.SameFile(info, outInfo) {
				t.Errorf("the output folder was replaced (%v)", err)
			}
			if entries, _ := os.ReadDir(parent); len(entries) != 2 {
				t.Errorf("left in %s: %v, want only content and public", parent, entries)
			}
		})
	}
}

// What a well-made article may hold passes: links to pages with and
// without the slash, to their sections and widgets, relative ones, other
// sites' pages, and images of content/images/, which are listed for
// copying.
func TestReadContentAcceptsGoodLinks(t *testing.T) {
	const fm = "---\ntitle: T\n---\n\n"
	content := filepath.Join(t.TempDir(), "content")
	writeFiles(t, content, map[string]string{
		"index.md":         fm + "[Start](/double-charge/) or [the feed](/feed.xml).\n",
		"double-charge.md": fm + "## The lost response\n\n```widget payment\n```\n",
		"x.md": fm + "[a](/double-charge) [b](/double-charge/#the-lost-response) [c](../double-charge/#w-payment-1)\n" +
			"[d](#here) [e](https://example.com/#x) [f](mailto:a@example.com) [g](/embed/payment/) [h](/search/)\n" +
			"![A flow](/images/flow.svg) ![A dot](data:image/gif;base64,R0lGODlhAQABAAAAACw=)\n\n## Here\n",
		"images/flow.svg": "<svg xmlns=\"http://www.w3.org/2000/svg\"/>",
	})
	sc, err := readContent(repoRoot(t), content, defaultOrigin, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := sc.Images["/images/flow.svg"]; got != filepath.Join(content, "images", "flow.svg") {
		t.Errorf("Images = %v, want /images/flow.svg from content/images/flow.svg", sc.Images)
	}
	out := t.TempDir()
	if err := copyImages(sc.Images, out); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(out, "images", "flow.svg")); !strings.HasPrefix(got, "<svg") {
		t.Errorf("copied image: %q", got)
	}
}

// Every name the real build writes at the top of the site, but for the
// articles', is reserved, so that no article can take it.
func TestReservedNamesCoverTheBuild(t *testing.T) {
	dir := builtSite(t)
	root := repoRoot(t)
	reserved, err := reservedNames(root)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := listContent(root, filepath.Join(root, "content"))
	if err != nil {
		t.Fatal(err)
	}
	articles := map[string]bool{}
	for _, f := range cf.Articles {
		articles[strings.TrimSuffix(filepath.Base(f), ".md")] = true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := strings.TrimSuffix(strings.TrimSuffix(e.Name(), ".br"), ".gz")
		if _, ok := reserved[strings.ToLower(name)]; !ok && !articles[name] {
			t.Errorf("the build writes %s at the top of the site, which reservedNames lacks: an article could take the name", e.Name())
		}
	}
}

// A build lists its errors in file and line order, at most maxErrors of
// them, and says how many more there are.
func TestSourceErrorsSortedAndCapped(t *testing.T) {
	var errs []error
	for i := maxErrors + 5; i > 0; i-- {
		errs = append(errs, &markdown.SourceError{Path: "content/b.md", Line: i, Err: errors.New("bad")})
	}
	errs = append(errs, nil, errors.New("content/a.md:3: refused"), errors.Join(errors.New("content/a.md:1: first")))
	lines := strings.Split(sourceErrors(errs).Error(), "\n")
	if len(lines) != maxErrors+1 {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), maxErrors+1, strings.Join(lines, "\n"))
	}
	if lines[0] != "content/a.md:1: first" || lines[1] != "content/a.md:3: refused" || lines[2] != "content/b.md:1: bad" {
		t.Errorf("not in file and line order: %q", lines[:3])
	}
	if want := "content/b.md:38: bad"; lines[maxErrors-1] != want {
		t.Errorf("the last listed is %q, want %q", lines[maxErrors-1], want)
	}
	if want := "and 7 more errors, not listed: fix these first"; lines[maxErrors] != want {
		t.Errorf("the last line is %q, want %q", lines[maxErrors], want)
	}
	if sourceErrors([]error{nil, nil}) != nil {
		t.Error("no errors make an error")
	}
}
