// Command bench measures how fast and how small retrylab is, and prints
// one table of the figures, all measured in the same run, with the targets
// they answer to:
//
//   - module: the page's WebAssembly module, raw, gzip and brotli, beside a
//     hello-world Go module that touches only syscall/js, built in the same
//     run with the same flags (the floor for standard Go);
//   - page: the handbook's first chapter (/double-charge/) in headless
//     chromium, cold loads: first contentful paint, a widget entering the
//     viewport to its being interactive, bytes transferred; the home page's
//     widget from the reader's first input to its being interactive; and
//     Lighthouse's mobile scores of both and of an embed page opened with a
//     query;
//   - widgets: every registered widget re-run and re-drawn after a change of
//     one of its controls, and the backoff widget with 1,000 and 100,000
//     clients;
//   - busy: the heaviest runs a reader can ask for (backoff's 100,000
//     clients compared, budget's 100,000 requests): the longest task of the
//     page's main thread meanwhile, and the time from the change to the
//     widget's "running…";
//   - models: backoff, budget, storm, guard, payment, lock, outbox, saga and
//     ordering natively, against plain Python implementations of the same
//     models (bench/reference), which must give the same figures;
//   - sitegen: the real site's full build, and pages per second on a
//     generated corpus;
//   - serve: under `sitegen serve`, from a markdown edit's and from an
//     engine Go edit's write to the open page's reload;
//   - api: retrylab api, in memory and on SQLite, under every attack on
//     its availability at once for a minute on the loopback: the slowest
//     answer a well-behaved client of another account gets meanwhile, and
//     the server's peak RSS; and what a key costs each store;
//   - test: make test, warm (a quick run leaves it out unless -only test
//     names it);
//
// Usage, from anywhere inside the module:
//
//	go run ./cmd/bench [-quick] [-out bench/latest.json] [-report bench/REPORT.md] [-only SECTIONS] [-markdown]
//	go run ./cmd/bench -from bench/latest.json [-markdown]
//
// BENCH_QUICK=1 is -quick: fewer repetitions and a smaller corpus, within
// five minutes. The report is also written as JSON to -out, and, by a run
// of every section, as markdown to -report, which is committed; -from
// prints a report written before without measuring anything (-markdown as
// -report has it).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/retrylab/retrylab/internal/gotool"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// sections are the parts of the bench, in the table's order.
var sections = []string{"module", "page", "widgets", "busy", "models", "sitegen", "serve", "api", "test"}

// config is how much of each measurement a run makes.
type config struct {
	Quick      bool
	ColdLoads  int           // cold loads of the handbook page
	Lighthouse int           // Lighthouse runs; the median performance score's run is reported
	Changes    int           // timed changes of each widget landing on its defaults (as many land on the other value)
	BigChanges int           // timed changes landing on 100,000 backoff clients, per policy; and of each busy case
	Corpus     int           // articles in the generated corpus
	Builds     int           // builds of each corpus timed
	MinTime    time.Duration // how long each model is timed, natively and in Python
	Soak       time.Duration // how long retrylab api is attacked, per store
}

func fullConfig() config {
	return config{ColdLoads: 5, Lighthouse: 3, Changes: 20, BigChanges: 10, Corpus: 1000, Builds: 2, MinTime: time.Second, Soak: time.Minute}
}

func quickConfig() config {
	return config{Quick: true, ColdLoads: 3, Lighthouse: 1, Changes: 10, BigChanges: 3, Corpus: 200, Builds: 1, MinTime: 250 * time.Millisecond, Soak: 15 * time.Second}
}

