package widget

import (
	"strings"
	"testing"

	published "github.com/retrylab/retrylab/engine/figures"
)

// engine/stream's published figures, as the widget's outcome reports
// them, and the verdict's reason for each.
func TestStreamFigures(t *testing.T) {
	reasons := map[string]string{
		"Kafka's exactly once, emails without a key: one email twice":         "nothing stopped the second email",
		"emails keyed by order id: one each":                                  "one email per order",
		"read_uncommitted: the aborted record is read too":                    "read_uncommitted returned the aborted copy",
		"idempotent, no transactions: the reprocessed order is written twice": "without a transaction, the restarted processor wrote order 2",
		"plain producer: the retry is written twice too":                      "retry wrote order 1",
		"plain producer, emails keyed by order id: one each":                  "refused every repeated order id",
	}
	for _, row := range published.Of("stream") {
		html := render(t, &Stream, row.Params)
		got := figures(t, html)
		wantFigs := map[string]string{}
		for k, v := range row.Want {
			wantFigs["data-"+k] = v
		}
		wantFigs["data-verdict"] = verdict(row.Want["effects"] == row.Want["orders"])
		want(t, row.Case, got, wantFigs)
		reason, ok := reasons[row.Case]
		if !ok {
			t.Errorf("%s: no reason listed for the case", row.Case)
		} else if !strings.Contains(html, reason) {
			t.Errorf("%s: the verdict does not say %q", row.Case, reason)
		}
	}
}

// Stepping through the default run, the figures count up to the end's
// (the held readings are checked for every widget elsewhere).
func TestStreamSteps(t *testing.T) {
	want(t, "defaults", stepThrough(t, &Stream, nil, "data-written", "data-records", "data-effects"),
		map[string]string{"data-written": "4", "data-records": "3", "data-effects": "4", "data-verdict": "bad"})
}
