// Package linkcheck says what is wrong with a link or an image of a page:
// a page or a file the site does not serve, an id the page does not
// have, an image the site's Content-Security-Policy would block. The
// site generator checks every article with it; the playground
// (site/playground) checks a draft with the same Site, which the build
// writes into the playground's page (Data), so that the two refuse the
// same links in the same words.
package linkcheck

import (
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/retrylab/retrylab/internal/suggest"
	"github.com/retrylab/retrylab/site/markdown"
)

// ImagesDir is where an article's images are, in content/ and on the site.
const ImagesDir = "images"

// Site is what a link of a page may point at: the pages and files the
// site serves, and the ids of each page whose ids are known.
type Site struct {
	Paths map[string]bool     // every URL path served: "/double-charge/", "/images/flow.svg", "/feed.xml"
	IDs   map[string][]string // page URL -> its ids (articles and the authors' guide)
	Pages []string            // the pages' URLs, for suggestions
	// CSP is the Content-Security-Policy the site sends with the page at
	// a URL path, which says where its images may come from; "" or a nil
	// CSP sends none, and any image is allowed.
	CSP func(page string) string

	sorted bool // Pages is in order
}

// New returns an empty Site.
func New() *Site { return &Site{Paths: map[string]bool{}, IDs: map[string][]string{}} }

// Add records a page with its ids.
func (s *Site) Add(u string, ids []string) {
	s.AddUnknown(u)
	s.IDs[u] = append([]string{}, ids...)
}

// AddUnknown records a page whose ids are not known (one with problems):
// a link to any section of it is taken.
func (s *Site) AddUnknown(u string) {
	s.Paths[u] = true
	s.Pages = append(s.Pages, u)
	s.sorted = false
}

// Check says what is wrong with the link or image r of the page at the
// URL path page, or "". It may sort Pages, so it is not for use by
// several goroutines at once.
func (s *Site) Check(page string, r markdown.Ref) string {
	if !s.sorted {
		sortStrings(s.Pages)
		s.sorted = true
	}
	what := "link to " + r.Dest
	if r.Image {
		what = "image " + r.Dest
	}
	u, err := url.Parse(r.Dest)
	if err != nil {
		return what + ": not a URL (" + err.Error() + ")"
	}
	if u.Scheme != "" || u.Host != "" {
		if r.Image && !s.imageAllowed(page, u) {
			return what + ": the Content-Security-Policy (img-src in netlify.toml) blocks images from other sites: save the file in content/" + ImagesDir + "/ and write /" + ImagesDir + "/NAME"
		}
		return "" // another site's page, or a mailto:
	}
	target := (&url.URL{Path: page}).ResolveReference(u)
	// /double-charge is /double-charge/, as Netlify redirects it.
	pathOK := s.Paths[target.Path] || s.Paths[target.Path+"/"]
	if !pathOK {
		if r.Image {
			return what + ": no such file (images go in content/" + ImagesDir + "/, written /" + ImagesDir + "/NAME)"
		}
		msg := what + ": no such page"
		if strings.HasSuffix(target.Path, ".md") {
			return msg + " (link to the page, /" + strings.TrimSuffix(target.Path[strings.LastIndex(target.Path, "/")+1:], ".md") + "/, not to its file)"
		}
		if near := suggest.Closest(target.Path, s.Pages); near != "" {
			msg += " (did you mean " + near + "?)"
		}
		return msg
	}
	if u.Fragment == "" {
		return ""
	}
	p := target.Path
	if !s.Paths[p] {
		p += "/"
	}
	ids, known := s.IDs[p]
	if !known || slices.Contains(ids, u.Fragment) {
		return ""
	}
	msg := what + ": " + p + " has no section or widget with the id \"" + u.Fragment + "\""
	if near := suggest.Closest(u.Fragment, ids); near != "" {
		msg += " (did you mean #" + near + "?)"
	}
	return msg
}

// imageAllowed reports whether the img-src of the policy the site sends
// with page allows the image at u.
func (s *Site) imageAllowed(page string, u *url.URL) bool {
	csp := ""
	if s.CSP != nil {
		csp = s.CSP(page)
	}
	if csp == "" {
		return true
	}
	var sources []string
	for _, dir := range strings.Split(csp, ";") {
		f := strings.Fields(dir)
		if len(f) == 0 {
			continue
		}
		if f[0] == "img-src" {
			sources = f[1:]
			break
		}
		if f[0] == "default-src" {
			sources = f[1:]
		}
	}
	for _, src := range sources {
		switch {
		case src == "*" && u.Scheme != "data":
			return true
		case strings.HasSuffix(src, ":") && !strings.Contains(src, "/"):
			if strings.EqualFold(src, u.Scheme+":") {
				return true
			}
		case strings.EqualFold(strings.TrimSuffix(src, "/"), u.Scheme+"://"+u.Host):
			return true
		}
	}
	return false
}

// Data is a Site as JSON carries it to the playground's page, with the
// policy of one page: that of an article at the address the draft takes.
type Data struct {
	Paths []string            `json:"paths"` // sorted
	Pages []string            `json:"pages"`
	IDs   map[string][]string `json:"ids"`
	CSP   string              `json:"csp,omitempty"`
}

// Data is s for a draft that would be served at the URL path page.
func (s *Site) Data(page string) Data {
	sortStrings(s.Pages)
	s.sorted = true
	d := Data{Pages: s.Pages, IDs: s.IDs}
	for p := range s.Paths {
		d.Paths = append(d.Paths, p)
	}
	sortStrings(d.Paths)
	if s.CSP != nil {
		d.CSP = s.CSP(page)
	}
	return d
}

// Site is the Site d describes; every page has d's policy.
func (d Data) Site() *Site {
	s := New()
	for _, p := range d.Paths {
		s.Paths[p] = true
	}
	for u, ids := range d.IDs {
		s.IDs[u] = ids
	}
	s.Pages = append([]string{}, d.Pages...)
	csp := d.CSP
	s.CSP = func(string) string { return csp }
	return s
}

// sortStrings sorts a. Not sort.Strings: its pdqsort of strings would be
// linked into the playground's module beside the stable sort the
// widgets link already.
func sortStrings(a []string) { sort.Stable(sort.StringSlice(a)) }
