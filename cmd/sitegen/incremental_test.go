package main

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIncrementalBuild edits an article's title and text, rebuilds with the
// cache a previous build left (as serve does after a markdown edit), and
// compares every file of the result, the compressed siblings and the
// search index included, with a full build of the same sources. Then it
// removes an article that others link to: the rebuild must fail on those
// links, leaving the site as it was.
func TestIncrementalBuild(t *testing.T) {
	root := repoRoot(t)
	dir := t.TempDir()
	content := filepath.Join(dir, "content")
	if err := os.CopyFS(content, os.DirFS(filepath.Join(root, "content"))); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cfg := buildConfig{Root: root, Content: content, Out: filepath.Join(dir, "public"), Quick: true, Cache: &buildCache{}}
	if _, err := build(ctx, cfg); err != nil {
		t.Fatal(err)
	}

	// A new title changes the article, the pages that list it (the home
	// page, its neighbours, the feed, the sitemap, the authors' guide)
	// and the search index.
	article := filepath.Join(content, "retry-budgets.md")
	src := readFile(t, article)
	edited := strings.Replace(src, "title: Retry budgets\n", "title: Retry budgets, capped\n", 1)
	edited = strings.Replace(edited, "token bucket", "token pail", 1)
	if edited == src {
		t.Fatal("retry-budgets.md has changed: the test no longer edits it")
	}
	if err := os.WriteFile(article, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	modules := statModules(t, cfg.Out)
	stats, err := build(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// The modules did not change: the rebuild links the last build's
	// files, whose hashed names say they hold the same bytes, rather than
	// writing their 18 MB again.
	for name, before := range modules {
		after, err := os.Stat(filepath.Join(cfg.Out, name))
		if err != nil {
			t.Fatal(err)
		}
		if !os.SameFile(before, after) {
			t.Errorf("%s: written again by the rebuild, not linked from the last build", name)
		}
	}
	// The article and the guide, whose widget reference names chapters.
	if got := cfg.Cache.Converted; got != 2 {
		t.Errorf("the rebuild converted %d markdown files, want 2 (the article and the authors' guide)", got)
	}
	if !stats.Unfinished {
		t.Fatal("the rebuild ran Pagefind, which the pages need not wait for")
	}
	if err := finish(ctx, cfg); err != nil {
		t.Fatal(err)
	}

	full := buildConfig{Root: root, Content: content, Out: filepath.Join(dir, "full"), Quick: true}
	if _, err := build(ctx, full); err != nil {
		t.Fatal(err)
	}
	got, want := treeFiles(t, cfg.Out), treeFiles(t, full.Out)
	for name, data := range want {
		if g, ok := got[name]; !ok {
			t.Errorf("%s: missing after the incremental build", name)
		} else if !bytes.Equal(g, data) {
			t.Errorf("%s: differs from the full build's (%d bytes, want %d)", name, len(g), len(data))
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: written by the incremental build only", name)
		}
	}
	if !strings.Contains(string(got["index.html"]), "Retry budgets, capped") {
		t.Error("the home page does not list the new title")
	}

	// Without the article, the links to it are broken, though the files
	// that hold them did not change.
	before := snapshot(t, cfg.Out)
	if err := os.Remove(article); err != nil {
		t.Fatal(err)
	}
	_, err = build(ctx, cfg)
	if err == nil {
		t.Fatal("the rebuild without retry-budgets.md succeeded, though articles link to it")
	}
	if msg := err.Error(); !strings.Contains(msg, "backoff-and-jitter.md:") || !strings.Contains(msg, "/retry-budgets/") {
		t.Errorf("error %q does not name backoff-and-jitter.md's link to /retry-budgets/", msg)
	}
	if !equalSnapshots(before, snapshot(t, cfg.Out)) {
		t.Error("the failed rebuild changed the site")
	}
}

// treeFiles reads every file under dir, by slash path relative to it.
func treeFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = data
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCodeChange(t *testing.T) {
	root := "/src/retrylab"
	for file, want := range map[string]bool{
		"/src/retrylab/engine/retry/retry.go":    true,
		"/src/retrylab/go.sum":                   true,
		"/src/retrylab/cmd/sitegen/live/live.js": true, // embedded in the generator
		"/src/retrylab/content/retries.md":       false,
		"/src/retrylab/site/templates/base.html": false,
		"/src/retrylab/site/static/style.css":    false,
		"/elsewhere/content/retries.md":          false,
	} {
		if got := codeChange(root, file); got != want {
			t.Errorf("codeChange(%s) = %v, want %v", file, got, want)
		}
	}
}

// statModules stats the modules of the built site at dir, by their path
// relative to it.
func statModules(t *testing.T, dir string) map[string]os.FileInfo {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, staticDir, "*.wasm"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no module in %s/%s (%v)", dir, staticDir, err)
	}
	out := map[string]os.FileInfo{}
	for _, f := range files {
		info, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, f)
		out[rel] = info
	}
	return out
}

// TestModuleNameRemembered: a cache gives the name it kept for the very
// module it kept, and hashes any other bytes, equal ones included.
func TestModuleNameRemembered(t *testing.T) {
	data := []byte("\x00asm module bytes")
	kept := "retrylab.cafef00d.wasm" // not data's hash: only the cache could give it
	c := &buildCache{modules: map[string][]byte{"retrylab.wasm": data}, names: map[string]string{"retrylab.wasm": kept}}
	if got := c.moduleName("retrylab.wasm", data); got != kept {
		t.Errorf("the kept module: %q, want the kept name %q", got, kept)
	}
	other := append([]byte(nil), data...)
	if got, want := c.moduleName("retrylab.wasm", other), hashedName("retrylab.wasm", other); got != want {
		t.Errorf("a copy of it: %q, want its own hash %q", got, want)
	}
	var none *buildCache
	if got, want := none.moduleName("retrylab.wasm", data), hashedName("retrylab.wasm", data); got != want {
		t.Errorf("no cache: %q, want %q", got, want)
	}
}
