package main

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The stream pipeline, driven from the keyboard on its embed page, then
// from the prose links of its chapter: each setting shows the figure the
// chapter gives for it (engine/figures).
func TestBrowserStream(t *testing.T) {
	ts := serveSite(t, builtSite(t))

	t.Run("controls", func(t *testing.T) {
		p := open(t, ts, "stream")
		if r, e := p.figure("records"), p.figure("effects"); r != "3" || e != "4" {
			t.Fatalf("defaults: %s records read and %s emails; want 3 and 4", r, e)
		}
		p.toggle("dedupe")
		p.waitFigure("effects", "3")
		p.toggle("dedupe")
		p.waitFigure("effects", "4")
		// The producer's options are plain, idempotent, transactional:
		// the arrow keys step through them (typing their first letters
		// one after the other would search for "ip").
		p.do(chromedp.Focus(chromedp.CSS(p.control("producer"))))
		p.press(kb.ArrowUp)
		p.waitFigure("records", "4")
		p.waitFigure("effects", "5")
		p.press(kb.ArrowUp)
		p.waitFigure("written", "5")
		p.waitFigure("effects", "6")
		p.press(kb.ArrowDown + kb.ArrowDown)
		p.waitFigure("records", "3")
		p.choose("isolation", "read_u", "read_uncommitted")
		p.waitFigure("records", "4")
		p.waitFigure("effects", "5")
		stepControls(p, "effects")
		permalinkShows(p, ts.URL, map[string]string{"written": "4", "records": "4", "effects": "5"})
		p.clean()
	})

	// The chapter's links set the widget they name in place; a link's
	// href carries every value that differs from the defaults, in name
	// order.
	t.Run("prose links", func(t *testing.T) {
		ctx := newBrowser(t)
		p := &wpage{t: t, ctx: ctx, con: watchConsole(ctx), name: "stream"}
		addCSPProbe(t, ctx)
		root := `#w-stream-1`
		p.do(chromedp.Navigate(ts.URL+"/exactly-once-in-streams/"),
			chromedp.ScrollIntoView(chromedp.CSS(root)),
			chromedp.WaitVisible(chromedp.CSS(root+`[data-hydrated="true"]`)))
		for _, c := range []struct{ link, figure, want string }{
			{"&isolation=read_uncommitted#", "effects", "5"},
			{"&producer=idempotent#", "records", "4"},
			{"&producer=plain#", "effects", "6"},
			{"&dedupe=on#", "effects", "3"},
			{"&dedupe=on&producer=plain#", "records", "5"},
		} {
			link := `a[data-widget-link="stream-1"][href*="` + c.link + `"]`
			// A click from script: the link's own scroll to its widget
			// would move the next link from under a pointer's click
			// (TestBrowserWidgetLink clicks as a pointer does).
			evalT[bool](t, ctx, `(document.querySelector('`+link+`').click(), true)`)
			p.waitJS(`document.querySelector('` + root + ` .w-outcome').dataset["` + c.figure + `"] === "` + c.want + `"`)
		}
		p.clean()
	})
}
