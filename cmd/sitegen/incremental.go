package main

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/retrylab/retrylab/site/markdown"
)

// converter turns one markdown file into a page: a *markdown.Converter, or
// one that reuses what an earlier build converted (buildCache.converter).
type converter interface {
	Convert(path string, src []byte) (*markdown.Page, error)
}

// buildCache is what a build leaves for the next one in the same process:
// serve's rebuilds, which run in serve's process until a Go edit and in a
// worker compiled afresh after one (worker.go), so that the code of the
// process is always the code the site is built with. With it a build
//
//   - ships the module the previous build compiled (only Go changes it),
//   - converts again only the markdown files whose text changed,
//   - reuses the module's compressed siblings (as every build does), and
//   - leaves the search index to finish, run once the pages are served
//     (the previous one stands in).
//
// Every page is still rendered and every link of the site still checked:
// rendering from converted pages takes milliseconds, and a link to a page
// or heading that an edit removed must fail the build. After finish the
// output is byte for byte that of a full build (TestIncrementalBuild).
//
// The zero value is ready to use; a nil *buildCache is a full build's.
type buildCache struct {
	// mu guards next, labels and Converted while the articles are
	// converted, several at once.
	mu sync.Mutex

	modules map[string][]byte // the modules of the last successful build, by asset name
	names   map[string]string // their hashed names (hashedName), likewise
	execJS  []byte            // the toolchain's wasm_exec.js, likewise
	built   bool              // a build with this cache succeeded: the output is its

	pages map[string]cachedPage // the last successful build's conversions, by file
	next  map[string]cachedPage // this build's, kept when it succeeds
	// labels are the bodies of pages with their code blocks labelled
	// (markdown.LabelCode), which takes longer than rendering the page.
	labels map[*markdown.Page]string

	// Converted counts the files the last build converted (not reused).
	Converted int
}

// cachedPage is one conversion and what it was made from.
type cachedPage struct {
	key  string // the converter's settings (liveOptions' key and the origin)
	src  []byte
	page *markdown.Page
}

// forget drops the conversions, for an edit outside the content folder:
// a page that includes a file of the module (include=) changes with that
// file, though its markdown does not.
func (c *buildCache) forget() {
	if c != nil {
		c.pages = nil
	}
}

// converter returns conv, or with a cache a converter that reuses the
// last build's page for a file whose text and settings (key) are the same.
func (c *buildCache) converter(key string, conv *markdown.Converter) converter {
	if c == nil {
		return conv
	}
	c.next, c.Converted = map[string]cachedPage{}, 0
	return &cachingConverter{cache: c, key: key, conv: conv}
}

type cachingConverter struct {
	cache *buildCache
	key   string
	conv  *markdown.Converter
}

