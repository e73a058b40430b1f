package markdown

import (
	"strings"
	"testing"
)

func TestLabelCode(t *testing.T) {
	pre := func(code string) string {
		return preOpen + `<code><span class="line">` + code + "\n</span></code>" + preClose
	}
	div := func(code string) string { return `<div class="code">` + pre(code) + `</div>` }
	labelled := func(label, code string) string {
		return `<div class="code labelled" data-label="` + map[string]string{"Request": "request", "Response": "response", "Command": "command", "Output": "output"}[label] +
			`"><p class="code-label">` + label + `</p>` + pre(code) + `</div>`
	}
	for _, c := range []struct{ body, want string }{
		{"<p>no code</p>", "<p>no code</p>"},
		{"<p>a</p>" + pre("x := 1") + "<p>b</p>", "<p>a</p>" + div("x := 1") + "<p>b</p>"},
		{pre("curl -X POST https://api.example/v1/charges") + pre("HTTP/1.1 200 OK") + pre("fmt.Println()"),
			labelled("Request", "curl -X POST https://api.example/v1/charges") + labelled("Response", "HTTP/1.1 200 OK") + div("fmt.Println()")},
		{pre("go run ./cmd/retrylab sim payment") + "<p>then</p>" + pre("charges: 1") + pre("x"),
			labelled("Command", "go run ./cmd/retrylab sim payment") + "<p>then</p>" + labelled("Output", "charges: 1") + div("x")},
		{pre("$ curl -i localhost &amp;&amp; echo"), labelled("Request", "$ curl -i localhost &amp;&amp; echo")},
		// A block never closed is left as it is.
		{"<p>a</p>" + preOpen + "<code>open", "<p>a</p>" + preOpen + "<code>open"},
		{`<pre tabindex="0"><code>plain</code></pre>`, `<pre tabindex="0"><code>plain</code></pre>`},
		// The first line that is not blank decides, its words split by tags.
		{pre("\n  \n<span class=\"nv\">go</span> <span>run</span> ./x\ncurl"), labelled("Command", "\n  \n<span class=\"nv\">go</span> <span>run</span> ./x\ncurl")},
		{pre("x\ncurl -i localhost"), div("x\ncurl -i localhost")},
		// A block whose lines wrap is labelled like any other.
		{pre("go run ./cmd/retrylab check URL") + preOpenWrap + "<code>pass  replay</code>" + preClose,
			labelled("Command", "go run ./cmd/retrylab check URL") + `<div class="code labelled" data-label="output"><p class="code-label">Output</p>` +
				preOpenWrap + "<code>pass  replay</code>" + preClose + `</div>`},
		// Only chroma's two openings open a block.
		{`<pre tabindex="0" class="chromatic">x</pre>`, `<pre tabindex="0" class="chromatic">x</pre>`},
	} {
		if got := LabelCode(c.body); got != c.want {
			t.Errorf("LabelCode(%q)\n = %q\nwant %q", c.body, got, c.want)
		}
	}
}

// Every code block is in the keyboard's tab order, whichever renderer
// writes it: chroma for a language it knows, with or without the class
// wrap, the extension for one it does not or none, goldmark's indented
// block.
func TestCodeBlocksTakeFocus(t *testing.T) {
	src := "---\ntitle: Code\n---\n\n```go\nx := 1\n```\n\n```text {.wrap}\nlong line\n```\n\n" +
		"```nosuchlang\na < b\n```\n\n```\nplain\n```\n\nText.\n\n    indented <code>\n"
	page, err := New().Convert("code.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	body := page.Body
	if n := strings.Count(body, "<pre"); n != 5 {
		t.Fatalf("%d code blocks, want 5:\n%s", n, body)
	}
	if n := strings.Count(body, `<pre tabindex="0"`); n != 5 {
		t.Errorf("%d of 5 code blocks take focus:\n%s", n, body)
	}
	for _, want := range []string{
		`<pre tabindex="0" class="chroma"><code>`,
		`<pre tabindex="0" class="chroma wrap"><code>`,
		`<pre tabindex="0"><code class="language-nosuchlang">a &lt; b` + "\n</code></pre>",
		`<pre tabindex="0"><code>plain` + "\n</code></pre>",
		`<pre tabindex="0"><code>indented &lt;code&gt;` + "\n</code></pre>",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("no %q in\n%s", want, body)
		}
	}
}
