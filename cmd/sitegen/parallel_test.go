package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParallelBuildIsSerial builds the same content one page at a time and
// with the pages converted and rendered on several goroutines, and
// compares every file of the two sites. The content is the handbook's
// with generated articles whose widget blocks repeat one another's, in
// the same page and across pages, so that the cache is shared by pages
// converted at once, in whatever order they come. (That a cached copy is
// what rendering it at its own id writes is TestWidgetCacheRendersOnce's
// to check: both builds here use the cache.)
func TestParallelBuildIsSerial(t *testing.T) {
	root := repoRoot(t)
	dir := t.TempDir()
	content := filepath.Join(dir, "content")
	if err := os.CopyFS(content, os.DirFS(filepath.Join(root, "content"))); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 40; i++ {
		var b strings.Builder
		fmt.Fprintf(&b, "---\ntitle: Generated %d\n---\n\n## Twice the same widget\n\n", i)
		keys := []string{"off", "per-intent", "per-attempt"}[i%3]
		for range 2 {
			fmt.Fprintf(&b, "```widget payment\nkeys: %s\nfaults: lose-response, ok\n```\n\n", keys)
		}
		b.WriteString("```go\nfunc retry() error { return nil }\n```\n\n```widget backoff\n```\n")
		if err := os.WriteFile(filepath.Join(content, fmt.Sprintf("generated-%02d.md", i)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	// The modules are compiled once, for both builds; the articles are
	// converted afresh by each (a cache that has built nothing yet keeps
	// no conversions).
	first := &buildCache{}
	serial := buildConfig{Root: root, Content: content, Out: filepath.Join(dir, "serial"), Quick: true, Cache: first, Workers: 1}
	if _, err := build(ctx, serial); err != nil {
		t.Fatal(err)
	}
	parallel := buildConfig{Root: root, Content: content, Out: filepath.Join(dir, "parallel"), Quick: true,
		Cache: &buildCache{modules: first.modules, execJS: first.execJS}, Workers: 4}
	if _, err := build(ctx, parallel); err != nil {
		t.Fatal(err)
	}
	if n := parallel.Cache.Converted; n < 40 {
		t.Fatalf("the parallel build converted %d files: it reused the serial build's conversions", n)
	}
	got, want := treeFiles(t, parallel.Out), treeFiles(t, serial.Out)
	if len(want) < 100 {
		t.Fatalf("the serial build wrote %d files", len(want))
	}
	for name, data := range want {
		if g, ok := got[name]; !ok {
			t.Errorf("%s: missing from the parallel build", name)
		} else if !bytes.Equal(g, data) {
			t.Errorf("%s: differs from the serial build's (%d bytes, want %d)", name, len(g), len(data))
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: written by the parallel build only", name)
		}
	}
}
