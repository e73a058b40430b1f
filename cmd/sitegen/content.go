package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/retrylab/retrylab/site/linkcheck"
	"github.com/retrylab/retrylab/site/markdown"
)

// What content/ may hold, and nothing else, so that no file is left out
// of the site without a word:
//
//	content/NAME.md          an article, served at /NAME/ (index.md at /)
//	content/images/FILE      an image, served at /images/FILE
//
// Anything else (an article in a sub-folder, a .markdown file, a file of
// another type) fails the build with what to do about it, as does an
// article whose name is a path the site already uses or the name of
// another article but for case.

// imagesDir is the folder of content/ whose files are copied to the
// site's /images/, and the first segment of their URLs.
const imagesDir = linkcheck.ImagesDir

// imageExts are the types of file content/images/ may hold: the ones
// browsers show in an <img>.
var imageExts = []string{".avif", ".gif", ".jpeg", ".jpg", ".png", ".svg", ".webp"}

// contentFiles are the files of content/ the build uses.
type contentFiles struct {
	Articles []string          // content/NAME.md, sorted
	Images   map[string]string // URL path ("/images/flow.svg") -> file
}

// listContent lists dir's articles and images and refuses every other
// file, each refusal "file:1: what to do": the files listed are the ones
// to build even when others are refused. With no article at all, the
// error says so.
func listContent(root, dir string) (contentFiles, error) {
	cf := contentFiles{Images: map[string]string{}}
	var errs []error
	refuse := func(p, msg string) {
		errs = append(errs, fmt.Errorf("%s:1: %s", displayPath(root, p), msg))
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		if skipName(d.Name()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil // an editor's lock or backup file
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		top, _, nested := strings.Cut(rel, "/")
		ext := strings.ToLower(path.Ext(rel))
		switch {
		case d.IsDir():
			return nil
		case top == imagesDir && nested:
			if !slices.Contains(imageExts, ext) {
				refuse(p, "not an image: content/"+imagesDir+"/ holds the images of the articles ("+strings.Join(imageExts, ", ")+")")
				return nil
			}
			cf.Images["/"+rel] = p
		case nested:
			refuse(p, "a file in a sub-folder of content/, which the build does not read: articles are content/NAME.md, served at /NAME/, and images go in content/"+imagesDir+"/")
		case ext == ".md":
			cf.Articles = append(cf.Articles, p)
		case ext == ".markdown":
			refuse(p, "the build reads only .md files: rename it to "+strings.TrimSuffix(d.Name(), path.Ext(d.Name()))+".md")
		case slices.Contains(imageExts, ext):
			refuse(p, "an image outside content/"+imagesDir+"/: move it there and write /"+imagesDir+"/"+d.Name())
		default:
			refuse(p, "not an article: content/ holds articles (NAME.md) and, in content/"+imagesDir+"/, their images")
		}
		return nil
	})
	if err != nil {
		return cf, err
	}
	sort.Strings(cf.Articles)
	if len(cf.Articles) == 0 {
		errs = append(errs, fmt.Errorf("%s: no .md files", displayPath(root, dir)))
	}
	return cf, errors.Join(errs...)
}

// checkNames refuses an article whose name, case ignored, is the name of
// another article or a name the site uses for something else (reserved:
// name -> what it is), or whose page a rule of netlify.toml other than the
// site-wide one would serve with headers of its own (rules).
func checkNames(root string, articles []string, reserved map[string]string, rules []HeaderRule) error {
	var errs []error
	seen := map[string]string{} // lower-case name -> the first file
	for _, f := range articles {
		name := strings.TrimSuffix(filepath.Base(f), ".md")
		at := displayPath(root, f) + ":1: "
		key := strings.ToLower(name)
		if first, dup := seen[key]; dup {
			errs = append(errs, fmt.Errorf("%sthe same name as %s when case is ignored: the two pages would be one on macOS and Windows: rename one", at, displayPath(root, first)))
			continue
		}
		seen[key] = f
		if what, taken := reserved[strings.TrimSuffix(strings.TrimSuffix(key, ".br"), ".gz")]; taken {
			errs = append(errs, fmt.Errorf("%sthe name %q is taken: /%s is %s: rename the file", at, name, key, what))
			continue
		}
		if name == "index" {
			continue
		}
		for _, r := range rules {
			if !r.Match("/") && (r.Match("/"+name+"/") || r.Match("/"+name+"/index.html")) {
				errs = append(errs, fmt.Errorf("%sthe page /%s/ would be served with the headers netlify.toml sets for %s (%s): rename the file", at, name, r.For, fieldNames(r)))
				break
			}
		}
	}
	return errors.Join(errs...)
}

