package main

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/retrylab/retrylab/site/linkcheck"
)

// exampleFile is the playground's starter text: the draft a first visit
// shows, and what "Reset to example" brings back.
const exampleFile = "site/playground.md"

// readExample reads the playground's starter text and converts it as an
// article, so that an example the build would refuse fails the build at
// its line.
func readExample(root string, conv converter) (string, error) {
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(exampleFile)))
	if err != nil {
		return "", err
	}
	if _, err := conv.Convert(exampleFile, src); err != nil {
		return "", err
	}
	return string(src), nil
}

// playgroundPage is the page of /playground/: the editor, with the
// example in it, and the preview, which the page's script draws
// (site/static/playground.js), with links, the site's pages and ids that
// the playground's module checks a draft's links against.
func playgroundPage(example string, links linkcheck.Data, origin string) *pageData {
	// Strings, and slices and maps of them, always marshal. The page
	// carries the JSON in an attribute (the CSP allows no inline script,
	// and the build's test no script element without a src).
	js, _ := json.Marshal(links)
	return &pageData{
		SiteName:    siteName,
		Title:       "Playground",
		DocTitle:    "Playground · " + siteName,
		Description: "Write an article's markdown and widget blocks and see the page the build makes of it, widgets running, as you type.",
		URL:         "/" + playgroundDir + "/",
		Example:     example,
		SiteLinks:   string(js),
		Canonical:   origin + "/" + playgroundDir + "/",
	}
}
