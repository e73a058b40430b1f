package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The site's search is Pagefind's: at the end of every build (make site,
// Netlify's and serve's alike) it indexes the finished pages into
// /pagefind/, which the search page's script (site/static/search.js)
// queries in the reader's browser. Pagefind is pinned in
// build/search/package.json; build/install-deps.sh and `make site` install
// it into build/search/node_modules.

// pagefindBin is the Pagefind command, relative to the module root: npm's
// launcher, which runs the binary of the reader's platform.
var pagefindBin = filepath.Join("build", "search", "node_modules", ".bin", "pagefind")

// searchSkip are the parts of a page the index leaves out, passed as
// --exclude-selectors (https://pagefind.app/docs/config-options/#exclude-selectors).
// The articles mark their text with data-pagefind-body, so that no page
// without one (the home page, search page, 404, embed pages, playground,
// authors' guide) is indexed, and their navigation with
// data-pagefind-ignore (https://pagefind.app/docs/indexing/); a widget is
// indexed by its title and summary (.w-head), not its toolbar, controls,
// replay buttons, output (its charts and figures) or embed snippet.
//
// Pagefind parses every element of a page, the excluded ones included,
// so it would index copies of the pages stripped of them faster; but
// writing those copies and removing them costs more CPU than it saves,
// and Pagefind's Node API, which takes pages from memory, uses more CPU
// than the command. So Pagefind reads the pages themselves.
var searchSkip = []string{"a.anchor", ".w-tools", ".w-controls", ".w-player", ".w-output", ".w-embed", ".w-nojs", ".w-sr"}

// searchRoot is where Pagefind starts reading each page, passed as
// --root-selector (https://pagefind.app/docs/config-options/#root-selector):
// the article's data-pagefind-body element, so that it leaves the page's
// head, site header and footer alone, which it would otherwise walk on
// every page only to index none of them. Nothing the index holds is
// outside it: the title Pagefind records is the article's h1, and the
// language still comes from <html lang>. It writes the same index, byte
// for byte (TestSearchRootIndexesTheSame), for less of Pagefind's CPU.
const searchRoot = "[data-pagefind-body]"

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
	cmd := exec.CommandContext(ctx, bin, "--site", dir, "--output-subdir", pagefindDir,
		"--root-selector", searchRoot, "--exclude-selectors", strings.Join(searchSkip, ", "), "--silent")
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