func fieldNames(r HeaderRule) string {
	names := make([]string, len(r.Values))
	for i, f := range r.Values {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

// Names at the top of the output that the build writes besides the
// articles' folders, each used by its writer.
const (
	embedDir      = "embed"      // /embed/NAME/, one page per widget
	searchDir     = "search"     // the search page
	pagefindDir   = "pagefind"   // the search index (search.go)
	authoringDir  = "authoring"  // the authors' guide
	playgroundDir = "playground" // the playground (playground.go)
	notFoundFile  = "404.html"
	sitemapFile   = "sitemap.xml"
	feedFile      = "feed.xml"
	siteRootFiles = "site/root" // copied to the top under their own names
)

// builtTop is every name of the top of the site the build writes besides
// the articles, with what it is and, for a page or file an article may
// link to, its URL path. reservedNames and the link check (newSiteMap)
// both read it, and a test checks that a real build writes nothing else
// at the top: a new kind of output is one line here.
var builtTop = []struct {
	name, what, url string
}{
	{staticDir, "the site's hashed assets, cached for a year", ""},
	{embedDir, "where the widgets' embed pages are, which any site may frame", ""}, // each widget's is linkable (newSiteMap)
	{searchDir, "the search page", "/" + searchDir + "/"},
	{pagefindDir, "the search index", ""},
	{authoringDir, "the authors' guide", ""}, // linkable with its ids (newSiteMap)
	{playgroundDir, "the playground, where authors try markdown in the browser", "/" + playgroundDir + "/"},
	{imagesDir, "where the images of content/" + imagesDir + "/ are served", ""},
	{notFoundFile, "the page for missing pages", "/" + notFoundFile},
	{"index.html", "the home page, made from content/index.md", ""},
	{sitemapFile, "the sitemap", "/" + sitemapFile},
	{feedFile, "the Atom feed", "/" + feedFile},
}

// reservedNames are the lower-case names of what the build writes at the
// top of the site besides the articles, each with what it is: an article
// of such a name would be overwritten by it, or served as it is.
func reservedNames(root string) (map[string]string, error) {
	out := map[string]string{}
	for _, b := range builtTop {
		out[b.name] = b.what
	}
	names, err := rootFiles(root)
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		out[strings.ToLower(name)] = "a file of " + siteRootFiles + "/ that other sites load by its name"
	}
	return out, nil
}

// rootFiles are the names of the files of site/root, which the build
// copies to the top of the site (copyRoot).
func rootFiles(root string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(siteRootFiles)))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && !skipName(e.Name()) {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// maxErrors is the most errors a failed build lists: enough for every
// problem of a few edits at once, few enough to read in a terminal.
const maxErrors = 40

// sourceErrors joins the errors of a build's sources, nil ones left out,
// one a line in file and line order ("file:line: what"; an error of no
// line first), and at most maxErrors of them, with how many more there
// are.
func sourceErrors(errs []error) error {
	var list []error
	var flatten func(error)
	flatten = func(err error) {
		if joined, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range joined.Unwrap() {
				flatten(e)
			}
		} else if err != nil {
			list = append(list, err)
		}
	}
	for _, err := range errs {
		flatten(err)
	}
	if len(list) == 0 {
		return nil
	}
	slices.SortStableFunc(list, func(a, b error) int {
		fa, la := errorPlace(a)
		fb, lb := errorPlace(b)
		if c := strings.Compare(fa, fb); c != 0 {
			return c
		}
		return la - lb
	})
	if n := len(list) - maxErrors; n > 0 {
		list = append(list[:maxErrors], fmt.Errorf("and %d more errors, not listed: fix these first", n))
	}
	return errors.Join(list...)
}

// errorPlace is the file and line an error's message starts with
// ("content/retries.md:7: ..."), or "" and 0.
func errorPlace(err error) (file string, line int) {
	var se *markdown.SourceError
	if errors.As(err, &se) {
		return se.Path, se.Line
	}
	msg := err.Error()
	file, rest, ok := strings.Cut(msg, ":")
	if !ok {
		return "", 0
	}
	num, _, ok := strings.Cut(rest, ":")
	n, err := strconv.Atoi(num)
	if !ok || err != nil {
		return "", 0
	}
	return file, n
}
