package main

import (
	"errors"
	"net/http"

	"github.com/retrylab/retrylab/site/linkcheck"
	"github.com/retrylab/retrylab/site/markdown"
)

// siteMap is what a link in an article may point at: the pages and files
// of the site being built and the ids of each page whose ids are known
// (site/linkcheck, which the playground checks its drafts with too), with
// the Content-Security-Policy of netlify.toml for the images.
type siteMap struct {
	*linkcheck.Site
}

// newLinkSite returns an empty siteMap whose images are checked against
// the policy rules send with each page.
func newLinkSite(rules []HeaderRule) *siteMap {
	s := linkcheck.New()
	s.CSP = func(page string) string {
		h := http.Header{}
		applyHeaders(h, rules, page)
		return h.Get("Content-Security-Policy")
	}
	return &siteMap{s}
}

// checkRefs checks every link and image of the pages against the site:
// each is "file:line: what" in the returned error.
func (m *siteMap) checkRefs(pages []*article) error {
	var errs []error
	for _, p := range pages {
		for _, r := range p.Refs {
			if msg := m.Check(p.URL, r); msg != "" {
				errs = append(errs, &markdown.SourceError{Path: p.Path, Line: r.Line, Err: errors.New(msg)})
			}
		}
	}
	return errors.Join(errs...)
}
