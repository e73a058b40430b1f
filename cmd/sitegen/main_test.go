package main

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// The real site is built once per test binary and shared by every test
// that needs it (builtSite), the browser tests included: a build compiles
// the WebAssembly module and compresses it at brotli's best level.
var shared struct {
	once  sync.Once
	dir   string // holds the output folder, "site"
	out   string
	stats buildStats
	err   error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// repoRoot is the module root, found from the test's working directory
// (cmd/sitegen) the way the command finds it.
func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// builtSite returns the folder of the real site (content/, site/, ./wasm of
// this module), built by the production build once per test binary.
func builtSite(t testing.TB) string {
	t.Helper()
	root := repoRoot(t)
	shared.once.Do(func() {
		shared.dir, shared.err = os.MkdirTemp("", "sitegen-test-")
		if shared.err != nil {
			return
		}
		shared.out = filepath.Join(shared.dir, "site")
		shared.stats, shared.err = build(context.Background(), buildConfig{
			Root:    root,
			Content: filepath.Join(root, "content"),
			Out:     shared.out,
		})
		if shared.err == nil {
			t.Logf("built the site: %s", shared.stats)
		}
	})
	if shared.err != nil {
		t.Fatalf("building the site: %v", shared.err)
	}
	return shared.out
}

// productionRules are the [[headers]] of the module's netlify.toml.
func productionRules(t testing.TB) []HeaderRule {
	t.Helper()
	rules, err := loadHeaders(filepath.Join(repoRoot(t), "netlify.toml"))
	if err != nil {
		t.Fatal(err)
	}
	return rules
}

// serveSite serves the built site at dir in-process exactly as deployed:
// the headers of netlify.toml, precompressed siblings, 404.html, no live
// reload. The server is closed when the test ends.
func serveSite(t testing.TB, dir string) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(newServer(dir, productionRules(t), false))
	t.Cleanup(ts.Close)
	return ts
}