func (cc *cachingConverter) Convert(path string, src []byte) (*markdown.Page, error) {
	c := cc.cache
	c.mu.Lock()
	old, ok := c.pages[path]
	if ok && old.key == cc.key && bytes.Equal(old.src, src) {
		c.next[path] = old
		c.mu.Unlock()
		return old.page, nil
	}
	c.mu.Unlock()
	page, err := cc.conv.Convert(path, src)
	if err != nil {
		return page, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.Converted++
	c.next[path] = cachedPage{key: cc.key, src: bytes.Clone(src), page: page}
	return page, nil
}

// label returns markdown.LabelCode of page's body, once per conversion.
func (c *buildCache) label(page *markdown.Page) string {
	if c == nil {
		return markdown.LabelCode(page.Body)
	}
	c.mu.Lock()
	html, ok := c.labels[page]
	c.mu.Unlock()
	if ok {
		return html
	}
	html = markdown.LabelCode(page.Body)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.labels == nil {
		c.labels = map[*markdown.Page]string{}
	}
	c.labels[page] = html
	return html
}

// buildModules returns the cached modules, else compiles them (see
// buildModules).
func (c *buildCache) buildModules(ctx context.Context, root, dir string) (map[string][]byte, error) {
	if c != nil && c.modules != nil {
		return c.modules, nil
	}
	return buildModules(ctx, root, dir)
}

// moduleName is hashedName(name, data) for a module the build ships:
// with the cached modules (data is the cached module itself) the name the
// last build gave it, rather than its bytes hashed again (13 ms of every
// rebuild of serve for the two modules' 18 MB).
func (c *buildCache) moduleName(name string, data []byte) string {
	if c != nil && c.modules != nil {
		if h, ok := c.names[name]; ok && sameBytes(c.modules[name], data) {
			return h
		}
	}
	return hashedName(name, data)
}

// sameBytes reports whether a and b are the same slice: the same memory,
// not merely equal bytes.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// wasmExec returns the cached wasm_exec.js, else the toolchain's.
func (c *buildCache) wasmExec(ctx context.Context) ([]byte, error) {
	if c != nil && c.execJS != nil {
		return c.execJS, nil
	}
	return wasmExec(ctx)
}

// unfinishedFrom reports whether the build may leave work to finish,
// taking the search index of out for now: with a cache, when out is the
// output of its last build.
func (c *buildCache) unfinishedFrom(out string) bool {
	if c == nil || !c.built {
		return false
	}
	_, err := os.Stat(filepath.Join(out, pagefindDir, "pagefind.js"))
	return err == nil
}

// keep records what a successful build made, for the next.
func (c *buildCache) keep(modules map[string][]byte, names map[string]string, execJS []byte) {
	if c == nil {
		return
	}
	c.modules, c.names, c.execJS, c.built = modules, names, execJS, true
	c.pages, c.next = c.next, nil
	// Only the labels of the pages kept are of use again.
	labels := map[*markdown.Page]string{}
	for _, p := range c.pages {
		if html, ok := c.labels[p.page]; ok {
			labels[p.page] = html
		}
	}
	c.labels = labels
}

// linkTree makes dst a copy of the files under src, as hard links (a byte
// copy across file systems), but for the precompressed siblings, which
// compressTree reuses, and the top folder skip ("" for none).
func linkTree(src, dst, skip string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if skip != "" && rel == skip {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if ext := filepath.Ext(p); ext == ".br" || ext == ".gz" {
			return nil
		}
		_, err = reuse(p, filepath.Join(dst, rel))
		return err
	})
}

// finish does what a build with a cache left for later (buildStats.
// Unfinished) to the site at cfg.Out: on a copy of the site made of hard
// links, it runs Pagefind, writes the module's compressed siblings if they
// are missing (reusing them otherwise), and swaps the copy in. On failure the site is left
// as it was.
func finish(ctx context.Context, cfg buildConfig) (err error) {
	out, err := filepath.Abs(cfg.Out)
	if err != nil {
		return err
	}
	parent, base := filepath.Split(out)
	tmp, err := os.MkdirTemp(parent, base+".build-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := linkTree(out, tmp, pagefindDir); err != nil {
		return err
	}
	if err := indexSearch(ctx, cfg.Root, tmp); err != nil {
		return err
	}
	if _, err := compressTree(ctx, tmp, out, cfg.Siblings, cfg.Quick, false); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	old, err := replaceDir(tmp, out)
	if err != nil {
		return fmt.Errorf("moving the finished site into %s: %w", out, err)
	}
	if old != "" {
		if err := os.RemoveAll(old); err != nil {
			return fmt.Errorf("the previous site is left at %s: %v", old, err)
		}
	}
	return nil
}

// codeChange reports whether a change to file (absolute, under root)
// changes the generator's own code, which this process cannot reload: Go
// source, go.mod and go.sum, and anything under cmd/sitegen (its go:embed
// files).
func codeChange(root, file string) bool {
	if strings.HasSuffix(file, ".go") {
		return true
	}
	rel, err := filepath.Rel(root, file)
	if err != nil {
		return true
	}
	rel = filepath.ToSlash(rel)
	return rel == "go.mod" || rel == "go.sum" || strings.HasPrefix(rel, "cmd/sitegen/")
}
