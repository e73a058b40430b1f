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
// that needs it: builtSite is a quick build (no brotli copy of the
// module, whose best level takes seconds), which the browser tests read;
// productionSite is the build Netlify runs, for the tests of what it
// writes and serves (the module's brotli size and encoding).
type siteBuild struct {
	once  sync.Once
	dir   string // holds the output folder, "site"
	out   string
	stats buildStats
	err   error
}

var (
	quickBuild siteBuild
	shared     siteBuild // the production build
)

func TestMain(m *testing.M) {
	code := m.Run()
	closePackageBrowser()
	for _, b := range []*siteBuild{&quickBuild, &shared} {
		if b.dir != "" {
			os.RemoveAll(b.dir)
		}
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
// this module), built quick once per test binary.
func builtSite(t testing.TB) string { return buildOnce(t, &quickBuild, true) }

// productionSite returns the folder of the real site as the production
// build writes it, brotli at its best level included, built once per test
// binary.
func productionSite(t testing.TB) string { return buildOnce(t, &shared, false) }

func buildOnce(t testing.TB, b *siteBuild, quick bool) string {
	t.Helper()
	root := repoRoot(t)
	b.once.Do(func() {
		b.dir, b.err = os.MkdirTemp("", "sitegen-test-")
		if b.err != nil {
			return
		}
		b.out = filepath.Join(b.dir, "site")
		b.stats, b.err = build(context.Background(), buildConfig{
			Root:    root,
			Content: filepath.Join(root, "content"),
			Out:     b.out,
			Quick:   quick,
			// The command's cache: a warm make test compresses no
			// module it compressed before (siblingcache_test.go tests
			// the cache itself).
			Siblings: defaultSiblingCache(),
		})
		if b.err == nil {
			t.Logf("built the site: %s", b.stats)
		}
	})
	if b.err != nil {
		t.Fatalf("building the site: %v", b.err)
	}
	return b.out
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
