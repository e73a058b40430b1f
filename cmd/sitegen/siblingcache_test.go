package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"
)

// TestSiblingCacheServesACleanBuild: a build into an empty folder, with no
// previous build to take from, takes the module's siblings from the cache
// an earlier build filled, byte for byte what compressing makes; an entry
// that no longer decodes to the module is not used but made again; and a
// quick build takes the brotli copy it would not make.
func TestSiblingCacheServesACleanBuild(t *testing.T) {
	cache := &siblingCache{dir: t.TempDir()}
	module := bytes.Repeat([]byte("claim the key, then charge; "), 50_000) // 1.4 MB, over quickLimit
	const rel = "static/retrylab.0123abcd.wasm"
	tree := func() string {
		dir := t.TempDir()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, module, 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	siblings := func(dir string) map[string]string {
		out := map[string]string{}
		for _, e := range encodings {
			if data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)) + e.suffix); err == nil {
				out[e.suffix] = string(data)
			}
		}
		return out
	}

	first := tree()
	st, err := compressTree(context.Background(), first, "", cache, false, false)
	if err != nil {
		t.Fatal(err)
	}
	if st.Files != 2 || st.Reused != 0 {
		t.Fatalf("first build: %+v, want 2 siblings made", st)
	}
	made := siblings(first)
	entries, _ := os.ReadDir(cache.dir)
	if len(entries) != 2 {
		t.Fatalf("the cache holds %d entries after the first build, want 2", len(entries))
	}

	again := tree()
	if st, err = compressTree(context.Background(), again, "", cache, false, false); err != nil {
		t.Fatal(err)
	}
	if st.Files != 2 || st.Reused != 2 {
		t.Errorf("a clean build with the cache filled: %+v, want both siblings reused", st)
	}
	if got := siblings(again); got[".br"] != made[".br"] || got[".gz"] != made[".gz"] || len(got) != 2 {
		t.Error("the siblings taken from the cache differ from those compressed")
	}

	// A damaged entry: still brotli, of other bytes.
	brFile := cache.file(sha256.Sum256(module), 0)
	var other bytes.Buffer
	if err := encodings[0].write(&other, []byte("another module")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(brFile, other.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	third := tree()
	if st, err = compressTree(context.Background(), third, "", cache, false, false); err != nil {
		t.Fatal(err)
	}
	if st.Reused != 1 {
		t.Errorf("with the brotli entry damaged: %+v, want only the gzip sibling reused", st)
	}
	if got := siblings(third); got[".br"] != made[".br"] {
		t.Error("the damaged entry was used")
	}
	if data, _ := os.ReadFile(brFile); string(data) != made[".br"] {
		t.Error("the damaged entry was not replaced by the sibling made again")
	}

	// quick makes no brotli copy of a file over quickLimit, but takes one.
	quick := tree()
	if st, err = compressTree(context.Background(), quick, "", cache, true, false); err != nil {
		t.Fatal(err)
	}
	if got := siblings(quick); got[".br"] != made[".br"] || st.Reused != 2 {
		t.Errorf("a quick build: %+v, brotli sibling taken: %v", st, got[".br"] == made[".br"])
	}
}
