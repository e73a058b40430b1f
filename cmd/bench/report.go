package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Report is one run of the bench: every row of the table, with the figures
// behind each, and what the run was measured on.
type Report struct {
	Started  time.Time `json:"started"`
	TookS    float64   `json:"took_s"` // the whole run's wall time
	Quick    bool      `json:"quick"`  // BENCH_QUICK: fewer repetitions, a smaller corpus
	Go       string    `json:"go"`
	Platform string    `json:"platform"` // GOOS/GOARCH
	CPUs     int       `json:"cpus"`
	CPU      string    `json:"cpu,omitempty"`  // the processor's model name, from /proc/cpuinfo
	Load     string    `json:"load,omitempty"` // /proc/loadavg when the run started: other work skews every time
	Commit   string    `json:"commit,omitempty"`
	Chromium string    `json:"chromium,omitempty"`
	Python   string    `json:"python,omitempty"`
	// Headings say what each section measures and how, by section name;
	// the table prints them above the section's rows.
	Headings map[string]string `json:"headings,omitempty"`
	Rows     []Row             `json:"rows"`
}

// sectionHeading is the line the table prints above a section's rows: its name,
// and what it measures when the report says.
func (rep *Report) sectionHeading(section string) string {
	if h := rep.Headings[section]; h != "" {
		return section + ": " + h
	}
	return section
}

// Row is one line of the table.
type Row struct {
	Section string `json:"section"` // "module", "page", "widgets", "models", "sitegen"
	Measure string `json:"measure"`
	// Value is the figure in Unit; nil when it could not be measured.
	Value   *float64  `json:"value,omitempty"`
	Unit    string    `json:"unit,omitempty"`
	Shown   string    `json:"shown"` // the figure as the table prints it
	Target  *Target   `json:"target,omitempty"`
	Verdict string    `json:"verdict,omitempty"` // set by judge
	Note    string    `json:"note,omitempty"`    // how it was measured, or why it was not
	Samples []float64 `json:"samples,omitempty"` // every repetition, in Unit
	// Detail holds the figures behind the row that the table leaves out.
	Detail map[string]any `json:"detail,omitempty"`
}

// Target is a bound a figure should keep: at most Limit (Max) or at least
// Limit (!Max), in the row's unit.
type Target struct {
	Max   bool    `json:"max"`
	Limit float64 `json:"limit"`
	Text  string  `json:"text"` // as the table prints it: "≤ 300 ms"
}

// AtMost and AtLeast build targets.
func AtMost(limit float64, text string) *Target { return &Target{Max: true, Limit: limit, Text: text} }
func AtLeast(limit float64, text string) *Target {
	return &Target{Max: false, Limit: limit, Text: text}
}

// Met reports whether v keeps the target.
func (t *Target) Met(v float64) bool {
	if t.Max {
		return v <= t.Limit
	}
	return v >= t.Limit
}

// judge fills in the row's verdict: "met", "missed by ..." with the gap in
// the row's unit and as a share of the limit, or "not measured" when there
// is a target and no figure.
func (r *Row) judge() {
	switch {
	case r.Target == nil:
		r.Verdict = ""
	case r.Value == nil:
		r.Verdict = "not measured"
	case r.Target.Met(*r.Value):
		r.Verdict = "met"
	default:
		gap := *r.Value - r.Target.Limit
		if gap < 0 {
			gap = -gap
		}
		r.Verdict = "missed by " + formatValue(gap, r.Unit)
		if r.Target.Limit != 0 {
			r.Verdict += fmt.Sprintf(" (%.0f%%)", 100*gap/r.Target.Limit)
		}
	}
}

// measured returns a row with a figure.
func measured(section, measure string, v float64, unit string) Row {
	return Row{Section: section, Measure: measure, Value: &v, Unit: unit, Shown: formatValue(v, unit)}
}

// Value0 is the row's figure, or 0 when it has none.
func (r Row) Value0() float64 {
	if r.Value == nil {
		return 0
	}
	return *r.Value
}

