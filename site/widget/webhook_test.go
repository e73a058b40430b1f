package widget

import (
	"strings"
	"testing"

	published "github.com/retrylab/retrylab/engine/figures"
)

// engine/webhook's published figures, as the widget's outcome reports
// them, and the verdict's reason for each.
func TestWebhookFigures(t *testing.T) {
	reasons := map[string]string{
		"every defence: the retry finds its id, forgery and replay refused": "the retry found the id recorded",
		"no dedupe: the retry works again":                                  "each delivery the endpoint accepted did the work again",
		"no signature check: the forgery ships":                             "anyone who knows the URL can post an event",
		"no timestamp check: the replay finds its id forgotten":             "its id had been forgotten after 24 h",
		"no timestamp check, ids kept 72 h":                                 "the replay found its id still kept",
		"work before the answer: past the sender's timeout":                 "the work outlasted the sender",
		"work before the answer, no dedupe: every delivery works":           "The sender gave up after 5 deliveries",
		"work before the answer, work 90 s: the retry overtakes the id":     "before its id was recorded",
	}
	for _, row := range published.Of("webhook") {
		html := render(t, &Webhook, row.Params)
		got := figures(t, html)
		wantFigs := map[string]string{}
		for k, v := range row.Want {
			wantFigs["data-"+k] = v
		}
		wantFigs["data-verdict"] = verdict(row.Want["fulfilled"] == "1" && row.Want["forged"] == "0")
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
func TestWebhookSteps(t *testing.T) {
	want(t, "defaults", stepThrough(t, &Webhook, nil, "data-fulfilled", "data-forged", "data-deliveries"),
		map[string]string{"data-fulfilled": "1", "data-forged": "0", "data-deliveries": "2", "data-verdict": "good"})
}
