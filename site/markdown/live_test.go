package markdown

import (
	"encoding/json"
	"html"
	"regexp"
	"strings"
	"testing"
)

// A live block becomes the live API panel: its root, its controls (off
// until live.js wires them), its curl session escaped, and its script and
// stylesheet when the build names them.
func TestLiveBlock(t *testing.T) {
	src := fm + "\n```live\ncurl -i localhost:8787/v1/payments -d '{\"amount\": 2500}' <x>\n```\n"
	c := New(WithLiveOptions(LiveAPI("https://api.example"), LiveAssets("/static/live.0a1b2c3d.js", "/static/live.4e5f6a7b.css")))
	p, err := c.Convert(path, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<section class="widget live" id="live-1" data-widget="live" data-api="https://api.example"`,
		`<input type="radio" name="keys" value="per-intent" checked disabled>`,
		`<select name="fault" disabled><option value="">none</option><option value="lose-request">`,
		`<option value="lose-response">`, `<option value="slow=3000">`,
		`<button type="submit" class="live-send" data-action="send" disabled>Send</button>`,
		`<button type="button" data-action="retry" disabled>Retry</button>`,
		`<code>curl -i localhost:8787/v1/payments -d &#39;{&#34;amount&#34;: 2500}&#39; &lt;x&gt;</code>`,
		`<script src="/static/live.0a1b2c3d.js" defer></script>`,
		`<link rel="stylesheet" href="/static/live.4e5f6a7b.css">`,
	} {
		if !strings.Contains(p.Body, want) {
			t.Errorf("the panel lacks %s:\n%s", want, p.Body)
		}
	}
	// live.js finds each part by the selector the panel carries, and each
	// selector finds its part in the markup.
	m := regexp.MustCompile(`data-selectors="([^"]*)"`).FindStringSubmatch(p.Body)
	if m == nil {
		t.Fatalf("the panel carries no data-selectors:\n%s", p.Body)
	}
	var sel map[string]string
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &sel); err != nil {
		t.Fatalf("data-selectors %s: %v", m[1], err)
	}
	for _, name := range []string{"controls", "status", "log", "ledger", "curl", "send", "retry", "account"} {
		attr := strings.TrimSuffix(strings.TrimPrefix(sel[name], "["), "]")
		if attr == "" || !strings.Contains(p.Body, " "+attr+" ") && !strings.Contains(p.Body, " "+attr+">") {
			t.Errorf("selector %s = %q finds nothing in the panel", name, sel[name])
		}
	}
	if strings.Contains(p.Body, "<x>") || len(p.Widgets) != 0 {
		t.Errorf("the curl text is not escaped, or the panel counts as a simulator (%v)", p.Widgets)
	}
	// Without the build's settings: the page's own origin, no assets.
	p, err = New().Convert(path, []byte(src+"\n```live\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Body, `id="live-2" data-widget="live" data-api=""`) || strings.Contains(p.Body, "<script") {
		t.Errorf("without options:\n%s", p.Body)
	}
}
