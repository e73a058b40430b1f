package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The site's search is Pagefind's: at the end of every build (make site,
// Netlify's and serve's alike) it indexes the finished pages into
// /pagefind/, which the search page's script (site/static/search.js)
// queries in the reader's browser. Pagefind is pinned in
// build/search/package.json; build/install-deps.sh and `make site` install
// it into build/search/node_modules.
//
// What it indexes is marked in the pages, as Pagefind's "Configuring the
// index" (https://pagefind.app/docs/indexing/) describes: the articles'
// text is in a data-pagefind-body element, so no page without one (the
// home page, search page, 404, embed pages, playground, authors' guide)
// is indexed, nor anything outside it; data-pagefind-ignore="all" leaves
// out an element and everything in it (the table of contents, the pager,
// a widget's printed settings). searchSkip names the rest.
//
// Pagefind does not read the pages themselves. It parses every element
// of every page it is given, the ones it then leaves out included, and a
// widget's controls, replay buttons and output, and the spans of a
// highlighted code block, are most of a page's elements: given them, it
// took 1.7 s of CPU for 1,000 pages of the bench's corpus, against 1.0 s
// given copies without them. So indexSearch gives it, in a folder of its
// own, a copy of each page it would index with those elements taken out
// (searchCopy), and writes the index into the site with --output-path
// (https://pagefind.app/docs/config-options/#output-path). A page's URL
// in the index is its path under --site, the same in the copy's folder.
// TestSearchCopyIndexesTheSame holds the index of the copies to the one
// Pagefind makes of the pages themselves.

// pagefindBin is the Pagefind command, relative to the module root: npm's
// launcher, which runs the binary of the reader's platform.
var pagefindBin = filepath.Join("build", "search", "node_modules", ".bin", "pagefind")

// skipRule is a part of a page the search index leaves out: every element
// named Tag (any element when Tag is 0) whose class attribute holds Class.
type skipRule struct {
	Tag   atom.Atom
	Class string
}

// searchSkip are the parts of an indexed page that are not in the search
// index: the headings' "#" links, and all of a widget but its title and
// summary (.w-head): its toolbar, controls, replay buttons, output (charts
// and figures drawn by the simulator, not the article's words), embed
// snippet and the notes for readers without JavaScript or with a screen
// reader.
var searchSkip = []skipRule{{atom.A, "anchor"}, {0, "w-tools"}, {0, "w-controls"}, {0, "w-player"},
	{0, "w-output"}, {0, "w-embed"}, {0, "w-nojs"}, {0, "w-sr"}}

// matches reports whether an element named tag, of class attribute
// class, is one the rule leaves out.
func (r skipRule) matches(tag atom.Atom, class []byte) bool {
	if r.Tag != 0 && r.Tag != tag {
		return false
	}
	for len(class) > 0 {
		// The classes are separated by ASCII whitespace
		// (https://html.spec.whatwg.org/multipage/dom.html#classes).
		i := bytes.IndexAny(class, " \t\n\f\r")
		if i < 0 {
			i = len(class)
		}
		if string(class[:i]) == r.Class {
			return true
		}
		class = class[min(i+1, len(class)):]
	}
	return false
}

// pagefindUnused are the files of Pagefind's bundle the site does not
// load: its ready-made interfaces, whose scripts and styles would only be
// dead weight (search.js draws the results itself).
var pagefindUnused = []string{"pagefind-ui.js", "pagefind-ui.css", "pagefind-modular-ui.js", "pagefind-modular-ui.css",
	"pagefind-component-ui.js", "pagefind-component-ui.css", "pagefind-highlight.js"}

// indexSearch runs Pagefind over the site at dir, writing dir/pagefind.
// Without Pagefind installed it fails saying how to install it: a site
// whose search page finds nothing is not one to deploy.
func indexSearch(ctx context.Context, root, dir string) error {
	bin := filepath.Join(root, pagefindBin)
	if _, err := os.Stat(bin); err != nil {
		return fmt.Errorf("search index: no Pagefind at %s (run ./build/install-deps.sh, or: cd build/search && npm ci)", displayPath(root, bin))
	}
	src, err := os.MkdirTemp("", "sitegen-search-")
	if err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	defer os.RemoveAll(src)
	if err := writeSearchCopies(dir, src); err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	cmd := exec.CommandContext(ctx, bin, "--site", src, "--output-path", filepath.Join(dir, pagefindDir), "--silent")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("search index: %s: %v\n%s", displayPath(root, bin), err, strings.TrimSpace(out.String()))
	}
	for _, name := range pagefindUnused {
		if err := os.Remove(filepath.Join(dir, pagefindDir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if _, err := os.Stat(filepath.Join(dir, pagefindDir, "pagefind.js")); err != nil {
		return fmt.Errorf("search index: Pagefind wrote no pagefind/pagefind.js: %v", err)
	}
	return nil
}

// writeSearchCopies writes into src, at the same paths, the search copy
// of every page of the site at dir that Pagefind indexes: those with a
// data-pagefind-body element, or every page when none has one, as
// Pagefind decides (https://pagefind.app/docs/indexing/#removing-pages-from-pagefinds-index).
// Its pages are the files Pagefind reads by default, **/*.html, but for
// those of its own index.
func writeSearchCopies(dir, src string) error {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p == filepath.Join(dir, pagefindDir) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".html") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	copies := make([][]byte, len(files))
	bodies := make([]bool, len(files))
	errs := make([]error, len(files))
	forEach(len(files), 0, func(i int) {
		page, err := os.ReadFile(files[i])
		if err == nil {
			var b bytes.Buffer
			b.Grow(len(page))
			bodies[i], err = searchCopy(&b, page)
			copies[i] = b.Bytes()
		}
		if err != nil {
			errs[i] = fmt.Errorf("%s: %w", files[i], err)
		}
	})
	if err := errors.Join(errs...); err != nil {
		return err
	}
	anyBody := slices.Contains(bodies, true)
	for i, f := range files {
		if anyBody && !bodies[i] {
			continue
		}
		rel, err := filepath.Rel(dir, f)
		if err != nil {
			return err
		}
		dst := filepath.Join(src, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, copies[i], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// searchCopy writes to w the page as Pagefind needs it: every byte of it
// but the elements of searchSkip and those marked
// data-pagefind-ignore="all", each with all it holds, and the tags (not
// the text) of the spans inside a <pre>, which highlighting wraps around
// every token and which Pagefind would join back into the same text. It
// reports whether the page has a data-pagefind-body element.
func searchCopy(w *bytes.Buffer, page []byte) (body bool, err error) {
	z := html.NewTokenizer(bytes.NewReader(page))
	var (
		skip  atom.Atom // the element being left out, 0 when none
		depth int       // the elements named skip open inside it, itself included
		pre   int       // the <pre> elements open
	)
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if err := z.Err(); err != io.EOF {
				return body, err
			}
			return body, nil
		case html.CommentToken:
			continue // Pagefind indexes no comment
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
		default:
			if skip == 0 {
				w.Write(z.Raw())
			}
			continue
		}
		// The tag goes out as it came in; TagName and TagAttr lower-case
		// and unescape the tokenizer's buffer in place, so it is copied
		// first, and taken back when the tag is left out.
		mark := w.Len()
		if skip == 0 {
			w.Write(z.Raw())
		}
		name, hasAttr := z.TagName()
		tag := atom.Lookup(name)
		opens := tt == html.StartTagToken && !isVoid(tag)
		if skip != 0 {
			if tag == skip && opens {
				depth++
			} else if tag == skip && tt == html.EndTagToken {
				if depth--; depth == 0 {
					skip = 0
				}
			}
			continue
		}
		if tt == html.EndTagToken {
			if tag == atom.Pre {
				pre--
			} else if tag == atom.Span && pre > 0 {
				w.Truncate(mark)
			}
			continue
		}
		var class []byte
		ignoreAll := false
		for hasAttr {
			var k, v []byte
			k, v, hasAttr = z.TagAttr()
			switch string(k) {
			case "class":
				class = v
			case "data-pagefind-ignore":
				ignoreAll = string(v) == "all"
			case "data-pagefind-body":
				body = true
			}
		}
		switch {
		case ignoreAll || len(class) > 0 && slices.ContainsFunc(searchSkip, func(r skipRule) bool { return r.matches(tag, class) }):
			w.Truncate(mark)
			if opens {
				skip, depth = tag, 1
			}
		case tag == atom.Span && pre > 0:
			w.Truncate(mark)
		case tag == atom.Pre && opens:
			pre++
		}
	}
}

// isVoid reports whether an element named tag has no end tag
// (https://html.spec.whatwg.org/multipage/syntax.html#void-elements).
func isVoid(tag atom.Atom) bool {
	switch tag {
	case atom.Area, atom.Base, atom.Br, atom.Col, atom.Embed, atom.Hr, atom.Img, atom.Input,
		atom.Link, atom.Meta, atom.Source, atom.Track, atom.Wbr:
		return true
	}
	return false
}
