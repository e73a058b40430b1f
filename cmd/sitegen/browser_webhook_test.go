package main

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// The webhook endpoint, driven from the keyboard on its embed page, then
// from the prose links of its chapter: each defence turned off shows the
// figure the chapter gives for it (engine/figures).
func TestBrowserWebhook(t *testing.T) {
	ts := serveSite(t, builtSite(t))

	t.Run("controls", func(t *testing.T) {
		p := open(t, ts, "webhook")
		if f, d := p.figure("fulfilled"), p.figure("deliveries"); f != "1" || d != "2" {
			t.Fatalf("defaults: order 1 fulfilled %s times in %s deliveries; want 1 in 2", f, d)
		}
		p.toggle("dedupe")
		p.waitFigure("fulfilled", "2")
		p.toggle("dedupe")
		p.waitFigure("fulfilled", "1")
		p.toggle("signature")
		p.waitFigure("forged", "1")
		p.toggle("signature")
		p.waitFigure("forged", "0")
		p.typeNumber("tolerance", "0")
		p.waitFigure("fulfilled", "2")
		p.typeNumber("keep", "72")
		p.waitFigure("fulfilled", "1")
		p.typeNumber("tolerance", "300")
		p.typeNumber("keep", "24")
		p.choose("reply", "a", "after-work")
		p.toggle("lost")
		p.toggle("dedupe")
		p.waitFigure("deliveries", "5")
		p.waitFigure("fulfilled", "5")
		stepControls(p, "fulfilled")
		permalinkShows(p, ts.URL, map[string]string{"fulfilled": "5", "deliveries": "5"})
		p.clean()
	})

	// The chapter's links set the widget they name in place; a link's
	// href carries every value that differs from the defaults, the
	// block's own and the link's, in name order.
	t.Run("prose links", func(t *testing.T) {
		ctx := newBrowser(t)
		p := &wpage{t: t, ctx: ctx, con: watchConsole(ctx), name: "webhook"}
		addCSPProbe(t, ctx)
		first, second := `#w-webhook-1`, `#w-webhook-2`
		p.do(chromedp.Navigate(ts.URL+"/receiving-webhooks/"),
			chromedp.ScrollIntoView(chromedp.CSS(first)),
			chromedp.WaitVisible(chromedp.CSS(first+`[data-hydrated="true"]`)))
		for _, c := range []struct{ root, link, figure, want string }{
			{first, "tolerance=0", "fulfilled", "2"},
			{first, "keep=72&tolerance=0", "fulfilled", "1"},
			{first, "signature=off", "forged", "1"},
			{second, "lost=off&reply=after-work&work=90", "deliveries", "3"},
			{second, "dedupe=off&lost=off&reply=after-work", "fulfilled", "5"},
		} {
			link := `a[data-widget-link="` + c.root[3:] + `"][href*="&` + c.link + `#"]`
			// A click from script: the link's own scroll to its widget
			// would move the next link from under a pointer's click
			// (TestBrowserWidgetLink clicks as a pointer does).
			evalT[bool](t, ctx, `(document.querySelector('`+link+`').click(), true)`)
			p.waitJS(`document.querySelector('` + c.root + ` .w-outcome').dataset["` + c.figure + `"] === "` + c.want + `"`)
		}
		p.clean()
	})
}
