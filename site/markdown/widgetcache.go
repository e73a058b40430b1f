package markdown

import (
	"strings"
	"sync"

	"github.com/retrylab/retrylab/site/widget"
)

// widgetCache keeps the markup of each widget rendered, by widget,
// parameters (their canonical JSON) and origin, so that a block repeated
// in many pages runs its model and renders once. Two places of the same
// widget and parameters differ only by the widget's id, which the markup
// holds as "w-payment-1" and, in its permalink, as "payment-1": a copy
// made at one id is turned into another's by replacing the first id's
// name and count with the other's. That this holds for a widget is
// checked when its first copy is made, by rendering it at a second id as
// well and comparing; a widget for which it does not hold is rendered
// every time. It is safe for concurrent use.
type widgetCache struct {
	mu     sync.Mutex
	copies map[widgetKey]widgetCopy
}

type widgetKey struct {
	w              *widget.Widget
	params, origin string
}

// widgetCopy is a widget's markup at id, or (html "") the sign that its
// markup is not the same but for the id.
type widgetCopy struct{ id, html string }

// probeCount numbers the id at which a widget's first copy is rendered a
// second time, for the check: a count no page reaches.
const probeCount = 987654321

// render returns the markup of w with v at place, from the cache when it
// has w with v.
func (c *widgetCache) render(w *widget.Widget, v widget.Values, at widget.Place) (string, error) {
	key := widgetKey{w, v.JSON(), at.Origin}
	c.mu.Lock()
	cp, ok := c.copies[key]
	c.mu.Unlock()
	if ok && cp.html != "" {
		return strings.ReplaceAll(cp.html, short(cp.id), short(at.ID)), nil
	}
	html, err := renderAt(w, v, at)
	if err != nil || ok {
		return html, err
	}
	probe := widget.ID(w.Name, probeCount)
	if probe == at.ID {
		return html, nil
	}
	again, err := renderAt(w, v, widget.Place{ID: probe, Origin: at.Origin})
	if err != nil {
		return "", err
	}
	cp = widgetCopy{id: at.ID}
	if strings.ReplaceAll(html, short(at.ID), short(probe)) == again {
		cp.html = html
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.copies == nil {
		c.copies = map[widgetKey]widgetCopy{}
	}
	c.copies[key] = cp
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
