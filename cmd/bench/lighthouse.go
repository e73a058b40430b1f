package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// lighthouseVersion is the Lighthouse the figures are measured with,
// installed by `make bench-deps` into bench/node_modules (bench/package.json
// pins it): scores move between releases, so the version is part of them.
const lighthouseVersion = "12.8.2"

// lighthouseCategories are the scores reported, in order.
var lighthouseCategories = []string{"performance", "accessibility", "best-practices", "seo"}

// lighthouseRun is what the bench keeps of one Lighthouse report.
type lighthouseRun struct {
	Scores  map[string]float64 // by category id, 0 to 1
	Metrics map[string]float64 // lab metrics, ms (CLS unitless), by audit id
}

// lighthouseMetrics are the audits behind the performance score.
var lighthouseMetrics = []string{
	"first-contentful-paint", "largest-contentful-paint", "total-blocking-time",
	"cumulative-layout-shift", "speed-index",
}

// lighthouseBin is the installed Lighthouse command, or an error saying how
// to install it.
func lighthouseBin(root string) (string, error) {
	bin := filepath.Join(root, "bench", "node_modules", ".bin", "lighthouse")
	if _, err := os.Stat(bin); errors.Is(err, fs.ErrNotExist) {
		return "", errors.New("Lighthouse is not installed: make bench-deps installs it into bench/node_modules")
	} else if err != nil {
		return "", err
	}
	pkg, err := os.ReadFile(filepath.Join(root, "bench", "node_modules", "lighthouse", "package.json"))
	if err != nil {
		return "", err
	}
	var meta struct{ Version string }
	if err := json.Unmarshal(pkg, &meta); err != nil {
		return "", fmt.Errorf("bench/node_modules/lighthouse/package.json: %w", err)
	}
	if meta.Version != lighthouseVersion {
		return "", fmt.Errorf("bench/node_modules holds Lighthouse %s, not %s: run make bench-deps", meta.Version, lighthouseVersion)
	}
	if _, err := exec.LookPath("node"); err != nil {
		return "", errors.New("Lighthouse needs Node.js: make bench-deps installs it")
	}
	return bin, nil
}

// runLighthouse audits url for a phone (Lighthouse's mobile form factor,
// with its simulated slow 4G and 4x CPU slowdown) in a fresh headless
// chromium, and returns its scores.
func runLighthouse(ctx context.Context, bin, chrome, url, dir string) (lighthouseRun, error) {
	out := filepath.Join(dir, "lighthouse.json")
	flags := append([]string{"--headless=new"}, chromeFlags...)
	cmd := exec.CommandContext(ctx, bin, url,
		"--only-categories="+strings.Join(lighthouseCategories, ","),
		"--form-factor=mobile",
		"--output=json", "--output-path="+out,
		"--quiet",
		"--chrome-flags="+strings.Join(flags, " "),
	)
	cmd.Env = append(os.Environ(), "CHROME_PATH="+chrome)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return lighthouseRun{}, fmt.Errorf("lighthouse: %v: %s", err, lastLine(stderr.String()))
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return lighthouseRun{}, err
	}
	return parseLighthouse(data)
}

// parseLighthouse reads the scores and lab metrics of a Lighthouse JSON
// report. A report whose run failed (runtimeError) or that lacks a
// category's score is an error: Lighthouse leaves a score null when it
// could not compute it, which is not a zero.
func parseLighthouse(data []byte) (lighthouseRun, error) {
	var rep struct {
		LighthouseVersion string `json:"lighthouseVersion"`
		RuntimeError      *struct {
			Code, Message string
		} `json:"runtimeError"`
		Categories map[string]struct {
			Score *float64 `json:"score"`
		} `json:"categories"`
		Audits map[string]struct {
			NumericValue *float64 `json:"numericValue"`
		} `json:"audits"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		return lighthouseRun{}, fmt.Errorf("the Lighthouse report: %w", err)
	}
	if rep.RuntimeError != nil && rep.RuntimeError.Code != "" {
		return lighthouseRun{}, fmt.Errorf("Lighthouse %s: %s", rep.RuntimeError.Code, rep.RuntimeError.Message)
	}
	run := lighthouseRun{Scores: map[string]float64{}, Metrics: map[string]float64{}}
	for _, id := range lighthouseCategories {
		c, ok := rep.Categories[id]
		if !ok || c.Score == nil {
			return lighthouseRun{}, fmt.Errorf("the Lighthouse report has no %s score", id)
		}
		run.Scores[id] = *c.Score
	}
	for _, id := range lighthouseMetrics {
		if a, ok := rep.Audits[id]; ok && a.NumericValue != nil {
			run.Metrics[id] = *a.NumericValue
		}
	}
	return run, nil
}
