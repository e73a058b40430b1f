package markdown

import (
	"html"
	"regexp"
	"strings"
)

// codeBlock matches a highlighted code block as Convert writes it
// (Highlighting, then focusablePre).
var codeBlock = regexp.MustCompile(`(?s)<pre tabindex="0" class="chroma">.*?</pre>`)

var anyTag = regexp.MustCompile(`<[^>]*>`)

// LabelCode wraps every code block of an article's body in a
// <div class="code">, which site.js gives its Copy button, and labels the
// blocks of an HTTP exchange: a block that runs curl is the "Request",
// the block after it the "Response"; a block of another command ("go run",
// "make") is a "Command", the block after it its "Output".
func LabelCode(body string) string {
	prev := ""
	return codeBlock.ReplaceAllStringFunc(body, func(pre string) string {
		first := firstLine(html.UnescapeString(anyTag.ReplaceAllString(pre, "")))
		label := ""
		switch {
		case strings.HasPrefix(first, "curl ") || strings.HasPrefix(first, "$ curl "):
			label = "Request"
		case prev == "Request" || strings.HasPrefix(first, "HTTP/"):
			label = "Response"
		case strings.HasPrefix(first, "go run ") || strings.HasPrefix(first, "make "):
			label = "Command"
		case prev == "Command":
			label = "Output"
		}
		prev = label
		if label == "" {
			return `<div class="code">` + pre + `</div>`
		}
		return `<div class="code labelled" data-label="` + strings.ToLower(label) + `"><p class="code-label">` + label + `</p>` + pre + `</div>`
	})
}

// firstLine is the first line of s that is not blank, trimmed.
func firstLine(s string) string {
	for line := range strings.SplitSeq(s, "\n") {
		if t := strings.TrimSpace(line); t != "" {
			return t
		}
	}
	return ""
}
