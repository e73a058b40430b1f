package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The API page calls exactly the origin the pages' CSP lets them connect
// to, besides their own, and loads the panel's script and stylesheet under
// their hashed names.
func TestLiveAPIOriginIsTheCSPs(t *testing.T) {
	origin, err := connectOrigin(filepath.Join(repoRoot(t), "netlify.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if origin == "" {
		t.Fatal("netlify.toml's connect-src names no API origin besides 'self'")
	}
	page := readFile(t, filepath.Join(builtSite(t), "api", "index.html"))
	if !strings.Contains(page, `data-widget="live" data-api="`+origin+`"`) {
		t.Errorf("the API page's panel does not call %s", origin)
	}
	for _, re := range []string{`<script src="/static/live\.[0-9a-f]{8}\.js" defer></script>`, `<link rel="stylesheet" href="/static/live\.[0-9a-f]{8}\.css">`} {
		m := regexp.MustCompile(re).FindString(page)
		if m == "" {
			t.Errorf("the API page lacks %s", re)
			continue
		}
		name := regexp.MustCompile(`/static/live\.[0-9a-f]{8}\.(js|css)`).FindString(m)
		if _, err := os.Stat(filepath.Join(builtSite(t), filepath.FromSlash(name))); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestConnectOrigin(t *testing.T) {
	dir := t.TempDir()
	write := func(csp string) string {
		p := filepath.Join(dir, "netlify.toml")
		if err := os.WriteFile(p, []byte("[[headers]]\n  for = \"/*\"\n  [headers.values]\n    Content-Security-Policy = \""+csp+"\"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for csp, want := range map[string]string{
		"default-src 'self'; connect-src 'self' https://api.example; object-src 'none'": "https://api.example",
		"default-src 'self'; connect-src 'self'":                                        "",
		"default-src 'self'":                                                            "",
	} {
		if got, err := connectOrigin(write(csp)); err != nil || got != want {
			t.Errorf("%q: %q, %v; want %q", csp, got, err, want)
		}
	}
	for csp, want := range map[string]string{
		"connect-src 'self' https://a.example https://b.example": "the live API panel calls one API origin",
		"connect-src 'self' *": `"*" is not an origin`,
	} {
		if _, err := connectOrigin(write(csp)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error saying %q", csp, err, want)
		}
	}
}
