package main

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// The isolation-levels chapter's guard widget starts at serializable, and
// its prose links set it in place: spread arrivals keep one row but still
// charge once per 40001 and once for the winner; repeatable read is back
// to a row per charge. The widget says the aborts in words.
func TestBrowserIsolationLinks(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	ctx := newBrowser(t)
	p := &wpage{t: t, ctx: ctx, con: watchConsole(ctx), name: "guard"}
	addCSPProbe(t, ctx)
	root := `#w-guard-1`
	p.do(chromedp.Navigate(ts.URL+"/isolation-levels/"),
		chromedp.ScrollIntoView(chromedp.CSS(root)),
		chromedp.WaitVisible(chromedp.CSS(root+`[data-hydrated="true"]`)))
	outcome := `document.querySelector('` + root + ` .w-outcome').dataset`
	p.waitJS(outcome + `.rows === "1" && ` + outcome + `.charges === "20" && ` + outcome + `.aborts === "19"`)
	p.waitJS(`document.querySelector('` + root + `').textContent.includes("19 transactions failed with a serialization failure (SQLSTATE 40001) after charging the card")`)
	for _, c := range []struct{ link, rows, charges, aborts string }{
		{"isolation=serializable&spread=4", "1", "16", "15"},
		{"isolation=repeatable-read", "20", "20", "0"},
	} {
		link := `a[data-widget-link="guard-1"][href*="&` + c.link + `#"]`
		// A click from script, as in TestBrowserWebhook: the link's own
		// scroll would move the next link from under a pointer.
		evalT[bool](t, ctx, `(document.querySelector('`+link+`').click(), true)`)
		p.waitJS(outcome + `.rows === "` + c.rows + `" && ` + outcome + `.charges === "` + c.charges + `" && ` + outcome + `.aborts === "` + c.aborts + `"`)
	}
	p.clean()
}
