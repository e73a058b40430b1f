package figures_test

import (
	"testing"

	"github.com/retrylab/retrylab/engine/figures"
	"github.com/retrylab/retrylab/engine/models"
)

// Every model has a row, and every row has a case and figures.
func TestRows(t *testing.T) {
	for _, m := range models.All {
		if len(figures.Of(m.Name)) == 0 {
			t.Errorf("no figures for %s", m.Name)
		}
	}
	for _, r := range figures.Rows {
		if r.Case == "" || len(r.Want) == 0 {
			t.Errorf("%s: a row without a case or figures: %+v", r.Model, r)
		}
	}
}
