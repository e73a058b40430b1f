package main

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/retrylab/retrylab/internal/suggest"
	"github.com/retrylab/retrylab/site/markdown"
)

// siteMap is what a link in an article may point at: the pages and files
// of the site being built, and the ids of each page whose ids are known.
type siteMap struct {
	paths map[string]bool     // every URL path served: "/double-charge/", "/images/flow.svg", "/feed.xml"
	ids   map[string][]string // page URL -> its ids (articles and the authors' guide)
	pages []string            // the pages' URLs, sorted, for suggestions
	rules []HeaderRule        // netlify.toml's, for the images' Content-Security-Policy
}

// add records a page with its ids.
func (m *siteMap) add(u string, ids []string) {
	m.addUnknown(u)
	m.ids[u] = append([]string{}, ids...)
}

// addUnknown records a page whose ids are not known (one with problems):
// a link to any section of it is taken.
func (m *siteMap) addUnknown(u string) {
	m.paths[u] = true
	m.pages = append(m.pages, u)
}

// checkRefs checks every link and image of the pages against the site:
// each is "file:line: what" in the returned error.
func (m *siteMap) checkRefs(pages []*article) error {
	sort.Strings(m.pages)
	var errs []error
	for _, p := range pages {
		for _, r := range p.Refs {
			if msg := m.check(p, r); msg != "" {
				errs = append(errs, &markdown.SourceError{Path: p.Path, Line: r.Line, Err: errors.New(msg)})
			}
		}
	}
	return errors.Join(errs...)
}

// check says what is wrong with one link or image of page p, or "".
func (m *siteMap) check(p *article, r markdown.Ref) string {
	what := "link to " + r.Dest
	if r.Image {
		what = "image " + r.Dest
	}
	u, err := url.Parse(r.Dest)
	if err != nil {
		return what + ": not a URL (" + err.Error() + ")"
	}
	if u.Scheme != "" || u.Host != "" {
		if r.Image && !m.imageAllowed(p.URL, u) {
			return what + ": the Content-Security-Policy (img-src in netlify.toml) blocks images from other sites: save the file in content/" + imagesDir + "/ and write /" + imagesDir + "/NAME"
		}
		return "" // another site's page, or a mailto:
	}
	target := (&url.URL{Path: p.URL}).ResolveReference(u)
	// /double-charge is /double-charge/, as Netlify redirects it.
	pathOK := m.paths[target.Path] || m.paths[target.Path+"/"]
	if !pathOK {
		if r.Image {
			return what + ": no such file (images go in content/" + imagesDir + "/, written /" + imagesDir + "/NAME)"
		}
		msg := what + ": no such page"
		if strings.HasSuffix(target.Path, ".md") {
			return msg + " (link to the page, /" + strings.TrimSuffix(target.Path[strings.LastIndex(target.Path, "/")+1:], ".md") + "/, not to its file)"
		}
		if near := suggest.Closest(target.Path, m.pages); near != "" {
			msg += " (did you mean " + near + "?)"
		}
		return msg
	}
	if u.Fragment == "" {
		return ""
	}
	page := target.Path
	if !m.paths[page] {
		page += "/"
	}
	ids, known := m.ids[page]
	if !known || slices.Contains(ids, u.Fragment) {
		return ""
	}
	msg := what + ": " + page + " has no section or widget with the id \"" + u.Fragment + "\""
	if near := suggest.Closest(u.Fragment, ids); near != "" {
		msg += " (did you mean #" + near + "?)"
	}
	return msg
}

// imageAllowed reports whether the img-src of the policy netlify.toml
// sends with page allows the image at u.
func (m *siteMap) imageAllowed(page string, u *url.URL) bool {
	h := http.Header{}
	applyHeaders(h, m.rules, page)
	csp := h.Get("Content-Security-Policy")
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
	for _, s := range sources {
		switch {
		case s == "*" && u.Scheme != "data":
			return true
		case strings.HasSuffix(s, ":") && !strings.Contains(s, "/"):
			if strings.EqualFold(s, u.Scheme+":") {
				return true
			}
		case strings.EqualFold(strings.TrimSuffix(s, "/"), u.Scheme+"://"+u.Host):
			return true
		}
	}
	return false
}
