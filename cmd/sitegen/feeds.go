package main

import (
	"bytes"
	"encoding/xml"
	"math"
	"strings"
	"time"
	"unicode"
)

// The files other programs read: sitemap.xml for search engines and
// feed.xml, an Atom feed of the articles, for feed readers. Every date in
// them is an article's front-matter date, never the build's, so that
// rebuilding the site changes neither.

// sitemap lists the home page and every article, in handbook order, with
// its date.
func sitemap(origin string, index *article, list []*article) ([]byte, error) {
	type url struct {
		Loc     string `xml:"loc"`
		LastMod string `xml:"lastmod,omitempty"`
	}
	doc := struct {
		XMLName xml.Name `xml:"urlset"`
		NS      string   `xml:"xmlns,attr"`
		URLs    []url    `xml:"url"`
	}{NS: "http://www.sitemaps.org/schemas/sitemap/0.9"}
	for _, a := range append([]*article{index}, list...) {
		u := url{Loc: origin + a.URL}
		if !a.Date.IsZero() {
			u.LastMod = a.Date.Format(time.DateOnly)
		}
		doc.URLs = append(doc.URLs, u)
	}
	return marshalXML(doc)
}

// atomFeed is the Atom feed (RFC 4287) of the articles with a date,
// newest first, then in handbook order. The feed's own updated time is
// its newest entry's.
func atomFeed(origin string, index *article, list []*article) ([]byte, error) {
	type link struct {
		Href string `xml:"href,attr"`
		Rel  string `xml:"rel,attr,omitempty"`
		Type string `xml:"type,attr,omitempty"`
	}
	type text struct {
		Type string `xml:"type,attr,omitempty"`
		Body string `xml:",chardata"`
	}
	type entry struct {
		Title     text   `xml:"title"`
		Link      link   `xml:"link"`
		ID        string `xml:"id"`
		Published string `xml:"published"`
		Updated   string `xml:"updated"`
		Summary   text   `xml:"summary"`
	}
	type person struct {
		Name string `xml:"name"`
	}
	feed := struct {
		XMLName  xml.Name `xml:"http://www.w3.org/2005/Atom feed"`
		Title    string   `xml:"title"`
		Subtitle string   `xml:"subtitle"`
		Links    []link   `xml:"link"`
		ID       string   `xml:"id"`
		Updated  string   `xml:"updated"`
		Author   person   `xml:"author"`
		Entries  []entry  `xml:"entry"`
	}{
		Title:    siteName,
		Subtitle: index.Description,
		Links: []link{
			{Href: origin + "/feed.xml", Rel: "self", Type: "application/atom+xml"},
			{Href: origin + "/", Rel: "alternate", Type: "text/html"},
		},
		ID:     origin + "/",
		Author: person{Name: siteName},
	}
	var dated []*article
	for _, a := range list {
		if !a.Date.IsZero() {
			dated = append(dated, a)
		}
	}
	// Newest first; handbook order within a day (list is in that order).
	for i := 1; i < len(dated); i++ {
		for j := i; j > 0 && dated[j].Date.After(dated[j-1].Date); j-- {
			dated[j], dated[j-1] = dated[j-1], dated[j]
		}
	}
	var newest time.Time
	for _, a := range dated {
		when := a.Date.UTC().Format(time.RFC3339)
		feed.Entries = append(feed.Entries, entry{
			Title:     text{Type: "text", Body: a.Title},
			Link:      link{Href: origin + a.URL, Rel: "alternate", Type: "text/html"},
			ID:        origin + a.URL,
			Published: when,
			Updated:   when,
			Summary:   text{Type: "text", Body: a.Description},
		})
		if a.Date.After(newest) {
			newest = a.Date
		}
	}
	if newest.IsZero() {
		newest = index.Date // zero too when the home page has none: 0001-01-01
	}
	feed.Updated = newest.UTC().Format(time.RFC3339)
	return marshalXML(feed)
}

func marshalXML(v any) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	enc.Indent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// Reading speed, for the reading times on the home page and under each
// title: words of prose and code a minute, and minutes for each widget,
// which a reader stops to run.
const (
	wordsPerMinute   = 220
	minutesPerWidget = 1.0
)

// readingMinutes estimates how long src, an article's markdown, takes to
// read: its words outside the front matter and widget blocks at
// wordsPerMinute, plus minutesPerWidget for each widget block, rounded up,
// at least 1.
func readingMinutes(src []byte) int {
	text := string(src)
	if strings.HasPrefix(text, "---\n") {
		if end := strings.Index(text[4:], "\n---"); end >= 0 {
			text = text[4+end+4:]
		}
	}
	words, widgets := 0, 0
	inWidget, inFence := false, false
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") {
			switch {
			case inWidget || inFence:
				inWidget, inFence = false, false
			case strings.HasPrefix(trimmed, "```widget"):
				inWidget = true
				widgets++
			default:
				inFence = true
			}
			continue
		}
		if inWidget {
			continue
		}
		words += len(strings.FieldsFunc(line, func(r rune) bool { return unicode.IsSpace(r) }))
	}
	m := float64(words)/wordsPerMinute + float64(widgets)*minutesPerWidget
	return max(1, int(math.Ceil(m)))
}