// missing returns a row whose figure could not be had, saying why.
func missing(section, measure, why string) Row {
	return Row{Section: section, Measure: measure, Shown: "not measured", Note: why}
}

// formatValue prints a figure in its unit.
func formatValue(v float64, unit string) string {
	switch unit {
	case "bytes":
		return thousands(int64(v+0.5)) + " B"
	case "ms":
		return formatMs(v)
	case "s":
		return formatSeconds(v)
	case "ratio":
		return fmt.Sprintf("%.2f×", v)
	case "score":
		return fmt.Sprintf("%.2f", v)
	case "pages/s":
		return fmt.Sprintf("%.0f pages/s", v)
	case "":
		return fmt.Sprintf("%g", v)
	}
	return fmt.Sprintf("%g %s", v, unit)
}

// formatMs prints milliseconds with three significant figures or so:
// 0.412 ms, 12.3 ms, 123 ms, 12.3 s.
func formatMs(ms float64) string {
	switch {
	case ms >= 10000:
		return fmt.Sprintf("%.1f s", ms/1000)
	case ms >= 100:
		return fmt.Sprintf("%.0f ms", ms)
	case ms >= 10:
		return fmt.Sprintf("%.1f ms", ms)
	case ms >= 1:
		return fmt.Sprintf("%.2f ms", ms)
	}
	return fmt.Sprintf("%.3f ms", ms)
}

// formatSeconds prints a duration given in seconds in the unit that suits
// it: 812 ns, 41.2 µs, 3.05 ms, 1.23 s.
func formatSeconds(s float64) string {
	switch {
	case s >= 1:
		return fmt.Sprintf("%.2f s", s)
	case s >= 1e-3:
		return formatMs(s * 1e3)
	case s >= 1e-6:
		return fmt.Sprintf("%.3g µs", s*1e6)
	}
	return fmt.Sprintf("%.3g ns", s*1e9)
}

