package main

import (
	"bytes"
	"io/fs"
	"os"
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
	rooted := readTree(t, filepath.Join(dir, pagefindDir))
	wholeTree := readTree(t, whole)
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

// readTree reads every file under dir, by slash path relative to it.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = data
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
