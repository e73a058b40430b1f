// Package markup writes HTML and SVG with escaping, without html/template
// (which would bring reflection, and megabytes, into the WebAssembly
// module). The widgets' views and the charts share it, in the generator
// and in the page.
package markup

import "strings"

// HTML builds markup. Attribute values and text are always escaped; Raw is
// for markup built by this package's writers.
type HTML struct {
	b strings.Builder
}

// Open writes a start tag. attrs are name, value pairs; a pair whose value
// is the empty string and whose name is a boolean attribute ("checked",
// "selected", "disabled", "hidden") is left out when empty and written bare
// when "true". An empty class is left out too.
func (h *HTML) Open(tag string, attrs ...string) *HTML {
	h.b.WriteByte('<')
	h.b.WriteString(tag)
	h.attrs(attrs)
	h.b.WriteByte('>')
	return h
}

// Void writes an element without content (img, input, path, ...). For SVG
// elements it writes the self-closing form.
func (h *HTML) Void(tag string, attrs ...string) *HTML {
	h.b.WriteByte('<')
	h.b.WriteString(tag)
	h.attrs(attrs)
	h.b.WriteString("/>")
	return h
}

func (h *HTML) attrs(attrs []string) {
	if len(attrs)%2 != 0 {
		panic("markup: odd attribute list for an element")
	}
	for i := 0; i < len(attrs); i += 2 {
		name, val := attrs[i], attrs[i+1]
		if name == "class" && val == "" {
			continue // no class="" for a class that comes and goes
		}
		if isBoolAttr(name) {
			if val == "" || val == "false" {
				continue
			}
			h.b.WriteByte(' ')
			h.b.WriteString(name)
			continue
		}
		h.b.WriteByte(' ')
		h.b.WriteString(name)
		h.b.WriteString(`="`)
		escape(&h.b, val)
		h.b.WriteByte('"')
	}
}

func isBoolAttr(name string) bool {
	switch name {
	case "checked", "selected", "disabled", "hidden", "open", "required", "readonly", "async", "novalidate":
		return true
	}
	return false
}

// Close writes an end tag.
func (h *HTML) Close(tag string) *HTML {
	h.b.WriteString("</")
	h.b.WriteString(tag)
	h.b.WriteByte('>')
	return h
}

// Text writes escaped text.
func (h *HTML) Text(s string) *HTML {
	escape(&h.b, s)
	return h
}

// Elem writes a whole element with escaped text content.
func (h *HTML) Elem(tag, text string, attrs ...string) *HTML {
	return h.Open(tag, attrs...).Text(text).Close(tag)
}

// Raw writes markup as is. Only for markup this package built.
func (h *HTML) Raw(s string) *HTML {
	h.b.WriteString(s)
	return h
}

// String returns the markup written so far.
func (h *HTML) String() string { return h.b.String() }

// Len is the number of bytes written so far.
func (h *HTML) Len() int { return h.b.Len() }

// Escape returns s with &, <, >, " and ' escaped for text and attributes.
func Escape(s string) string {
	var b strings.Builder
	escape(&b, s)
	return b.String()
}

func escape(b *strings.Builder, s string) {
	last := 0
	for i := 0; i < len(s); i++ {
		var rep string
		switch s[i] {
		case '&':
			rep = "&amp;"
		case '<':
			rep = "&lt;"
		case '>':
			rep = "&gt;"
		case '"':
			rep = "&#34;"
		case '\'':
			rep = "&#39;"
		default:
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(rep)
		last = i + 1
	}
	b.WriteString(s[last:])
}