// thousands writes n with commas between groups of three digits.
func thousands(n int64) string {
	neg := n < 0
	if neg {
		n = -n
	}
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

var tableHeader = []string{"measure", "figure", "target", "verdict"}

// cells are a row's columns as the table prints them: the note follows
// the verdict, or stands in its place.
func (r Row) cells() []string {
	target := ""
	if r.Target != nil {
		target = r.Target.Text
	}
	verdict := r.Verdict
	if r.Note != "" {
		if verdict != "" {
			verdict += "; "
		}
		verdict += r.Note
	}
	return []string{r.Measure, r.Shown, target, verdict}
}

// WriteTable prints the report as a plain-text table: a heading line,
// then each section's name on a line of its own and its rows indented
// below it, in aligned columns.
func (rep *Report) WriteTable(w io.Writer) error {
	width := make([]int, len(tableHeader))
	for i, h := range tableHeader {
		width[i] = runeLen(h)
	}
	for _, r := range rep.Rows {
		for i, c := range r.cells()[:len(width)-1] { // the last column is not padded
			width[i] = max(width[i], runeLen(c)+2*boolInt(i == 0))
		}
	}
	var b strings.Builder
	b.WriteString(rep.heading() + "\n\n")
	line := func(cells []string) {
		for i, c := range cells {
			if i == len(cells)-1 {
				b.WriteString(c)
				break
			}
			b.WriteString(c + strings.Repeat(" ", width[i]-runeLen(c)+2))
		}
		b.WriteString("\n")
	}
	line(upper(tableHeader))
	section := ""
	for _, r := range rep.Rows {
		if r.Section != section {
			section = r.Section
			b.WriteString(rep.sectionHeading(section) + "\n")
		}
		c := r.cells()
		c[0] = "  " + c[0]
		line(c)
	}
	_, err := io.WriteString(w, trimLines(b.String()))
	return err
}

// WriteMarkdown writes the report as a markdown document, bench/REPORT.md:
// when and on what it was measured, then each section's heading and its
// rows as a table.
func (rep *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("# Bench report\n\n")
	b.WriteString("The latest run of `make bench`, written by it from `bench/latest.json`;\n" +
		"`go run ./cmd/bench -from bench/latest.json -markdown` prints it again.\n" +
		"[README.md](README.md) says how each figure is taken.\n\n")
	for _, f := range rep.facts() {
		b.WriteString("- **" + f[0] + "**: " + f[1] + "\n")
	}
	section := ""
	for _, r := range rep.Rows {
		if r.Section != section {
			section = r.Section
			b.WriteString("\n## " + section + "\n\n")
			if h := rep.Headings[section]; h != "" {
				b.WriteString(h + ".\n\n")
			}
			b.WriteString(markdownRow(tableHeader))
			b.WriteString("|" + strings.Repeat("---|", len(tableHeader)) + "\n")
		}
		b.WriteString(markdownRow(r.cells()))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// facts are what the report's reader needs to weigh its figures, as
// name and value: when it ran, what kind of run, on what machine and
// software, from which commit.
func (rep *Report) facts() [][2]string {
	date := rep.Started.UTC().Format("2006-01-02 15:04 UTC")
	if rep.TookS > 0 {
		date += ", took " + (time.Duration(rep.TookS) * time.Second).String()
	}
	kind := "full run"
	if rep.Quick {
		kind = "quick run (BENCH_QUICK=1: fewer repetitions, a smaller corpus)"
	}
	machine := fmt.Sprintf("%s, %d CPUs", rep.Platform, rep.CPUs)
	if rep.CPU != "" {
		machine += " (" + rep.CPU + ")"
	}
	if rep.Load != "" {
		machine += ", load " + rep.Load + " at the start"
	}
	software := []string{rep.Go}
	for _, s := range []string{rep.Chromium, rep.Python} {
		if s != "" {
			software = append(software, s)
		}
	}
	facts := [][2]string{{"Date", date}, {"Run", kind}, {"Machine", machine}, {"Software", strings.Join(software, ", ")}}
	if rep.Commit != "" {
		facts = append(facts, [2]string{"Commit", rep.Commit})
	}
	return facts
}

// markdownRow is one row of a markdown table, its cells' bars escaped.
func markdownRow(cells []string) string {
	var b strings.Builder
	b.WriteString("|")
	for _, c := range cells {
		b.WriteString(" " + strings.ReplaceAll(c, "|", `\|`) + " |")
	}
	return b.String() + "\n"
}

// heading is the line above the table: when, how and on what.
func (rep *Report) heading() string {
	kind := "full run"
	if rep.Quick {
		kind = "quick run (BENCH_QUICK=1)"
	}
	parts := []string{
		"retrylab bench, " + kind,
		rep.Started.UTC().Format("2006-01-02 15:04 UTC"),
		rep.Go + " " + rep.Platform,
		fmt.Sprintf("%d CPUs", rep.CPUs),
	}
	if rep.Load != "" {
		parts = append(parts, "load "+rep.Load)
	}
	if rep.Commit != "" {
		parts = append(parts, "commit "+rep.Commit)
	}
	if rep.TookS > 0 {
		parts = append(parts, "took "+(time.Duration(rep.TookS)*time.Second).String())
	}
	return strings.Join(parts, ", ")
}

// WriteJSON writes the report to file, indented, through a temporary file
// renamed into place, so a reader never sees half a report.
func (rep *Report) WriteJSON(file string) error {
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(file, append(data, '\n'))
}

// WriteMarkdownFile writes the report to file as WriteMarkdown does, in
// the same way as WriteJSON.
func (rep *Report) WriteMarkdownFile(file string) error {
	var b bytes.Buffer
	if err := rep.WriteMarkdown(&b); err != nil {
		return err
	}
	return writeFile(file, b.Bytes())
}

// writeFile writes data to file through a temporary file renamed into
// place, readable by everyone.
func writeFile(file string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), filepath.Base(file)+".tmp-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), file)
}

// ReadReport reads a report written by WriteJSON.
func ReadReport(file string) (*Report, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var rep Report
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return &rep, nil
}

func runeLen(s string) int { return len([]rune(s)) }

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func upper(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.ToUpper(s)
	}
	return out
}

// trimLines drops the spaces at the end of every line.
func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}