// quickFromEnv reads BENCH_QUICK: set and not "0" or "false".
func quickFromEnv() bool {
	v := strings.TrimSpace(os.Getenv("BENCH_QUICK"))
	return v != "" && v != "0" && !strings.EqualFold(v, "false")
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("bench", flag.ContinueOnError)
	fl.SetOutput(stderr)
	quick := fl.Bool("quick", quickFromEnv(), "fewer repetitions and a smaller corpus (BENCH_QUICK=1)")
	out := fl.String("out", "", "where to write the report as JSON (default: bench/latest.json in the module)")
	report := fl.String("report", "", "where a run of every section writes the report as markdown (default: bench/REPORT.md in the module)")
	only := fl.String("only", "", "measure only these sections, comma-separated ("+strings.Join(sections, ", ")+")")
	from := fl.String("from", "", "print the report in this JSON file instead of measuring")
	markdown := fl.Bool("markdown", false, "print the table as markdown")
	if err := fl.Parse(args); err != nil || fl.NArg() > 0 {
		return 2
	}
	emit := func(rep *Report) int {
		write := rep.WriteTable
		if *markdown {
			write = rep.WriteMarkdown
		}
		if err := write(stdout); err != nil {
			fmt.Fprintln(stderr, "bench:", err)
			return 1
		}
		return 0
	}
	if *from != "" {
		rep, err := ReadReport(*from)
		if err != nil {
			fmt.Fprintln(stderr, "bench:", err)
			return 1
		}
		return emit(rep)
	}

	want := map[string]bool{}
	for _, s := range strings.Split(*only, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		if !contains(sections, s) {
			fmt.Fprintf(stderr, "bench: -only: unknown section %q (known: %s)\n", s, strings.Join(sections, ", "))
			return 2
		}
		want[s] = true
	}
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return 1
	}
	if *out == "" {
		*out = filepath.Join(root, "bench", "latest.json")
	}
	if *report == "" {
		*report = filepath.Join(root, "bench", "REPORT.md")
	}
	cfg := fullConfig()
	if *quick {
		cfg = quickConfig()
	}
	b := &bench{root: root, cfg: cfg, log: stderr, want: want}
	rep, err := b.run(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return 1
	}
	if code := emit(rep); code != 0 {
		return code
	}
	if err := rep.WriteJSON(*out); err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return 1
	}
	fmt.Fprintf(stderr, "bench: wrote %s\n", *out)
	if len(want) > 0 {
		// A partial run would replace the committed report's other sections
		// with nothing.
		fmt.Fprintf(stderr, "bench: -only: %s left as it was\n", *report)
		return 0
	}
	if err := rep.WriteMarkdownFile(*report); err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return 1
	}
	fmt.Fprintf(stderr, "bench: wrote %s\n", *report)
	return 0
}

// bench is one run.
type bench struct {
	root string
	cfg  config
	log  io.Writer
	want map[string]bool // the sections to measure; all when empty
	tmp  string
	rows map[string][]Row
}

func (b *bench) wants(section string) bool { return len(b.want) == 0 || b.want[section] }

func (b *bench) logf(format string, args ...any) {
	fmt.Fprintf(b.log, "bench: "+format+"\n", args...)
}

func (b *bench) add(rows ...Row) {
	for _, r := range rows {
		b.rows[r.Section] = append(b.rows[r.Section], r)
	}
}

