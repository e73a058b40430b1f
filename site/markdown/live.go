package markdown

import (
	"html"
	"strconv"
	"strings"

	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/retrylab/retrylab/site/widget"
)

// A live block is a fenced code block whose info string is "live" and
// whose body is the curl session it stands for:
//
//	```live
//	curl -i localhost:8787/v1/payments -H 'Idempotency-Key: order-1' ...
//	```
//
// On the site it becomes the live API panel (data-widget="live"): the
// reader's browser sends real requests to the sandbox API, with
// site/static/live.js. It is not a simulator, so it is not a widget block:
// it has no schema, no run at build time and no embed. Without JavaScript,
// or with no API to reach, the panel shows the curl session of its body;
// on GitHub the block is that curl session.
//
// Raw HTML stays off (see the package comment): the panel's markup is
// written here, from nothing but the block's text, escaped.

// KindLiveBlock is the NodeKind of a LiveBlock.
var KindLiveBlock = gast.NewNodeKind("LiveBlock")

// LiveBlock is a live API panel in the document.
type LiveBlock struct {
	gast.BaseBlock
	ID   string // unique in the page: "live-N"
	Curl string // the block's body: the equivalent curl session
}

// Kind implements ast.Node.
func (n *LiveBlock) Kind() gast.NodeKind { return KindLiveBlock }

// Dump implements ast.Node.
func (n *LiveBlock) Dump(source []byte, level int) {
	gast.DumpHelper(n, source, level, map[string]string{"ID": n.ID}, nil)
}

type liveOptions struct {
	api    string // the API's origin; "" for the page's own
	script string // live.js's URL
	style  string // live.css's URL
}

// LiveOption configures the live block extension.
type LiveOption func(*liveOptions)

// LiveAPI sets the sandbox API's origin ("https://api.retrylab.example")
// the panel calls when the page's own origin does not answer /v1/ (only
// `sitegen serve` does).
func LiveAPI(origin string) LiveOption { return func(o *liveOptions) { o.api = origin } }

// LiveAssets sets the URLs of the panel's script and stylesheet (hashed
// names under /static/). Without them the panel is its static markup.
func LiveAssets(script, style string) LiveOption {
	return func(o *liveOptions) { o.script, o.style = script, style }
}

type live struct{ o liveOptions }

// NewLive returns the live block extension.
func NewLive(opts ...LiveOption) goldmark.Extender {
	e := &live{}
	for _, opt := range opts {
		opt(&e.o)
	}
	return e
}

// Extend implements goldmark.Extender.
func (e *live) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(parser.WithASTTransformers(util.Prioritized(liveTransformer{}, 200)))
	m.Renderer().AddOptions(renderer.WithNodeRenderers(util.Prioritized(&liveRenderer{o: e.o}, 100)))
}

type liveTransformer struct{}

// Transform implements parser.ASTTransformer.
func (liveTransformer) Transform(doc *gast.Document, reader text.Reader, pc parser.Context) {
	source := reader.Source()
	var blocks []*gast.FencedCodeBlock
	_ = gast.Walk(doc, func(n gast.Node, entering bool) (gast.WalkStatus, error) {
		if fc, ok := n.(*gast.FencedCodeBlock); ok && entering && fc.Info != nil &&
			strings.TrimSpace(string(fc.Info.Segment.Value(source))) == "live" {
			blocks = append(blocks, fc)
		}
		return gast.WalkContinue, nil
	})
	for i, fc := range blocks {
		var b strings.Builder
		lines := fc.Lines()
		for j := 0; j < lines.Len(); j++ {
			seg := lines.At(j)
			b.Write(seg.Value(source))
		}
		lb := &LiveBlock{ID: "live-" + strconv.Itoa(i+1), Curl: strings.TrimRight(b.String(), "\n")}
		pc.IDs().Put([]byte(lb.ID))
		fc.Parent().ReplaceChild(fc.Parent(), fc, lb)
	}
}

type liveRenderer struct{ o liveOptions }

// RegisterFuncs implements renderer.NodeRendererFuncRegisterer.
func (r *liveRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(KindLiveBlock, r.render)
}

// The panel's fault choices: the Retrylab-Fault values of the API
// (idemhttp.FaultNames), slow at 3 s, long enough to press Retry while the
// first request still runs.
var liveFaults = []struct{ value, label string }{
	{"", "none"},
	{"lose-request", "lose-request: nothing happens"},
	{"lose-response", "lose-response: the work is done, the answer lost"},
	{"slow=3000", "slow=3000: the work takes 3 s longer"},
	{"crash-after-charge", "crash-after-charge: the server dies after charging"},
	{"decline", "decline: the card is declined"},
	{"unavailable", "unavailable: 503 before any work"},
}

