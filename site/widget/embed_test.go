package widget

import (
	"strings"
	"testing"

	"github.com/retrylab/retrylab/engine/param"
)

// The snippet names the widget and, as data-* attributes, only the
// parameters that differ from their defaults, in schema order, lists with
// bare commas; embed.js comes from the origin given.
func TestSnippet(t *testing.T) {
	const origin = "https://retrylab.example"
	for _, c := range []struct {
		w    *Widget
		raw  map[string]string
		want string
	}{
		{&Payment, nil, `<div data-retrylab="payment"></div>`},
		{&Payment, map[string]string{"keys": "per-intent"}, `<div data-retrylab="payment" data-keys="per-intent"></div>`},
		{&Payment, map[string]string{"attempts": "4", "keys": "per-attempt", "faults": "lose-request, lose-response"},
			`<div data-retrylab="payment" data-keys="per-attempt" data-faults="lose-request,lose-response" data-attempts="4"></div>`},
		{&Storm, map[string]string{"skip-expired": "on"}, `<div data-retrylab="storm" data-skip-expired="on"></div>`},
	} {
		v, err := c.w.Schema.Parse(c.raw)
		if err != nil {
			t.Fatal(err)
		}
		want := c.want + `<script src="https://retrylab.example/embed.js" async></script>`
		if got := Snippet(c.w.Name, v, origin); got != want {
			t.Errorf("%s %v:\n got %s\nwant %s", c.w.Name, c.raw, got, want)
		}
	}
}

// A permalink names the widget by its id and carries its state; the page
// reads both back, and the state parses to the same values, for every
// widget, at its defaults and with one parameter changed.
func TestPermalinkRoundTrip(t *testing.T) {
	for _, w := range All() {
		for _, p := range append(Schema{{}}, w.Schema...) {
			v := w.Schema.Defaults()
			if p.Name != "" {
				v = changeOne(t, v, p)
			}
			id := "w-" + w.Name + "-2"
			link := Permalink(id, v)
			query, frag, ok := strings.Cut(link, "#")
			if !ok || frag != id || !strings.HasPrefix(query, "?w="+w.Name+"-2") {
				t.Fatalf("%s: permalink %q", w.Name, link)
			}
			gotID, rest := SplitPermalink(query)
			if gotID != id {
				t.Errorf("%s: permalink %q names %q", w.Name, link, gotID)
			}
			back, err := w.Schema.ParseQuery(rest)
			if err != nil {
				t.Fatalf("%s: %q: %v", w.Name, link, err)
			}
			if back.JSON() != v.JSON() {
				t.Errorf("%s: %q gives %s, want %s", w.Name, link, back.JSON(), v.JSON())
			}
		}
	}
}

// changeOne returns v with p set to a value other than its default.
func changeOne(t *testing.T, v Values, p Param) Values {
	t.Helper()
	var text string
	switch p.Kind {
	case Bool:
		text = "on"
		if v.Bool(p.Name) {
			text = "off"
		}
	case Int, Float:
		text = param.Number(p.Max)
		if v.Float(p.Name) == p.Max {
			text = param.Number(p.Min)
		}
	case Enum:
		text = p.Allowed[0]
		if v.String(p.Name) == text {
			text = p.Allowed[1]
		}
	case EnumList:
		text = p.Allowed[len(p.Allowed)-1]
		if text == p.Pad || strings.Join(v.List(p.Name), ",") == text {
			text = p.Allowed[1]
		}
	}
	out, err := v.With(p.Name, text)
	if err != nil && len(p.Rules) > 0 {
		// The bound breaks a rule against another parameter (slow-from
		// at 599 in a run of 120 s): one step from the default instead.
		def := v.Float(p.Name)
		text = param.Number(def + 1)
		if def+1 > p.Max {
			text = param.Number(def - 1)
		}
		out, err = v.With(p.Name, text)
	}
	if err != nil {
		t.Fatalf("%s=%s: %v", p.Name, text, err)
	}
	if out.IsDefault(p.Name) {
		t.Fatalf("%s=%s is the default", p.Name, text)
	}
	return out
}

func TestSplitPermalink(t *testing.T) {
	for _, c := range []struct{ query, id, rest string }{
		{"", "", ""},
		{"?keys=per-intent", "", "keys=per-intent"},
		{"?w=payment-1", "w-payment-1", ""},
		{"?keys=per-intent&w=payment-2&attempts=4", "w-payment-2", "keys=per-intent&attempts=4"},
		{"w=guard-1&strategy=claim-before-work", "w-guard-1", "strategy=claim-before-work"},
		// Twice, or empty: no widget, and the rest as it was, where
		// ParseQuery reports the stray w.
		{"?w=payment-1&w=payment-2", "", "w=payment-1&w=payment-2"},
		{"?w=&keys=off", "", "w=&keys=off"},
		{"?w=%zz", "", "w=%zz"},
	} {
		id, rest := SplitPermalink(c.query)
		if id != c.id || rest != c.rest {
			t.Errorf("SplitPermalink(%q) = %q, %q; want %q, %q", c.query, id, rest, c.id, c.rest)
		}
	}
}

