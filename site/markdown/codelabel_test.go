package markdown

import "testing"

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

func TestFocusablePre(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"<p>no code</p>", "<p>no code</p>"},
		{"<pre><code>a</code></pre><p>b</p><pre class=\"chroma\">c</pre>",
			`<pre tabindex="0"><code>a</code></pre><p>b</p><pre tabindex="0" class="chroma">c</pre>`},
		{"<p>&lt;pre&gt; and <preview></p><pre", "<p>&lt;pre&gt; and <preview></p><pre"},
	} {
		if got := focusablePre(c.body); got != c.want {
			t.Errorf("focusablePre(%q)\n = %q\nwant %q", c.body, got, c.want)
		}
	}
}