// The parts of the panel live.js looks for, each marked by one attribute,
// declared here once: render writes the attributes, and the panel's
// data-selectors holds the selector of each by the name live.js knows it
// by (liveSelectors), so that live.js repeats none of them.
const (
	liveControls = `data-region="controls"`
	liveStatus   = `data-region="status"`
	liveLog      = `data-region="log"`
	liveLedger   = `data-region="ledger"`
	liveCurl     = `data-region="curl"`
	liveSend     = `data-action="send"`
	liveRetry    = `data-action="retry"`
	liveAccount  = `data-action="account"`
)

// liveSelectors is the JSON object of the panel's data-selectors.
func liveSelectors() string {
	parts := []struct{ name, attr string }{
		{"controls", liveControls}, {"status", liveStatus}, {"log", liveLog}, {"ledger", liveLedger},
		{"curl", liveCurl}, {"send", liveSend}, {"retry", liveRetry}, {"account", liveAccount},
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, p := range parts {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(p.name) + ":" + strconv.Quote("["+p.attr+"]"))
	}
	b.WriteByte('}')
	return b.String()
}

// render writes the panel: its controls disabled until live.js starts,
// the curl session, and the script and stylesheet.
func (r *liveRenderer) render(w util.BufWriter, source []byte, node gast.Node, entering bool) (gast.WalkStatus, error) {
	if !entering {
		return gast.WalkSkipChildren, nil
	}
	n := node.(*LiveBlock)
	id := html.EscapeString(n.ID)
	var b strings.Builder
	if r.o.style != "" {
		b.WriteString(`<link rel="stylesheet" href="` + html.EscapeString(r.o.style) + `">` + "\n")
	}
	b.WriteString(`<section class="widget live" id="` + id + `" data-widget="` + widget.LiveWidget + `" data-api="` + html.EscapeString(r.o.api) +
		`" data-selectors="` + html.EscapeString(liveSelectors()) + `" aria-labelledby="` + id + `-title">` + "\n")
	b.WriteString(`<div class="w-head"><p class="w-title" id="` + id + `-title">Live: the sandbox API, from your browser</p>` +
		`<p class="w-summary">Your browser sends each request below to the real API, as your own sandbox account.</p></div>` + "\n")
	b.WriteString(`<form class="w-controls live-controls" ` + liveControls + `>` + "\n")
	b.WriteString(`<fieldset class="live-keys"><legend>Idempotency keys</legend>`)
	for _, k := range []struct{ value, label string }{{"off", "off"}, {"per-intent", "per intent"}, {"per-attempt", "per attempt"}} {
		checked := ""
		if k.value == "per-intent" {
			checked = " checked"
		}
		b.WriteString(`<label><input type="radio" name="keys" value="` + k.value + `"` + checked + ` disabled> ` + k.label + `</label>`)
	}
	b.WriteString("</fieldset>\n")
	b.WriteString(`<label class="w-field live-fault">Fault on Send <select name="fault" disabled>`)
	for _, f := range liveFaults {
		b.WriteString(`<option value="` + html.EscapeString(f.value) + `">` + html.EscapeString(f.label) + `</option>`)
	}
	b.WriteString("</select></label>\n")
	b.WriteString(`<div class="w-actions"><button type="submit" class="live-send" ` + liveSend + ` disabled>Send</button>` +
		`<button type="button" ` + liveRetry + ` disabled>Retry</button>` +
		`<button type="button" ` + liveAccount + ` disabled>New account</button></div>` + "\n")
	b.WriteString("</form>\n")
	b.WriteString(`<p class="live-status" ` + liveStatus + ` role="status">This panel sends real requests from your browser and needs JavaScript. The same requests with curl:</p>` + "\n")
	b.WriteString(`<ol class="live-log" ` + liveLog + ` aria-label="Requests and answers"></ol>` + "\n")
	b.WriteString(`<div class="live-ledger" ` + liveLedger + ` hidden></div>` + "\n")
	b.WriteString(`<details class="live-curl" ` + liveCurl + ` open><summary>The same with curl</summary>` +
		`<div class="code"><pre tabindex="0"><code>` + html.EscapeString(n.Curl) + `</code></pre></div></details>` + "\n")
	b.WriteString("</section>\n")
	if r.o.script != "" {
		b.WriteString(`<script src="` + html.EscapeString(r.o.script) + `" defer></script>` + "\n")
	}
	_, _ = w.WriteString(b.String())
	return gast.WalkSkipChildren, nil
}
