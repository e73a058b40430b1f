package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/retrylab/retrylab/site/widget"
)

// The lease, compare-and-set and sent-marker widgets, driven from the
// keyboard the way a reader would, then their permalinks: a state reached
// with the controls, loaded from its link, shows the same figures.
func TestBrowserLeaseCASSentMarker(t *testing.T) {
	ts := serveSite(t, builtSite(t))

	t.Run("lease", func(t *testing.T) {
		p := open(t, ts, "lease")
		// The defaults: a retry inside the lease is told to wait, and the
		// takeover resumes after the charge.
		if c, r := p.figure("charges"), p.figure("retry"); c != "1" || r != "409" {
			t.Fatalf("defaults: %s charges, the retry got %s; want 1 and 409", c, r)
		}
		p.toggle("recovery")
		p.waitFigure("charges", "2")
		p.waitFigure("receipt", "ch_2")
		p.typeNumber("retry", "90")
		p.waitFigure("retry", "201")
		p.next("crash", "after-saving")
		p.waitFigure("retry", "replay")
		p.waitFigure("charges", "1")
		p.choose("crash", "b", "before-charge")
		p.waitFigure("payments", "2")
		// The paused owner wakes after the takeover, and charges again
		// under its own payment's key: the fence guards only the store.
		p.next("crash", "after-charge")
		p.next("crash", "after-saving")
		p.next("crash", "pauses")
		p.waitFigure("charges", "2")
		p.waitFigure("receipt", "ch_1")
		replayControls(p, "charges")
		permalinkShows(p, ts.URL, map[string]string{"charges": "2", "payments": "2", "retry": "201"})
		p.clean()
	})

	t.Run("cas", func(t *testing.T) {
		p := open(t, ts, "cas")
		p.toggle("cas")
		p.waitFigure("shipments", "2")
		p.waitFigure("version", "9")
		p.typeNumber("calls", "5")
		p.waitFigure("shipments", "5")
		p.toggle("cas")
		p.waitFigure("shipments", "1")
		p.waitFigure("updated", "1,0,0,0,0")
		stepControls(p, "shipments")
		permalinkShows(p, ts.URL, map[string]string{"shipments": "1", "version": "8"})
		p.clean()
	})

	t.Run("sent-marker", func(t *testing.T) {
		p := open(t, ts, "sent-marker")
		p.toggle("marker")
		p.waitFigure("sent", "2")
		p.toggle("marker")
		p.waitFigure("sent", "1")
		p.choose("crash", "before-m", "before-marker")
		p.waitFigure("sent", "2")
		p.waitFigure("skipped", "0")
		stepControls(p, "sent")
		permalinkShows(p, ts.URL, map[string]string{"sent": "2", "runs": "2"})
		p.clean()
	})
}

// permalinkShows follows the widget's "Open in retrylab" in the same tab
// and checks the figures the state it names shows on the widget's
// chapter; base is the site's origin.
func permalinkShows(p *wpage, base string, want map[string]string) {
	p.t.Helper()
	w, err := widget.Find(p.name)
	if err != nil {
		p.t.Fatal(err)
	}
	// On the embed page the link opens the widget's chapter, resolved as
	// a click would resolve it, on this page's origin.
	href := evalT[string](p.t, p.ctx, `document.querySelector('`+p.root()+` [data-region="permalink"]').href`)
	if !strings.HasPrefix(href, base+w.Chapter+"?w="+p.name+"-1&") {
		p.t.Fatalf("%s: the permalink %q is not a state of its chapter %s", p.name, href, w.Chapter)
	}
	p.do(chromedp.Navigate("about:blank"), chromedp.Navigate(href), chromedp.WaitVisible(chromedp.CSS(p.root()+`[data-hydrated="true"]`)))
	p.settled() // the link's state is run in the simulator worker
	for k, v := range want {
		if got := p.figure(k); got != v {
			p.t.Errorf("%s: the permalink %s shows data-%s = %q, want %q", p.name, href, k, got, v)
		}
	}
}
