package markdown

import (
	"encoding/json"
	"errors"
	"html"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/retrylab/retrylab/site/widget"
)

// conv is shared by the tests, as the site generator shares one.
var conv = New()

const path = "content/retries.md"

// fm is front matter of three lines: an article's text starts on line 4.
const fm = "---\ntitle: Retries\n---\n"

var (
	tagRe  = regexp.MustCompile(`<[a-z]+(?:\s[^>]*)?>`)
	attrRe = regexp.MustCompile(`([a-z-]+)(?:="([^"]*)")?`)
)

// elements returns the attributes of each start tag in body that has the
// attribute name (with any value), in order, unescaped.
func elements(body, name string) []map[string]string {
	var out []map[string]string
	for _, tag := range tagRe.FindAllString(body, -1) {
		inner := strings.TrimSuffix(strings.TrimSuffix(tag, ">"), "/")
		inner = inner[strings.IndexAny(inner, " \t\n")+1:]
		if !strings.Contains(tag, " ") {
			continue
		}
		attrs := map[string]string{}
		for _, m := range attrRe.FindAllStringSubmatch(inner, -1) {
			attrs[m[1]] = html.UnescapeString(m[2])
		}
		if _, ok := attrs[name]; ok {
			out = append(out, attrs)
		}
	}
	return out
}

