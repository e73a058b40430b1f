package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestAssetsLinkThePreviousBuilds: an asset the previous build wrote
// under the same hashed name is linked from it; one it has not, or has
// at another size, is written; and a second asset of a name fails without
// touching the first one's file.
func TestAssetsLinkThePreviousBuilds(t *testing.T) {
	dir := t.TempDir()
	prev, next := filepath.Join(dir, "prev"), filepath.Join(dir, "next")
	same, grown := []byte("body { color: black; }\n"), []byte("p { margin: 0; }\n")
	old := newAssets(prev, "")
	for name, data := range map[string][]byte{"same.css": same, "grown.css": grown} {
		if err := old.add(name, data); err != nil {
			t.Fatal(err)
		}
	}
	oldPath := func(name string, data []byte) string {
		return filepath.Join(prev, staticDir, hashedName(name, data))
	}
	// A file of the same name but not the size the name's hash was made
	// from (damaged, or cut short) is not taken for it.
	if err := os.WriteFile(oldPath("grown.css", grown), []byte("p {"), 0o644); err != nil {
		t.Fatal(err)
	}

	as := newAssets(next, prev)
	fresh := []byte("h1 { font-size: 2rem; }\n")
	for name, data := range map[string][]byte{"same.css": same, "grown.css": grown, "fresh.css": fresh} {
		if err := as.add(name, data); err != nil {
			t.Fatal(err)
		}
	}
	stat := func(p string) os.FileInfo {
		t.Helper()
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return info
	}
	newPath := func(name string, data []byte) string {
		return filepath.Join(next, staticDir, hashedName(name, data))
	}
	if !os.SameFile(stat(oldPath("same.css", same)), stat(newPath("same.css", same))) {
		t.Error("same.css: written again, not linked from the previous build")
	}
	if os.SameFile(stat(oldPath("grown.css", grown)), stat(newPath("grown.css", grown))) {
		t.Error("grown.css: linked to the previous build's file of another size")
	}
	for name, data := range map[string][]byte{"same.css": same, "grown.css": grown, "fresh.css": fresh} {
		if got, err := os.ReadFile(newPath(name, data)); err != nil || string(got) != string(data) {
			t.Errorf("%s: %q (%v), want %q", name, got, err, data)
		}
	}

	// The same asset again: refused, and its file, which is the previous
	// build's too, is not written over (the live site's copy).
	before := stat(oldPath("same.css", same))
	if err := as.add("same.css", same); err == nil {
		t.Error("a second same.css was taken")
	}
	if after := stat(oldPath("same.css", same)); !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("the previous build's same.css was written by the refused second one (modified %v, was %v)", after.ModTime(), before.ModTime())
	}
}

// TestAssetsNeverWriteThrough: a path already in the build's folder is
// never written through, even when linking the previous build's file
// fails; here it is a link to a file of the site being served, which
// stays as it was.
func TestAssetsNeverWriteThrough(t *testing.T) {
	dir := t.TempDir()
	live := filepath.Join(dir, "live.css")
	if err := os.WriteFile(live, []byte("live"), 0o644); err != nil {
		t.Fatal(err)
	}
	next := filepath.Join(dir, "next")
	data := []byte("new")
	dst := filepath.Join(next, staticDir, hashedName("style.css", data))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(live, dst); err != nil {
		t.Fatal(err)
	}
	if err := newAssets(next, "").add("style.css", data); err == nil {
		t.Error("an asset was written over a path already there")
	}
	if got, err := os.ReadFile(live); err != nil || string(got) != "live" {
		t.Errorf("the served file reads %q (%v), want %q", got, err, "live")
	}
}