// run measures every section wanted. A measurement that fails becomes a
// row saying why; the others go on.
func (b *bench) run(ctx context.Context) (*Report, error) {
	start := time.Now()
	rep := &Report{
		Started:  start,
		Quick:    b.cfg.Quick,
		Go:       runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH,
		CPUs:     runtime.NumCPU(),
		CPU:      cpuModel(),
		Load:     loadAverage(),
		Commit:   commit(b.root),
	}
	var err error
	if b.tmp, err = os.MkdirTemp("", "retrylab-bench-"); err != nil {
		return nil, err
	}
	defer os.RemoveAll(b.tmp)
	b.rows = map[string][]Row{}

	chrome, chromeErr := findChrome()
	if chromeErr == nil {
		rep.Chromium = chromeVersion(chrome)
	}

	b.logf("compiling the site generator")
	sg, sgErr := buildSitegen(ctx, b.root, b.tmp)
	if sgErr != nil {
		for _, s := range []string{"module", "page", "widgets", "busy", "sitegen"} {
			if b.wants(s) {
				b.add(missing(s, "everything that needs the site generator", sgErr.Error()))
			}
		}
	}

	// The real site, built cold, serves the module's sizes and the page.
	site := filepath.Join(b.tmp, "site")
	var siteErr error = sgErr
	if sgErr == nil && (b.wants("module") || b.wants("page") || b.wants("sitegen")) {
		b.logf("building the real site, cold")
		took, summary, err := sg.build(ctx, "", site, false)
		siteErr = err
		const name = "full build of the real site (cold: fresh output folder, empty compressed-sibling cache, brotli 11)"
		if b.wants("sitegen") {
			if err != nil {
				b.add(missing("sitegen", name, err.Error()))
			} else {
				r := measured("sitegen", name, took.Seconds(), "s")
				r.Note = strings.TrimPrefix(firstLine(summary), "sitegen: ")
				b.add(r)
			}
		}
	}
	if b.wants("module") {
		b.measureModule(ctx, site, siteErr)
	}
	if b.wants("models") {
		b.measureModels(ctx)
	}
	if b.wants("page") {
		b.measurePage(ctx, sg, site, siteErr, chrome, chromeErr)
	}
	if b.wants("widgets") {
		b.measureWidgets(ctx, sg, sgErr, chrome, chromeErr)
	}
	if b.wants("busy") {
		b.measureBusy(ctx, sg, sgErr, chrome, chromeErr)
	}
	if b.wants("sitegen") && sgErr == nil {
		if siteErr == nil {
			b.measureMakeSite(ctx, sg) // with the cache the cold build filled
		}
		b.measureOneArticle(ctx, sg)
		b.measureCorpus(ctx, sg)
	}
	if b.wants("serve") {
		b.measureServe(ctx, sg, sgErr, chrome, chromeErr)
	}
	if b.wants("api") {
		b.measureAPI(ctx)
	}
	if b.wants("test") {
		b.measureMakeTest(ctx)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	if python, err := exec.LookPath("python3"); err == nil && b.wants("models") {
		rep.Python = pythonVersion(python)
	}
	rep.Headings = b.headings(rep.Chromium)
	for _, s := range sections {
		for _, r := range b.rows[s] {
			r.judge()
			rep.Rows = append(rep.Rows, r)
		}
	}
	rep.TookS = time.Since(start).Round(time.Second).Seconds()
	return rep, nil
}

// headings say what each section measures, with this run's counts.
func (b *bench) headings(chromium string) map[string]string {
	browser := "headless chromium"
	if v := strings.Fields(chromium); len(v) >= 2 {
		browser = "headless " + v[0] + " " + v[1]
	}
	return map[string]string{
		"module": "the page's WebAssembly module beside a hello-world Go module that touches only syscall/js, " +
			"both built in this run with the same flags; compressed as the site serves them",
		"page": fmt.Sprintf("/%s in %s, %d×%d, served on the loopback by sitegen preview; medians of %d cold loads, each in a fresh profile; "+
			"Lighthouse %s, mobile, the run with the median performance score of %d",
			handbookPage, browser, browserWidth, browserHeight, b.cfg.ColdLoads, lighthouseVersion, b.cfg.Lighthouse),
		"widgets": fmt.Sprintf("re-run + re-render after a change of one control, in the same browser: the control set, "+
			"the engine's run in the simulator worker and the redraw of its answer, then style and layout; medians of %d", b.cfg.Changes),
		"busy": fmt.Sprintf("the heaviest runs, %d changes each, in %s: the page's longest main-thread task, by the thread's own time (the browser's trace) "+
			"and by wall time (a long-task PerformanceObserver); from the change event to the widget's \"running…\" drawn, and to the result drawn", b.cfg.BigChanges, browser),
		"models": "time per run, median, natively in Go and in plain Python (bench/reference/) with the same parameters; " +
			"both give the same figures and trace; ratio = Python / Go",
		"sitegen": "the site generator, run from its command line",
		"test":    "make test as a developer runs it, the whole suite, every test binary compiled beforehand",
		"serve": fmt.Sprintf("sitegen serve on a copy of the module, /%s open in %s on its live reload: "+
			"from the edited file's write to the reloaded page's DOMContentLoaded", servePage, browser),
		"api": fmt.Sprintf("retrylab api on the loopback, %s per run, under every attack at once (ten tokens filling the store, "+
			"a quarter of it with crashes; 600 idle kept-alive connections; 1 MB header floods; long paths and member names; "+
			"150 half-sent heads and bodies; 100 slow=10000 payments; on SQLite, 64 lists at once of an account's 200,000 charges), "+
			"beside a client of its own account paying, replaying, reading and listing every 50 ms, and sending a request again once if its connection fails", b.cfg.Soak),
	}
}

// moduleRoot is the folder holding go.mod, found from the working
// directory.
func moduleRoot() (string, error) { return gotool.ModuleRoot() }

// commit names the checked-out commit, with "+local changes" when the work
// tree differs from it; "" outside git.
func commit(root string) string {
	out, err := exec.Command("git", "-C", root, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return ""
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(strings.TrimSpace(string(st))) > 0 {
		c += " +local changes"
	}
	return c
}

// loadAverage is the machine's 1, 5 and 15 minute load averages, from
// /proc/loadavg; "" where there is none.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// cpuModel is the first processor's model name in /proc/cpuinfo; "" where
// there is none.
func cpuModel() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		if name, value, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(name) == "model name" {
			return strings.TrimSpace(value)
		}
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