func TestWidgetBlock(t *testing.T) {
	// The published figures of engine/payment (amount 2500).
	tests := []struct {
		name    string
		body    string
		params  map[string]any // data-params, decoded
		charges string
		receipt string
	}{
		{
			name: "lost response without keys charges twice",
			body: "keys: off\nfaults: lose-response, ok\n",
			// attempts and amount take their defaults (3 and 2500); the trailing
			// "ok" is dropped, as every attempt past the list goes through anyway.
			params:  map[string]any{"keys": "off", "faults": []any{"lose-response"}, "attempts": 3.0, "amount": 2500.0},
			charges: "2", receipt: "ch_2",
		},
		{
			name:    "one key per intent charges once",
			body:    "# the fix\nkeys: per-intent\n\nfaults: lose-response, ok\n",
			params:  map[string]any{"keys": "per-intent", "faults": []any{"lose-response"}, "attempts": 3.0, "amount": 2500.0},
			charges: "1", receipt: "ch_1",
		},
		{
			name:    "lost request charges once",
			body:    "faults: lose-request, ok\namount: 9900\n",
			params:  map[string]any{"keys": "off", "faults": []any{"lose-request"}, "attempts": 3.0, "amount": 9900.0},
			charges: "1", receipt: "ch_1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := conv.Convert(path, []byte(fm+"\nText.\n\n```widget payment\n"+tt.body+"```\n"))
			if err != nil {
				t.Fatal(err)
			}
			roots := elements(p.Body, "data-widget")
			if len(roots) != 1 {
				t.Fatalf("got %d widget roots, want 1:\n%s", len(roots), p.Body)
			}
			root := roots[0]
			if root["data-widget"] != "payment" || root["id"] != "w-payment-1" {
				t.Errorf("root data-widget=%q id=%q, want payment, w-payment-1", root["data-widget"], root["id"])
			}
			var params map[string]any
			if err := json.Unmarshal([]byte(root["data-params"]), &params); err != nil {
				t.Fatalf("data-params %q: %v", root["data-params"], err)
			}
			if !reflect.DeepEqual(params, tt.params) {
				t.Errorf("data-params = %v, want %v", params, tt.params)
			}
			outcomes := elements(p.Body, "data-charges")
			if len(outcomes) != 1 {
				t.Fatalf("got %d outcome elements, want 1", len(outcomes))
			}
			if o := outcomes[0]; o["data-charges"] != tt.charges || o["data-receipt"] != tt.receipt {
				t.Errorf("outcome data-charges=%q data-receipt=%q, want %q, %q", o["data-charges"], o["data-receipt"], tt.charges, tt.receipt)
			}
			if !reflect.DeepEqual(p.Widgets, []string{"payment"}) {
				t.Errorf("Widgets = %q, want [payment]", p.Widgets)
			}
			// The block's lines, as written (the caption of the settings
			// says "Idempotency keys: off" in a sentence).
			if strings.Contains(p.Body, "<code class=\"language-widget") || strings.Contains(p.Body, ">keys:") || strings.Contains(p.Body, "\nkeys:") {
				t.Errorf("the block's source leaked into the page:\n%s", p.Body)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	known := strings.Join(widget.Names(), ", ")
	tests := []struct {
		name string
		src  string
		want string // the whole error, one problem per line
	}{
		{
			name: "unknown widget",
			src:  fm + "\nText.\n\n```widget paymnt\nkeys: off\n```\n",
			want: path + `:7: widget "paymnt": unknown widget (did you mean payment? known: ` + known + `)`,
		},
		{
			name: "unknown parameter",
			src:  fm + "\n```widget payment\nkeys: off\nkyes: on\n```\n",
			want: path + `:7: widget payment: unknown parameter "kyes" (did you mean keys? known: amount, attempts, faults, keys)`,
		},
		{
			name: "value not allowed, after a comment and a blank line",
			src:  fm + "\n```widget payment\n# try the bug\n\nkeys: maybe\n```\n",
			want: path + `:8: widget payment: keys: "maybe" is not allowed (allowed: off, per-intent, per-attempt)`,
		},
		{
			name: "value out of bounds",
			src:  fm + "\n```widget payment\nattempts: 11\n```\n",
			want: path + `:6: widget payment: attempts: "11" is out of bounds (allowed: 1 to 10)`,
		},
		{
			name: "list item not allowed",
			src:  fm + "\n```widget payment\nfaults: ok, lose-everything\n```\n",
			want: path + `:6: widget payment: faults: "lose-everything" is not allowed (allowed: ok, lose-request, lose-response)`,
		},
		{
			name: "every problem in a file, in line order",
			src: "---\ntitle: Retries\nauthor: Ana\n---\n" + // lines 1-4
				"\n```widget payment\nkeys: of\nattempts: 0\n```\n" + // 5-9
				"\n```widget paymnt\n```\n", // 10-12
			want: path + `:3: front matter: unknown field "author" (known: date, description, level, order, title)` + "\n" +
				path + `:7: widget payment: keys: "of" is not allowed (did you mean off? allowed: off, per-intent, per-attempt)` + "\n" +
				path + `:8: widget payment: attempts: "0" is out of bounds (allowed: 1 to 10)` + "\n" +
				path + `:11: widget "paymnt": unknown widget (did you mean payment? known: ` + known + `)`,
		},
		{
			name: "a rule between parameters, on the line of the one it names",
			src:  fm + "\n```widget storm\nslow-from: 30\nslow-to: 25\n```\n",
			want: path + `:7: widget storm: slow-to: "25" is not above slow-from (30)`,
		},
		{
			name: "a rule broken by a parameter against another's default, on the block's line",
			src:  fm + "\n```widget storm\nslow-from: 30\n```\n",
			want: path + `:5: widget storm: slow-to: "20" is not above slow-from (30)`,
		},
		{
			name: "line without a colon",
			src:  fm + "\n```widget payment\nkeys off\n```\n",
			want: path + `:6: widget payment: "keys off" is not a "key: value" line`,
		},
		{
			name: "duplicate key",
			src:  fm + "\n```widget payment\nkeys: off\nfaults: ok\nkeys: per-intent\n```\n",
			want: path + `:8: widget payment: duplicate key "keys" (first on line 6)`,
		},
		{
			name: "missing name",
			src:  fm + "\n```widget\nkeys: off\n```\n",
			want: path + `:5: widget: missing name (known: ` + known + `)`,
		},
		{
			name: "text after the name",
			src:  fm + "\n```widget payment now\n```\n",
			want: path + `:5: widget payment: unexpected "now" after the name`,
		},
		{
			name: "syntax errors in an unknown widget are reported too",
			src:  fm + "\n~~~widget paymnt\nkeys off\n~~~\n",
			want: path + `:5: widget "paymnt": unknown widget (did you mean payment? known: ` + known + `)` + "\n" +
				path + `:6: widget paymnt: "keys off" is not a "key: value" line`,
		},
		{
			name: "inside a quote and a list",
			src:  fm + "\n> Note\n>\n> ```widget payment\n> kyes: on\n> ```\n\n- item\n\n  ```widget payment\n  attempts: 11\n  ```\n",
			want: path + `:8: widget payment: unknown parameter "kyes" (did you mean keys? known: amount, attempts, faults, keys)` + "\n" +
				path + `:14: widget payment: attempts: "11" is out of bounds (allowed: 1 to 10)`,
		},
		{
			name: "CRLF line ends",
			src:  "---\r\ntitle: Retries\r\n---\r\n\r\n```widget payment\r\nkeys: off\r\nattempts: 11\r\n```\r\n",
			want: path + `:7: widget payment: attempts: "11" is out of bounds (allowed: 1 to 10)`,
		},
		{
			name: "no front matter",
			src:  "# Retries\n\nText.\n",
			want: path + `:1: front matter: title is required (the file has no front matter)`,
		},
		{
			name: "front matter without a title",
			src:  "---\ndescription: Why retries charge twice.\n---\n",
			want: path + `:1: front matter: title is required`,
		},
		{
			name: "empty title",
			src:  "---\ntitle: \"\"\n---\n",
			want: path + `:2: front matter: title is required`,
		},
		{
			name: "misspelt title",
			src:  "---\ntitel: Retries\n---\n",
			want: path + `:2: front matter: unknown field "titel" (did you mean title? known: date, description, level, order, title)`,
		},
		{
			name: "bad date, level and order",
			src:  "---\ntitle: Retries\ndate: 2025-02-30\nlevel: guru\norder: first\n---\n",
			want: path + `:3: front matter: date: "2025-02-30" is not a date (want YYYY-MM-DD)` + "\n" +
				path + `:4: front matter: level: "guru" is not allowed (allowed: beginner, intermediate, expert)` + "\n" +
				path + `:5: front matter: order: "first" is not a whole number`,
		},
		{
			name: "front matter not closed",
			src:  "---\ntitle: Retries\n\n# Retries\n",
			want: path + `:1: front matter: no closing "---" line`,
		},
		{
			name: "YAML syntax error",
			src:  "---\ntitle: Retries\ndescription: A\n  b: c\n---\n",
			want: path + `:4: front matter: an indented line: every field starts at the beginning of its line, value on the same line`,
		},
		{
			name: "a colon in an unquoted value",
			src:  "---\ntitle: Retries: x\n---\n",
			want: path + `:2: front matter: the value of title holds a colon and a space, which YAML reads as the start of another field: put the whole value in double quotes: title: "Retries: x"`,
		},
		{
			name: "a colon in a title does not hide the other fields' problems",
			src:  "---\ntitle: Retries: x\nlevel: expret\nordr: 2\ndescription: \"fine\"\n---\n",
			want: path + `:2: front matter: the value of title holds a colon and a space, which YAML reads as the start of another field: put the whole value in double quotes: title: "Retries: x"` + "\n" +
				path + `:3: front matter: level: "expret" is not allowed (did you mean expert? allowed: beginner, intermediate, expert)` + "\n" +
				path + `:4: front matter: unknown field "ordr" (did you mean order? known: date, description, level, order, title)`,
		},
		{
			name: "a quote never closed",
			src:  "---\ntitle: Retries\ndescription: \"Why\n---\n",
			want: path + `:3: front matter: the quote that opens the value of description is never closed on this line`,
		},
		{
			name: "text after a quoted value",
			src:  "---\ntitle: 'it's'\n---\n",
			want: path + `:2: front matter: text after the closing quote of the value of title: put the whole value in double quotes: title: "it's"`,
		},
		{
			name: "a tab",
			src:  "---\ntitle: Retries\n\tlevel: beginner\n---\n",
			want: path + `:3: front matter: a tab character: YAML allows only spaces here`,
		},
		{
			name: "a line that is no field",
			src:  "---\ntitle: Retries\n- keys\n---\n",
			want: path + `:3: front matter: "- keys" is not a "field: value" line`,
		},
		{
			name: "a fence never closed",
			src:  fm + "\nText.\n\n```go\nfunc main() {}\n\n## Later\n\nMore text.\n",
			want: path + `:7: the code fence opened here ("` + "```go" + `") is never closed: end the block with a line of ` + "```",
		},
		{
			name: "a widget fence never closed is reported once, at its opening",
			src:  fm + "\n~~~~widget payment\nkeys: off\n\nProse that is no parameter.\n",
			want: path + `:5: the code fence opened here ("~~~~widget payment") is never closed: end the block with a line of ~~~~`,
		},
		{
			name: "a fence closed by a shorter fence is not closed",
			src:  fm + "\n````markdown\n```widget payment\n```\n",
			want: path + `:5: the code fence opened here ("` + "````markdown" + `") is never closed: end the block with a line of ` + "````",
		},
		{
			name: "Latin-1 bytes",
			src:  fm + "\nA caf\xe9.\n",
			want: path + `:5: byte 0xe9 at column 6 is not UTF-8 text: save the file as UTF-8`,
		},
		{
			name: "controls: an unknown parameter",
			src:  fm + "\n```widget payment\ncontrols: keys, fautls\n```\n",
			want: path + `:6: widget payment: controls: no parameter "fautls" (did you mean faults? known: keys, faults, attempts, amount)`,
		},
		{
			name: "controls: one named twice",
			src:  fm + "\n```widget payment\ncontrols: keys, keys\n```\n",
			want: path + `:6: widget payment: controls: "keys" named twice`,
		},
		{
			name: "duplicate field",
			src:  "---\ntitle: Retries\ntitle: Again\n---\n",
			want: path + `:3: front matter: duplicate field "title" (first on line 2)`,
		},
		{
			name: "a list where a value belongs",
			src:  "---\ntitle: [Retries, Keys]\n---\n",
			want: path + `:2: front matter: title: want a single value`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := conv.Convert(path, []byte(tt.src))
			if err == nil {
				t.Fatalf("no error; page body:\n%s", p.Body)
			}
			if p != nil && (p.Body != "" || p.Title != "" || p.IDs != nil) {
				t.Errorf("got more of the page than its links along with the error")
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("error:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestErrorsUnwrap(t *testing.T) {
	_, err := conv.Convert(path, []byte(fm+"\n```widget payment\nattempts: 11\n```\n"))
	var se *SourceError
	if !errors.As(err, &se) || se.Path != path || se.Line != 6 {
		t.Fatalf("errors.As(%v, *SourceError) = %+v, want path %s line 6", err, se, path)
	}
	var we *widget.Error
	if !errors.As(err, &we) || we.Param != "attempts" || we.Value != "11" {
		t.Errorf("errors.As(%v, *widget.Error) = %+v, want attempts, 11", err, we)
	}
}

// TestRunErrors checks that a widget that fails to run is reported with its
// line, every one of them, and that a page is not returned.
func TestRunErrors(t *testing.T) {
	fail := &widget.Widget{
		Name:   "fail",
		Schema: widget.Schema{{Name: "n", Kind: widget.Int, Default: "1", Min: 0, Max: 9}},
		Run: func(v widget.Values) (widget.Run, error) {
			return nil, errors.New("n = " + v.Text("n") + " makes the model refuse")
		},
	}
	lookup := func(name string) (*widget.Widget, error) {
		if name == fail.Name {
			return fail, nil
		}
		return nil, errors.New("no widget " + name + " (known: fail)")
	}
	c := New(WithWidgetOptions(WithLookup(lookup)))
	_, err := c.Convert("a.md", []byte(fm+"\n```widget fail\n```\n\n```widget fail\nn: 2\n```\n\n```widget nope\n```\n"))
	want := "a.md:12: no widget nope (known: fail)"
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q (checked before anything runs)", err, want)
	}
	_, err = c.Convert("a.md", []byte(fm+"\n```widget fail\n```\n\n```widget fail\nn: 2\n```\n"))
	want = "a.md:5: widget fail: n = 1 makes the model refuse\na.md:8: widget fail: n = 2 makes the model refuse"
	if err == nil || err.Error() != want {
		t.Fatalf("error:\n%v\nwant:\n%s", err, want)
	}
}

func TestFrontMatter(t *testing.T) {
	src := "---\ntitle: Retries without double charges\ndescription: Why a retry can charge twice.\ndate: 2025-03-14\nlevel: intermediate\norder: 2\n---\n\nText.\n"
	p, err := conv.Convert(path, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := Page{
		Path:        path,
		Title:       "Retries without double charges",
		Description: "Why a retry can charge twice.",
		Date:        time.Date(2025, 3, 14, 0, 0, 0, 0, time.UTC),
		Level:       "intermediate",
		Order:       2,
		Body:        "<p>Text.</p>\n",
	}
	if !reflect.DeepEqual(*p, want) {
		t.Errorf("page:\n%+v\nwant:\n%+v", *p, want)
	}

	p, err = conv.Convert(path, []byte("---\ntitle: Keys\n---\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !p.Date.IsZero() || p.Level != "" || p.Order != 0 || p.Description != "" {
		t.Errorf("optional fields absent: got %+v, want zero values", p)
	}
}

func TestHighlight(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"go", "```go\nfunc pay() {}\n```\n", []string{
			`<pre tabindex="0" class="chroma"><code>`,
			`<span class="kd">func</span>`,
			`<span class="nf">pay</span>`,
		}},
		{"unknown language", "```nosuchlang\nif a < b {}\n```\n", []string{
			`<pre tabindex="0"><code class="language-nosuchlang">if a &lt; b {}` + "\n</code></pre>",
		}},
		{"no language", "```\na & b\n```\n", []string{
			`<pre tabindex="0"><code>a &amp; b` + "\n</code></pre>",
		}},
		// A block of the class wrap is the same pre with that class too,
		// and the same text, line by line.
		{"wrap", "```text {.wrap}\npass  replay  sent one key\n```\n", []string{
			`<pre tabindex="0" class="chroma wrap"><code><span class="line"><span class="cl">pass  replay  sent one key` + "\n</span></span></code></pre>",
		}},
		{"wrap among classes", "```text {.out .wrap}\nx\n```\n", []string{`<pre tabindex="0" class="chroma wrap"><code>`}},
		{"another class", "```text {.out}\nx\n```\n", []string{`<pre tabindex="0" class="chroma"><code>`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := conv.Convert(path, []byte(fm+tt.src))
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(p.Body, w) {
					t.Errorf("body lacks %s:\n%s", w, p.Body)
				}
			}
			if strings.Contains(p.Body, "style=") {
				t.Errorf("body has inline styles:\n%s", p.Body)
			}
		})
	}
}

func TestHighlightCSS(t *testing.T) {
	css := HighlightCSS()
	light, dark, ok := strings.Cut(css, "@media (prefers-color-scheme: dark) {\n")
	if !ok {
		t.Fatalf("no dark section:\n%s", css)
	}
	rules := func(section string) map[string]string {
		m := map[string]string{}
		for _, line := range strings.Split(section, "\n") {
			sel, body, ok := strings.Cut(strings.TrimSpace(line), " { ")
			if !ok {
				continue
			}
			if sel != ".chroma" && !strings.HasPrefix(sel, ".chroma ") {
				t.Errorf("rule not scoped to .chroma: %s", line)
			}
			m[sel] = body
		}
		return m
	}
	l, d := rules(light), rules(dark)
	// The keyword colours of chroma's github and github-dark styles.
	if l[".chroma .kd"] != "color: #cf222e }" {
		t.Errorf("light .chroma .kd { %s, want color: #cf222e }", l[".chroma .kd"])
	}
	if d[".chroma .kd"] != "color: #ff7b72 }" {
		t.Errorf("dark .chroma .kd { %s, want color: #ff7b72 }", d[".chroma .kd"])
	}
	if !strings.Contains(d[".chroma"], "background-color: #0d1117") {
		t.Errorf("dark .chroma { %s, want the dark background", d[".chroma"])
	}
	// Nothing of the light style shows through in the dark: every colour
	// or font property a light rule sets, the dark section sets too.
	for sel, body := range l {
		for _, p := range []string{"color", "background-color", "font-weight", "font-style", "text-decoration"} {
			if strings.Contains(" "+body, " "+p+":") && !strings.Contains(" "+d[sel], " "+p+":") {
				t.Errorf("light %s sets %s; the dark section does not reset it", sel, p)
			}
		}
	}
	if strings.Contains(css, ".bg") {
		t.Errorf("stylesheet has chroma's unscoped .bg rule")
	}
}

func TestHeadings(t *testing.T) {
	src := fm + "# Retries\n\n## Retry with keys\n\nText.\n\n### The `Idempotency-Key` *header* \\& more\n\n#### Too deep\n\n## Retry with keys\n\n## Keys {#keys}\n"
	p, err := conv.Convert(path, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<h2 id="retry-with-keys">Retry with keys <a class="anchor" aria-label="Link to this section: Retry with keys" href="#retry-with-keys">#</a></h2>`,
		`<h3 id="the-idempotency-key-header--more">The <code>Idempotency-Key</code> <em>header</em> &amp; more <a class="anchor" aria-label="Link to this section: The Idempotency-Key header &amp; more" href="#the-idempotency-key-header--more">#</a></h3>`,
		`<h2 id="keys">Keys <a class="anchor" aria-label="Link to this section: Keys" href="#keys">#</a></h2>`,
	} {
		if !strings.Contains(p.Body, want) {
			t.Errorf("body lacks\n%s\nin\n%s", want, p.Body)
		}
	}
	want := []Heading{
		{2, "retry-with-keys", "Retry with keys"},
		{3, "the-idempotency-key-header--more", "The Idempotency-Key header & more"},
		{2, "retry-with-keys-1", "Retry with keys"}, // a second heading of the same text
		{2, "keys", "Keys"},
	}
	if !reflect.DeepEqual(p.TOC, want) {
		t.Errorf("TOC:\n%+v\nwant:\n%+v", p.TOC, want)
	}
	// The link is hidden with opacity (so it stays in the tab order) and
	// shown when its heading is hovered or it has the focus.
	css := AnchorCSS()
	for _, want := range []string{".anchor { margin-left: 0.25em; text-decoration: none; opacity: 0; }", ":hover > .anchor", ".anchor:focus { opacity: 1; }"} {
		if !strings.Contains(css, want) {
			t.Errorf("AnchorCSS lacks %q:\n%s", want, css)
		}
	}
}

func TestWidgetIDs(t *testing.T) {
	// A heading whose id would be the first widget's pushes the widgets on.
	src := fm + "\n## W payment 1\n\n```widget payment\n```\n\n```widget payment\nkeys: per-intent\n```\n"
	for run := 0; run < 2; run++ { // the same Converter, twice: nothing carries over
		p, err := conv.Convert(path, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range elements(p.Body, "data-widget") {
			ids = append(ids, r["id"])
		}
		if want := []string{"w-payment-2", "w-payment-3"}; !reflect.DeepEqual(ids, want) {
			t.Errorf("run %d: widget ids %q, want %q", run, ids, want)
		}
		seen := map[string]bool{}
		for _, e := range elements(p.Body, "id") {
			if seen[e["id"]] {
				t.Errorf("run %d: id %q twice in the page", run, e["id"])
			}
			seen[e["id"]] = true
		}
		if !reflect.DeepEqual(p.Widgets, []string{"payment"}) {
			t.Errorf("Widgets = %q, want [payment] (each widget once)", p.Widgets)
		}
	}
}

func TestGFMAndRawHTML(t *testing.T) {
	src := fm + "| keys | charges |\n|---|---:|\n| off | 2 |\n\n~~twice~~\n\n- [x] claim\n- [ ] work\n\nSee https://example.com/retries.\n\n<script>alert(1)</script>\n\nA <b>bold</b> claim.\n"
	p, err := conv.Convert(path, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"<th>keys</th>",
		`<td align="right">2</td>`, // alignment without a style= the CSP would block
		"<del>twice</del>",
		`<li><input checked="" disabled="" type="checkbox"> claim</li>`,
		`<a href="https://example.com/retries">https://example.com/retries</a>.`,
		"<!-- raw HTML omitted -->",
	} {
		if !strings.Contains(p.Body, want) {
			t.Errorf("body lacks %s:\n%s", want, p.Body)
		}
	}
	for _, bad := range []string{"<script>", "<b>", "style="} {
		if strings.Contains(p.Body, bad) {
			t.Errorf("%s in the body (raw HTML, or a style the CSP blocks):\n%s", bad, p.Body)
		}
	}
}

func TestTypographer(t *testing.T) {
	src := fm + "## Don't -- retry...\n\nRun `x --y`.\n"
	plain, err := conv.Convert(path, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plain.Body, "Don't -- retry...") {
		t.Errorf("typographer on by default:\n%s", plain.Body)
	}
	p, err := New(WithTypographer()).Convert(path, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if want := "Don’t – retry…"; p.TOC[0].Text != want {
		t.Errorf("TOC text %q, want %q", p.TOC[0].Text, want)
	}
	if !strings.Contains(p.Body, "<code>x --y</code>") {
		t.Errorf("typographer changed code:\n%s", p.Body)
	}
}

func TestConcurrent(t *testing.T) {
	src := []byte(fm + "## A\n\n```widget payment\n```\n\n## B\n\n```widget payment\nkeys: per-intent\n```\n")
	want, err := conv.Convert(path, src)
	if err != nil {
		t.Fatal(err)
	}
	// 8 goroutines on 2 cores are enough to interleave conversions.
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := conv.Convert(path, src)
			if err != nil {
				t.Error(err)
				return
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("concurrent conversion differs")
			}
		}()
	}
	wg.Wait()
}

func FuzzConvert(f *testing.F) {
	for _, s := range []string{
		fm + "\n```widget payment\nkeys: off\nfaults: lose-response, ok\n```\n",
		fm + "## A {#a}\n\n```go\nfunc f() {}\n```\n",
		"---\ntitle: [\n---\n",
		"---\ntitle: x\ndate: 2025-02-30\n---\n```widget\n```\n```widget a b c\nkeys\n:\n```",
		"> ```widget payment\n> attempts: 11\n",
		"```{linenos=table,hl_lines=[\"1-x\"]}\na\n```\n",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		p, err := conv.Convert(path, []byte(src))
		switch {
		case err == nil && p == nil:
			t.Fatal("Convert returned neither a page nor an error")
		case err != nil && p != nil && (p.Body != "" || p.Title != "" || p.IDs != nil):
			t.Fatalf("Convert returned an error (%v) with more of the page than its links", err)
		}
	})
}

// Every link and image is listed with its line, for the site generator to
// check; every id of the body (headings, widgets) is a target.
func TestRefsAndIDs(t *testing.T) {
	src := fm + // lines 1-3
		"\n## Keys {#keys}\n" + // 5
		"\nSee [the charge](/double-charge/#nope) and\n" + // 7
		"![a flow](/images/flow.svg), [ref][r], <https://example.com>.\n" + // 8
		"\n- an item with [a link](#keys)\n" + // 10
		"\n```widget payment\n```\n" + // 12-13
		"\n[r]: /idempotency-keys/\n"
	p, err := conv.Convert(path, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []Ref{
		{Dest: "/double-charge/#nope", Line: 7},
		{Dest: "/images/flow.svg", Line: 8, Image: true},
		{Dest: "/idempotency-keys/", Line: 8},
		{Dest: "#keys", Line: 10},
	}
	if !reflect.DeepEqual(p.Refs, want) {
		t.Errorf("Refs = %+v\nwant %+v", p.Refs, want)
	}
	for _, id := range []string{"keys", "w-payment-1"} {
		if !slices.Contains(p.IDs, id) {
			t.Errorf("IDs %v lack %q", p.IDs, id)
		}
	}
}

// ids finds what the regular expression it replaced, \sid="([^"]*)",
// found, in the same order: in every page of the handbook and in bodies
// made to trip a scanner.
func TestIDsAsTheRegexp(t *testing.T) {
	re := regexp.MustCompile(`\sid="([^"]*)"`)
	bodies := []string{
		``, `id="start"`, `<p id="a">`, "<p\tid=\"tab\">\n<h2\nid=\"nl\">", `<a data-id="x" id="y">`,
		`<p id="unclosed`, `<p xid="no"> <p id="">`, `<p id="a&amp;b"> id="c" id="d"id="e"`,
		`<p  id="one" id="two">`, `<p id=x id="y">`, `id="` + `">` + ` id="z"`,
	}
	pages, err := filepath.Glob("../../content/*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no pages in ../../content (%v)", err)
	}
	site := New(WithSourceRoot("../.."))
	for _, p := range pages {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		page, err := site.Convert(p, src)
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, page.Body)
	}
	for _, body := range bodies {
		var want []string
		for _, m := range re.FindAllStringSubmatch(body, -1) {
			want = append(want, html.UnescapeString(m[1]))
		}
		if got := ids(body); !slices.Equal(got, want) {
			t.Errorf("ids(%.80q) = %q, want %q", body, got, want)
		}
	}
}

// A block whose parameters keep a rule between them only together (the
// slowdown from 30 s to 40 s, past the default end at 20 s) is the
// block's to judge, not each line's against the others' defaults.
func TestWidgetBlockRulesAreTheBlocks(t *testing.T) {
	src := "---\ntitle: Storms\n---\n\n```widget storm\nslow-from: 30\nslow-to: 40\n```\n"
	page, err := New().Convert("content/storms.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.Body, `data-widget="storm"`) {
		t.Errorf("no storm widget in %s", page.Body)
	}
}

// A block's "controls:" shows the controls it names, in the widget's
// order, and folds every other under More parameters, with its value
// kept; without it, the widget's own choice stands. No widget has a
// parameter of the key's name.
func TestWidgetBlockControls(t *testing.T) {
	for _, w := range widget.All() {
		if _, ok := w.Schema.Param(ControlsKey); ok {
			t.Errorf("%s has a parameter called %q, the block's own key", w.Name, ControlsKey)
		}
	}
	split := func(body string) (shown, folded []string) {
		more := strings.Index(body, `<details class="w-more"`)
		for _, m := range regexp.MustCompile(`<(?:select|input)[^>]* name="([a-z-]+)"`).FindAllStringSubmatchIndex(body, -1) {
			name := body[m[2]:m[3]]
			if more >= 0 && m[0] > more {
				folded = append(folded, name)
			} else {
				shown = append(shown, name)
			}
		}
		return shown, folded
	}
	p, err := conv.Convert(path, []byte(fm+"\n```widget payment\ncontrols: attempts, keys\namount: 4200\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	shown, folded := split(p.Body)
	if strings.Join(shown, ",") != "keys,attempts" || strings.Join(folded, ",") != "faults,amount" {
		t.Errorf("shown %v, folded %v; want keys and attempts shown, faults and amount under More parameters", shown, folded)
	}
	if !strings.Contains(p.Body, `<details class="w-more" open>`) {
		t.Error("a folded control whose value the block sets is not in view: More parameters is closed")
	}
	if !regexp.MustCompile(`<input[^>]*name="amount"[^>]*value="4200"`).MatchString(p.Body) {
		t.Errorf("the folded amount lost the block's value: %s", regexp.MustCompile(`<input[^>]*name="amount"[^>]*>`).FindString(p.Body))
	}
	p, err = conv.Convert(path, []byte(fm+"\n```widget payment\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	if shown, folded := split(p.Body); len(shown) != 4 || len(folded) != 0 {
		t.Errorf("without controls: shown %v, folded %v; want the payment widget's four controls shown", shown, folded)
	}
}
