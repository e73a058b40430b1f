package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestJudge(t *testing.T) {
	for _, c := range []struct {
		row  Row
		want string
	}{
		{measured("page", "x", 210, "ms"), ""}, // no target, no verdict
		{withTarget(measured("page", "x", 210, "ms"), viewportTarget), "met"},
		{withTarget(measured("page", "x", 300, "ms"), viewportTarget), "met"}, // the bound itself keeps it
		// 20.5 ms against 16: 4.5 ms over, 4.5 / 16 = 28%.
		{withTarget(measured("widgets", "x", 20.5, "ms"), frameTarget), "missed by 4.50 ms (28%)"},
		// 1.63 against 1.5: 0.13 over, 0.13 / 1.5 = 9%.
		{withTarget(measured("module", "x", 1.63, "ratio"), moduleTarget), "missed by 0.13× (9%)"},
		// A score below a lower bound: 0.86 against 0.95 is 0.09 short, 9%.
		{withTarget(measured("page", "x", 0.86, "score"), performanceTarget), "missed by 0.09 (9%)"},
		{withTarget(measured("page", "x", 0.97, "score"), performanceTarget), "met"},
		{withTarget(missing("page", "x", "no browser"), performanceTarget), "not measured"},
	} {
		r := c.row
		r.judge()
		if r.Verdict != c.want {
			t.Errorf("%s %s against %+v: verdict %q, want %q", r.Shown, r.Unit, r.Target, r.Verdict, c.want)
		}
	}
}

func withTarget(r Row, t *Target) Row { r.Target = t; return r }

func TestFormatValue(t *testing.T) {
	for _, c := range []struct {
		v    float64
		unit string
		want string
	}{
		{715717, "bytes", "715,717 B"},
		{999, "bytes", "999 B"},
		{1000, "bytes", "1,000 B"},
		{0.4123, "ms", "0.412 ms"},
		{3.25, "ms", "3.25 ms"},
		{20.5, "ms", "20.5 ms"},
		{357.4, "ms", "357 ms"},
		{12345, "ms", "12.3 s"},
		{1.0e-5, "s", "10 µs"},
		{0.00147, "s", "1.47 ms"},
		{9.25, "s", "9.25 s"},
		{1.6283, "ratio", "1.63×"},
		{0.955, "score", "0.95"}, // Lighthouse shows two decimals
		{30.4, "pages/s", "30 pages/s"},
	} {
		if got := formatValue(c.v, c.unit); got != c.want {
			t.Errorf("formatValue(%v, %q) = %q, want %q", c.v, c.unit, got, c.want)
		}
	}
	if got := thousands(-1234567); got != "-1,234,567" {
		t.Errorf("thousands(-1234567) = %q", got)
	}
	for x, want := range map[float64]string{1.66: "1.7×", 19.81: "19.8×", 52.4: "52.4×", 1249.6: "1,250×"} {
		if got := formatRatio(x); got != want {
			t.Errorf("formatRatio(%v) = %q, want %q", x, got, want)
		}
	}
}

func sampleReport() *Report {
	rep := &Report{
		Started:  time.Date(2026, 11, 30, 2, 4, 0, 0, time.UTC),
		TookS:    68,
		Quick:    true,
		Go:       "go1.26.8",
		Platform: "linux/amd64",
		CPUs:     2,
		Headings: map[string]string{"module": "sizes"},
	}
	a := measured("module", "page module, brotli 11", 715717, "bytes")
	b := withTarget(measured("module", "module / floor, brotli", 1.63, "ratio"), moduleTarget)
	b.Note = "a|b"
	c := withTarget(measured("widgets", "guard, defaults", 20.5, "ms"), frameTarget)
	d := missing("widgets", "backoff, 100,000 clients", "not registered")
	rep.Rows = []Row{a, b, c, d}
	for i := range rep.Rows {
		rep.Rows[i].judge()
	}
	return rep
}

// The table's columns line up: every row's figure starts where the header
// says FIGURE, and each section is named once, above its rows.
func TestWriteTable(t *testing.T) {
	var buf bytes.Buffer
	if err := sampleReport().WriteTable(&buf); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(buf.String(), "\n")
	if !strings.HasPrefix(lines[0], "retrylab bench, quick run (BENCH_QUICK=1), 2026-11-30 02:04 UTC, go1.26.8 linux/amd64, 2 CPUs, took 1m8s") {
		t.Errorf("heading %q", lines[0])
	}
	var header string
	for _, l := range lines {
		if strings.HasPrefix(l, "MEASURE") {
			header = l
		}
	}
	col := strings.Index(header, "FIGURE")
	tcol := strings.Index(header, "TARGET")
	if col < 0 || tcol < 0 {
		t.Fatalf("no header line in\n%s", buf.String())
	}
	for _, want := range []struct{ measure, figure, target string }{
		{"page module, brotli 11", "715,717 B", ""},
		{"module / floor, brotli", "1.63×", "≤ 1.50× floor"},
		{"guard, defaults", "20.5 ms", "≤ 16 ms"},
		{"backoff, 100,000 clients", "not measured", ""},
	} {
		var line string
		for _, l := range lines {
			if strings.HasPrefix(l, "  "+want.measure+" ") {
				line = l
			}
		}
		r := []rune(line)
		if line == "" || !strings.HasPrefix(string(r[col:]), want.figure) {
			t.Errorf("row %q: figure not at column %d:\n%s\n%s", want.measure, col, header, line)
		}
		if want.target != "" && !strings.HasPrefix(string(r[tcol:]), want.target) {
			t.Errorf("row %q: target not at column %d:\n%s\n%s", want.measure, tcol, header, line)
		}
	}
	if n := strings.Count(buf.String(), "module: sizes\n"); n != 1 {
		t.Errorf("the module section's heading appears %d times, want once:\n%s", n, buf.String())
	}
	if n := strings.Count(buf.String(), "\nwidgets\n"); n != 1 {
		t.Errorf("the widgets section's name appears %d times, want once:\n%s", n, buf.String())
	}
	if !strings.Contains(buf.String(), "missed by 4.50 ms (28%)") || !strings.Contains(buf.String(), "not registered") {
		t.Errorf("verdicts or notes missing:\n%s", buf.String())
	}
	for _, l := range lines {
		if strings.HasSuffix(l, " ") {
			t.Errorf("trailing space: %q", l)
		}
	}
}

