package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Reading each page from searchRoot on, Pagefind writes the index it
// writes reading the whole page: the same files, byte for byte (the
// titles, the language, every word and anchor).
func TestSearchRootIndexesTheSame(t *testing.T) {
	dir := builtSite(t)
	whole := filepath.Join(t.TempDir(), "pagefind")
	cmd := exec.Command(filepath.Join(repoRoot(t), pagefindBin), "--site", dir, "--output-path", whole,
		"--exclude-selectors", strings.Join(searchSkip, ", "), "--silent")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pagefind on the whole pages: %v\n%s", err, out)
	}
	rooted := treeFiles(t, filepath.Join(dir, pagefindDir))
	wholeTree := treeFiles(t, whole)
	for _, name := range pagefindUnused {
		delete(wholeTree, name)
	}
	if len(rooted) < 10 {
		t.Fatalf("the index has %d files, want the entry, the fragments and the word index", len(rooted))
	}
	for name, data := range wholeTree {
		if got, ok := rooted[name]; !ok {
			t.Errorf("%s: written for the whole pages only", name)
		} else if !bytes.Equal(got, data) {
			t.Errorf("%s: %d bytes from searchRoot, %d from the whole pages, not the same", name, len(got), len(data))
		}
	}
	for name := range rooted {
		if _, ok := wholeTree[name]; !ok {
			t.Errorf("%s: written from searchRoot only", name)
		}
	}
}
