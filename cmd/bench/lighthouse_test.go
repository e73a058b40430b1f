package main

import (
	"strings"
	"testing"
)

func TestParseLighthouse(t *testing.T) {
	report := `{"lighthouseVersion": "12.8.2",
	  "categories": {"performance": {"score": 0.97}, "accessibility": {"score": 1},
	    "best-practices": {"score": 0.96}, "seo": {"score": 1}},
	  "audits": {"first-contentful-paint": {"numericValue": 913.2}, "total-blocking-time": {"numericValue": 40},
	    "cumulative-layout-shift": {"numericValue": 0}, "interactive": {"numericValue": 1200}}}`
	run, err := parseLighthouse([]byte(report))
	if err != nil {
		t.Fatal(err)
	}
	if run.Scores["performance"] != 0.97 || run.Scores["best-practices"] != 0.96 || run.Scores["seo"] != 1 {
		t.Errorf("scores %v", run.Scores)
	}
	if run.Metrics["first-contentful-paint"] != 913.2 || run.Metrics["total-blocking-time"] != 40 {
		t.Errorf("metrics %v", run.Metrics)
	}
	if _, ok := run.Metrics["cumulative-layout-shift"]; !ok {
		t.Errorf("a CLS of 0 is a figure, not a missing one: %v", run.Metrics)
	}
	if _, ok := run.Metrics["interactive"]; ok {
		t.Errorf("an audit that is not a metric of the score was kept: %v", run.Metrics)
	}

	// A score Lighthouse could not compute is null: an error, never a 0.
	_, err = parseLighthouse([]byte(strings.Replace(report, `"seo": {"score": 1}`, `"seo": {"score": null}`, 1)))
	if err == nil || !strings.Contains(err.Error(), "no seo score") {
		t.Errorf("null score: %v", err)
	}
	_, err = parseLighthouse([]byte(`{"runtimeError": {"code": "NO_NAVSTART", "message": "Please run Lighthouse again."}, "categories": {}}`))
	if err == nil || !strings.Contains(err.Error(), "NO_NAVSTART") {
		t.Errorf("runtime error: %v", err)
	}
}