// bench/REPORT.md is generated from a report as read back from its JSON:
// the run's date, kind, machine, software and commit, then each section's
// heading above its own table, with bars in cells escaped and a row that
// was not measured saying why.
func TestWriteMarkdown(t *testing.T) {
	rep, err := ReadReport(filepath.Join("testdata", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := rep.WriteMarkdown(&buf); err != nil {
		t.Fatal(err)
	}
	const want = "# Bench report\n" +
		"\n" +
		"The latest run of `make bench`, written by it from `bench/latest.json`;\n" +
		"`go run ./cmd/bench -from bench/latest.json -markdown` prints it again.\n" +
		"[README.md](README.md) says how each figure is taken.\n" +
		"\n" +
		"- **Date**: 2026-11-30 02:04 UTC, took 1m8s\n" +
		"- **Run**: quick run (BENCH_QUICK=1: fewer repetitions, a smaller corpus)\n" +
		"- **Machine**: linux/amd64, 2 CPUs (AMD EPYC 7B13), load 0.36 0.14 0.05 at the start\n" +
		"- **Software**: go1.26.8, Chromium 131.0.6778.85 built on Debian\n" +
		"- **Commit**: fd0519b\n" +
		"\n" +
		"## module\n" +
		"\n" +
		"sizes, compressed as the site serves them.\n" +
		"\n" +
		"| measure | figure | target | verdict |\n" +
		"|---|---|---|---|\n" +
		"| page module, brotli 11 | 715,717 B |  |  |\n" +
		"| module / floor, brotli | 1.63× | ≤ 1.50× floor | missed by 0.13× (9%); a\\|b |\n" +
		"\n" +
		"## widgets\n" +
		"\n" +
		"| measure | figure | target | verdict |\n" +
		"|---|---|---|---|\n" +
		"| guard, defaults | 12.5 ms | ≤ 16 ms | met |\n" +
		"| backoff, 100,000 clients | not measured |  | not registered |\n"
	if got := buf.String(); got != want {
		t.Errorf("markdown:\n%s\nwant:\n%s", got, want)
	}
}

// A full run writes the markdown report where -report says, through
// WriteMarkdownFile: the same text, nothing left beside it.
func TestWriteMarkdownFile(t *testing.T) {
	rep := sampleReport()
	file := filepath.Join(t.TempDir(), "REPORT.md")
	if err := rep.WriteMarkdownFile(file); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := rep.WriteMarkdown(&want); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want.String() {
		t.Errorf("%s holds\n%s\nwant\n%s", file, got, want.String())
	}
	if entries, _ := os.ReadDir(filepath.Dir(file)); len(entries) != 1 {
		t.Errorf("files beside the report: %v", entries)
	}
}

// The JSON report reads back as written, and is written whole: no
// temporary file is left beside it, and it is readable by everyone.
func TestWriteJSON(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "bench", "latest.json")
	rep := sampleReport()
	rep.Rows[0].Samples = []float64{1, 2, 3}
	rep.Rows[0].Detail = map[string]any{"param": "seed"}
	if err := rep.WriteJSON(file); err != nil {
		t.Fatal(err)
	}
	back, err := ReadReport(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Rows) != len(rep.Rows) || !back.Started.Equal(rep.Started) || back.Quick != rep.Quick {
		t.Fatalf("read back %+v", back)
	}
	for i, r := range back.Rows {
		w := rep.Rows[i]
		if r.Measure != w.Measure || r.Shown != w.Shown || r.Verdict != w.Verdict || (r.Value == nil) != (w.Value == nil) ||
			(r.Value != nil && *r.Value != *w.Value) || (r.Target == nil) != (w.Target == nil) {
			t.Errorf("row %d read back as %+v, written %+v", i, r, w)
		}
	}
	if got := back.Rows[0].Samples; len(got) != 3 || got[2] != 3 || back.Rows[0].Detail["param"] != "seed" {
		t.Errorf("samples %v, detail %v", got, back.Rows[0].Detail)
	}
	entries, err := os.ReadDir(filepath.Dir(file))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("files beside the report: %v", entries)
	}
	info, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", info.Mode().Perm())
	}
}
