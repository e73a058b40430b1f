package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Hugo is the anchor the site generator's speed is judged against: the
// same corpus (corpusContent) written as a Hugo site of its own, with a
// minimal layout of a page per article and a list for the home page,
// highlighting on, and each widget block left as the code block it is in
// any other markdown renderer.

// hugoVersion is the Hugo the figures are measured with; `make
// bench-deps` installs it with hugoInstall.
const hugoVersion = "v0.165.0"

// hugoInstall is how Hugo is installed: Hugo's module built with this
// machine's Go, without cgo (the standard edition: no Sass, no WebP, which
// the corpus does not use).
const hugoInstall = "CGO_ENABLED=0 go install github.com/gohugoio/hugo@" + hugoVersion

// hugoBin is the installed Hugo command (in GOBIN, else GOPATH/bin, where
// go install puts it, else on PATH) at hugoVersion, or an error saying how
// to install it.
func hugoBin(ctx context.Context) (string, error) {
	var candidates []string
	for _, v := range []string{"GOBIN", "GOPATH"} {
		out, err := exec.CommandContext(ctx, "go", "env", v).Output()
		if dir := strings.TrimSpace(string(out)); err == nil && dir != "" {
			if v == "GOPATH" {
				dir = filepath.Join(strings.Split(dir, string(os.PathListSeparator))[0], "bin")
			}
			candidates = append(candidates, filepath.Join(dir, "hugo"))
		}
	}
	if p, err := exec.LookPath("hugo"); err == nil {
		candidates = append(candidates, p)
	}
	for _, bin := range candidates {
		if _, err := os.Stat(bin); err != nil {
			continue
		}
		out, err := exec.CommandContext(ctx, bin, "version").Output()
		if err != nil {
			return "", fmt.Errorf("%s version: %v", bin, err)
		}
		// "hugo v0.165.0 linux/amd64 BuildDate=unknown"
		if f := strings.Fields(string(out)); len(f) < 2 || f[1] != hugoVersion && !strings.HasPrefix(f[1], hugoVersion+"-") {
			return "", fmt.Errorf("%s is %q, not Hugo %s: run make bench-deps (%s)", bin, strings.TrimSpace(string(out)), hugoVersion, hugoInstall)
		}
		return bin, nil
	}
	return "", errors.New("Hugo " + hugoVersion + " is not installed: make bench-deps installs it (" + hugoInstall + ")")
}

// hugoSite is corpusContent(n) as a Hugo site: the home page as
// content/_index.md, each article under content/, and the layout.
func hugoSite(n int) map[string]string {
	files := map[string]string{
		"hugo.toml": `baseURL = "http://localhost:8080/"
title = "Corpus"
# The corpus has no tags or categories.
disableKinds = ["taxonomy", "term"]

[markup.highlight]
# CSS classes, as sitegen writes them, rather than inline styles.
noClasses = false

[markup.tableOfContents]
startLevel = 2
endLevel = 3
`,
		"layouts/baseof.html": `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ .Title }} · {{ site.Title }}</title>
<meta name="description" content="{{ .Description }}">
<link rel="canonical" href="{{ .Permalink }}">
</head>
<body>
<header><a href="/">{{ site.Title }}</a></header>
<main>{{ block "main" . }}{{ end }}</main>
</body>
</html>
`,
		"layouts/single.html": `{{ define "main" }}
<article>
<h1>{{ .Title }}</h1>
<p><time datetime="{{ .Date.Format "2006-01-02" }}">{{ .Date.Format "2 January 2006" }}</time> · {{ .ReadingTime }} min</p>
{{ .TableOfContents }}
{{ .Content }}
</article>
<nav>{{ with .PrevInSection }}<a rel="prev" href="{{ .RelPermalink }}">{{ .Title }}</a>{{ end }}{{ with .NextInSection }}<a rel="next" href="{{ .RelPermalink }}">{{ .Title }}</a>{{ end }}</nav>
{{ end }}
`,
		"layouts/list.html": `{{ define "main" }}
<h1>{{ .Title }}</h1>
{{ .Content }}
<ol>{{ range .Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a>: {{ .Description }}</li>{{ end }}</ol>
{{ end }}
`,
	}
	for name, text := range corpusContent(n) {
		if name == "index.md" {
			name = "_index.md"
		}
		files["content/"+name] = text
	}
	return files
}

// pagefindBin is the Pagefind the site generator indexes its pages with,
// relative to the module root (build/search pins it).
var pagefindBin = filepath.Join("build", "search", "node_modules", ".bin", "pagefind")

// pagefind indexes the built site at dir as sitegen's build does (its
// exclusions name sitegen's markup, which Hugo's pages do not have) and
// returns the time it took.
func pagefind(ctx context.Context, root, dir string) (buildTime, error) {
	bin := filepath.Join(root, pagefindBin)
	if _, err := os.Stat(bin); err != nil {
		return buildTime{}, fmt.Errorf("no Pagefind at %s (make site installs it)", bin)
	}
	cmd := exec.CommandContext(ctx, bin, "--site", dir, "--output-subdir", "pagefind", "--silent")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	took, err := runTimed(cmd)
	if err != nil {
		return buildTime{}, fmt.Errorf("pagefind --site %s: %v\n%s", dir, err, strings.TrimSpace(out.String()))
	}
	return took, nil
}

// hugoBuild runs Hugo on the site at src into the fresh folder out and
// returns the time it took.
func hugoBuild(ctx context.Context, bin, src, out string) (buildTime, error) {
	cmd := exec.CommandContext(ctx, bin, "--source", src, "--destination", out, "--quiet")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	took, err := runTimed(cmd)
	if err != nil {
		return buildTime{}, fmt.Errorf("hugo --source %s: %v\n%s", src, err, strings.TrimSpace(stderr.String()))
	}
	return took, nil
}
