package markdown

import (
	"testing"

	"github.com/retrylab/retrylab/site/widget"
)

// A widget with the same parameters runs its model for its first two
// copies, the second of which checks the first, and never again: never
// more than without the cache. Every copy is what rendering it at its own
// id writes.
func TestWidgetCacheRendersOnce(t *testing.T) {
	runs := 0
	counted := widget.Payment
	counted.Run = func(v widget.Values) (widget.Run, error) {
		runs++
		return widget.Payment.Run(v)
	}
	v, err := counted.Schema.Parse(map[string]string{"keys": "per-intent", "faults": "lose-response, ok"})
	if err != nil {
		t.Fatal(err)
	}
	var c widgetCache
	for _, n := range []int{1, 2, 12, 1} {
		at := widget.Place{ID: widget.ID("payment", n), Origin: "https://retrylab.example"}
		got, err := c.render(&counted, v, at)
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := renderAt(&widget.Payment, v, at); got != want {
			t.Errorf("payment at %s differs from its own rendering", at.ID)
		}
	}
	if runs != 2 {
		t.Errorf("the model ran %d times for four copies, want 2 (the first, and the second that checks it)", runs)
	}
	// Other parameters, or another origin, are another widget: its one
	// copy runs the model once.
	other := widget.Place{ID: widget.ID("payment", 3), Origin: "https://other.example"}
	if got, _ := c.render(&counted, v, other); runs != 3 {
		t.Errorf("another origin: %d runs, want 3", runs)
	} else if want, _ := renderAt(&widget.Payment, v, other); got != want {
		t.Error("payment at another origin differs from its own rendering")
	}
}

// saysPayment1 is a run whose output names "payment-1" in its text, as if
// it were the id of the first payment widget.
type saysPayment1 struct{ widget.Run }

func (r saysPayment1) Output(h *widget.HTML, step int) {
	r.Run.Output(h, step)
	h.Elem("p", "see payment-1")
}

// A widget whose markup holds its id's text other than as its id fails the
// check, and is rendered at every place.
func TestWidgetCacheChecksTheCopy(t *testing.T) {
	runs := 0
	odd := widget.Payment
	odd.Run = func(v widget.Values) (widget.Run, error) {
		runs++
		r, err := widget.Payment.Run(v)
		return saysPayment1{r}, err
	}
	v := odd.Schema.Defaults()
	var c widgetCache
	for _, n := range []int{1, 2, 3} {
		at := widget.Place{ID: widget.ID("payment", n)}
		got, err := c.render(&odd, v, at)
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := renderAt(&odd, v, at); got != want {
			t.Errorf("at %s: the copy differs from its own rendering", at.ID)
		}
	}
	// Each place ran the model (3), and so did each rendering compared
	// with here (3 more).
	if runs != 6 {
		t.Errorf("the model ran %d times, want 6", runs)
	}
}