// No widget has a parameter a permalink's w would hide, and every widget
// names the article that explains it.
func TestPermalinkParamIsFree(t *testing.T) {
	for _, w := range All() {
		if _, ok := w.Schema.Param(PermalinkParam); ok {
			t.Errorf("%s has a parameter called %q, the permalink's", w.Name, PermalinkParam)
		}
		if !strings.HasPrefix(w.Chapter, "/") || !strings.HasSuffix(w.Chapter, "/") || len(w.Chapter) < 3 {
			t.Errorf("%s: chapter %q is not an article's path", w.Name, w.Chapter)
		}
	}
}

// Every widget ends with the Embed panel: a disclosure with the snippet of
// its state in a labelled, read-only text area and the Copy button. The
// snippet is text: escaped.
func TestRenderEmbedPanel(t *testing.T) {
	for _, w := range All() {
		html := render(t, w, nil)
		id := "w-" + w.Name + "-1"
		panel := `<details class="w-embed"><summary>Embed</summary><div class="w-embed-body">` +
			`<label for="` + id + `-snippet">To show this widget, set as it is now, in another page, paste:</label>` +
			`<textarea id="` + id + `-snippet" class="w-snippet" readonly rows="3" spellcheck="false" data-region="snippet">` +
			`&lt;div data-retrylab=&#34;` + w.Name + `&#34;&gt;&lt;/div&gt;&lt;script src=&#34;https://retrylab.example/embed.js&#34; async&gt;&lt;/script&gt;</textarea>` +
			`<p class="w-embed-actions"><button type="button" class="w-copy" data-action="copy" aria-controls="` + id + `-snippet">Copy</button>` +
			`<span class="w-copied" role="status" data-region="copied"></span></p>`
		if !strings.Contains(html, panel) {
			t.Errorf("%s: no Embed panel %s", w.Name, panel)
		}
		// The permalink and Reset are in the toolbar beside the title, in
		// view without opening Embed; the figure is named by the title.
		tools := `<span class="w-title" id="` + id + `-title" role="heading" aria-level="2">` + w.Title + `</span>` +
			`<div class="w-tools"><a href="?w=` + w.Name + `-1#` + id + `" class="w-permalink" data-region="permalink">Link to this state</a>` +
			`<button type="button" class="w-reset" data-action="reset">Reset</button>` +
			`<span class="w-link-copied" role="status" data-region="link-copied"></span></div>`
		if !strings.Contains(html, tools) || !strings.Contains(html, ` aria-labelledby="`+id+`-title"`) {
			t.Errorf("%s: no toolbar %s", w.Name, tools)
		}
		if !strings.HasSuffix(html, "</details></figure>") {
			t.Errorf("%s: the Embed panel is not the widget's last part", w.Name)
		}
	}
	html := render(t, &Payment, map[string]string{"keys": "per-intent"})
	for _, want := range []string{
		`data-retrylab=&#34;payment&#34; data-keys=&#34;per-intent&#34;&gt;`,
		`href="?w=payment-1&amp;keys=per-intent#w-payment-1"`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("payment, keys per-intent: lacks %s", want)
		}
	}
}

// A parameter an embed snippet gives that the schema refuses is told in
// the snippet's words: the data-* attribute as written, its value, and
// what is allowed.
func TestSnippetError(t *testing.T) {
	for query, want := range map[string]string{
		"keys=bogus":     `data-keys="bogus" on the embed snippet is not allowed (allowed: off, per-intent, per-attempt)`,
		"attempts=99":    `data-attempts="99" on the embed snippet is out of bounds (allowed: 1 to 10)`,
		"colour=red":     `data-colour on the embed snippet: unknown parameter "colour" (known: `,
		"keys=%ZZ&x=1":   `query: "keys=%ZZ" is not valid URL encoding`,
		"keys=per-inten": `data-keys="per-inten" on the embed snippet is not allowed`,
	} {
		_, err := Payment.Schema.ParseQuery(query)
		if err == nil {
			t.Fatalf("%q: no error", query)
		}
		if got := Payment.Schema.SnippetError(err); !strings.HasPrefix(got, want) {
			t.Errorf("%q: %q, want it to begin %q", query, got, want)
		}
	}
}
