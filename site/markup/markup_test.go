package markup

import "testing"

func TestEscape(t *testing.T) {
	if got := Escape(`<a href="x">'&'</a>`); got != "&lt;a href=&#34;x&#34;&gt;&#39;&amp;&#39;&lt;/a&gt;" {
		t.Fatalf("Escape = %s", got)
	}
	var h HTML
	h.Open("p", "title", `"><script>`, "hidden", "", "checked", "true").Text("<b>").Close("p")
	if h.String() != `<p title="&#34;&gt;&lt;script&gt;" checked>&lt;b&gt;</p>` {
		t.Fatalf("HTML = %s", h.String())
	}
}
