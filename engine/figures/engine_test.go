package figures_test

import (
	"testing"

	"github.com/retrylab/retrylab/engine/figures"
	"github.com/retrylab/retrylab/engine/models"
)

// The engine reproduces every row of the table, through the models' one
// list: each row's model runs with the row's parameters and comes to the
// row's figures.
func TestEngineFigures(t *testing.T) {
	for _, r := range figures.Rows {
		m, ok := models.Find(r.Model)
		if !ok {
			t.Errorf("no model called %s", r.Model)
			continue
		}
		v, err := m.Schema.Parse(r.Params)
		if err != nil {
			t.Errorf("%s, %s: %v", r.Model, r.Case, err)
			continue
		}
		run, err := m.Run(v)
		if err != nil {
			t.Errorf("%s, %s: %v", r.Model, r.Case, err)
			continue
		}
		for k, want := range r.Want {
			got, ok := run.Figures[k]
			if !ok {
				t.Errorf("%s, %s: the run has no figure %s (it has %v)", r.Model, r.Case, k, run.Figures)
			} else if got != want {
				t.Errorf("%s, %s: %s = %q, want %q", r.Model, r.Case, k, got, want)
			}
		}
	}
}
