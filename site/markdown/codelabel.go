package markdown

import (
	"html"
	"strings"
)

// A highlighted code block as Convert writes it runs from preOpen, or
// preOpenWrap for a block whose lines wrap (see wrapClass), to the first
// preClose after it.
const (
	preOpen     = `<pre tabindex="0" class="chroma">`
	preOpenWrap = `<pre tabindex="0" class="chroma ` + wrapClass + `">`
	preClose    = `</pre>`
)

// nextPre returns where the next highlighted code block in body opens, or
// -1. It scans once for what both openings start with.
func nextPre(body string) int {
	const common = `<pre tabindex="0" class="chroma`
	for at := 0; ; {
		i := strings.Index(body[at:], common)
		if i < 0 {
			return -1
		}
		rest := body[at+i:]
		if strings.HasPrefix(rest, preOpen) || strings.HasPrefix(rest, preOpenWrap) {
			return at + i
		}
		at += i + len(common)
	}
}

// LabelCode wraps every code block of an article's body in a
// <div class="code">, which site.js gives its Copy button, and labels the
// blocks of an HTTP exchange: a block that runs curl is the "Request",
// the block after it the "Response"; a block of another command ("go run",
// "make") is a "Command", the block after it its "Output".
//
// The blocks are found by scanning: a regular expression over every body
// took a tenth of a 1,000-article build's time.
func LabelCode(body string) string {
	var b strings.Builder
	b.Grow(len(body) + len(body)/8)
	prev := ""
	for {
		i := nextPre(body)
		if i < 0 {
			break
		}
		n := strings.Index(body[i:], preClose)
		if n < 0 {
			break
		}
		end := i + n + len(preClose)
		b.WriteString(body[:i])
		prev = writeLabelled(&b, body[i:end], prev)
		body = body[end:]
	}
	b.WriteString(body)
	return b.String()
}

// writeLabelled writes the code block pre wrapped and labelled, given the
// label of the block before it, and returns its own ("" for none).
func writeLabelled(b *strings.Builder, pre, prev string) string {
	first := firstLine(pre)
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
	if label == "" {
		b.WriteString(`<div class="code">` + pre + `</div>`)
	} else {
		b.WriteString(`<div class="code labelled" data-label="` + strings.ToLower(label) + `"><p class="code-label">` + label + `</p>` + pre + `</div>`)
	}
	return label
}

// firstLine is the first line of the text of pre (an HTML element, tags
// and all) that is not blank, trimmed and unescaped. It reads no further
// than that line: stripping the tags of the whole block, as a regular
// expression would, took a fiftieth of a 1,000-article build's CPU.
func firstLine(pre string) string {
	var line strings.Builder
	for pre != "" {
		i := strings.IndexAny(pre, "<\n")
		if i < 0 {
			line.WriteString(pre)
			break
		}
		line.WriteString(pre[:i])
		if pre[i] == '<' {
			end := strings.IndexByte(pre[i:], '>')
			if end < 0 {
				break // an unclosed tag: no more text
			}
			pre = pre[i+end+1:]
			continue
		}
		if t := strings.TrimSpace(html.UnescapeString(line.String())); t != "" {
			return t
		}
		line.Reset()
		pre = pre[i+1:]
	}
	return strings.TrimSpace(html.UnescapeString(line.String()))
}
