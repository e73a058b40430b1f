package widget

import (
	"regexp"
	"testing"
)

var sagaPanelRE = regexp.MustCompile(`aria-label="(Card|Airline|Hotel)"><h3>[^<]*</h3><p class="w-big"><strong>(\d+)</strong> ([a-z ]+)</p><p class="w-note">([^<]*)</p>`)

// Each service's panel leads with what the saga left in place, and says
// under it how: after a full compensation the card shows no charge left,
// not a charge with a refund in small print.
func TestSagaPanelsShowWhatIsLeft(t *testing.T) {
	w, _ := Lookup("saga")
	for _, c := range []struct {
		raw  map[string]string
		want map[string]string
	}{
		{map[string]string{}, map[string]string{
			"Card":    "0 charges left / 1 charge, 1 refund",
			"Airline": "0 bookings left / 1 booking, 1 cancellation",
			"Hotel":   "0 bookings left / 0 bookings, 0 cancellations"}},
		{map[string]string{"keys": "off"}, map[string]string{
			"Card":    "0 charges left / 1 charge, 1 refund",
			"Airline": "1 booking left / 2 bookings, 1 cancellation"}},
		{map[string]string{"fail": "none"}, map[string]string{
			"Card":  "1 charge left / 1 charge, 0 refunds",
			"Hotel": "1 booking left / 1 booking, 0 cancellations"}},
	} {
		html, _ := runAt(t, w, c.raw, atEnd)
		got := map[string]string{}
		for _, m := range sagaPanelRE.FindAllStringSubmatch(html, -1) {
			got[m[1]] = m[2] + " " + m[3] + " / " + m[4]
		}
		for panel, want := range c.want {
			if got[panel] != want {
				t.Errorf("%v: the %s panel says %q, want %q", c.raw, panel, got[panel], want)
			}
		}
	}
}
