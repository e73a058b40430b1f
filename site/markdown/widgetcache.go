package markdown

import (
	"strings"
	"sync"

	"github.com/retrylab/retrylab/site/widget"
)

// widgetCache keeps the markup of each widget rendered, by widget,
// parameters (their canonical JSON), origin and the controls shown, so that a block repeated
// in many pages runs its model and renders once. Two places of the same
// widget and parameters differ only by the widget's id, which the markup
// holds as "w-payment-1" and, in its permalink, as "payment-1": a copy
// made at one id is turned into another's by replacing the first id's
// name and count with the other's. That this holds for a widget is
// checked with its second copy, which is rendered (as it would be with no
// cache) and compared with the first turned into it; copies from the
// third on are made from the first, and a widget for which it does not
// hold is rendered every time. So the cache never renders more than no
// cache would. It is safe for concurrent use.
type widgetCache struct {
	mu     sync.Mutex
	copies map[widgetKey]widgetCopy
}

type widgetKey struct {
	w                     *widget.Widget
	params, origin, shown string
}

// widgetCopy is a widget's first markup, at id, and whether copies may be
// made from it: unknown until the second copy is rendered.
type widgetCopy struct {
	id, html string
	checked  bool // the second copy was the first's, but for the id
	differs  bool // it was not: render every copy
}

// render returns the markup of w with v at place, from the cache when it
// has w with v.
func (c *widgetCache) render(w *widget.Widget, v widget.Values, at widget.Place) (string, error) {
	key := widgetKey{w, v.JSON(), at.Origin, strings.Join(at.Shown, ",")}
	c.mu.Lock()
	cp, ok := c.copies[key]
	c.mu.Unlock()
	if ok && cp.checked {
		return strings.ReplaceAll(cp.html, short(cp.id), short(at.ID)), nil
	}
	html, err := renderAt(w, v, at)
	if err != nil || (ok && cp.differs) {
		return html, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.copies == nil {
		c.copies = map[widgetKey]widgetCopy{}
	}
	first, ok := c.copies[key] // again: another page may have got here first
	switch {
	case !ok:
		c.copies[key] = widgetCopy{id: at.ID, html: html}
	case !first.checked && !first.differs && first.id != at.ID:
		first.checked = strings.ReplaceAll(first.html, short(first.id), short(at.ID)) == html
		first.differs = !first.checked
		c.copies[key] = first
	}
	return html, nil
}

// short is a widget's id without widget.IDPrefix: its name and count, as
// a permalink names it.
func short(id string) string { return strings.TrimPrefix(id, widget.IDPrefix) }

func renderAt(w *widget.Widget, v widget.Values, at widget.Place) (string, error) {
	var h widget.HTML
	if err := widget.Render(&h, w, v, at); err != nil {
		return "", err
	}
	return h.String(), nil
}
