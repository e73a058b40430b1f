package figures

import "testing"

// Every model has a row, and the rows name only real things.
func TestRows(t *testing.T) {
	for _, m := range []string{"payment", "guard", "backoff", "budget", "storm", "outbox", "saga", "ordering", "sent-marker", "cas", "lock", "lease"} {
		if len(Of(m)) == 0 {
			t.Errorf("no figures for %s", m)
		}
	}
	for _, r := range Rows {
		if r.Case == "" || len(r.Want) == 0 {
			t.Errorf("%s: a row without a case or figures: %+v", r.Model, r)
		}
	}
}
