package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/retrylab/retrylab/internal/gotool"
)

// The feedback loop: how long a developer waits for make test and make
// site, and a one-article site beyond the modules' compiling.

// Targets of the feedback loop, on the bench's two cores.
var (
	makeTestTarget   = AtMost(300, "≤ 5 min")
	makeSiteTarget   = AtMost(10, "≤ 10 s")
	oneArticleTarget = AtMost(1, "≤ 1 s beyond the modules")
)

// siteCacheEnv is sitegen's variable for the folder of its cache of the
// modules' compressed siblings: every build the bench runs uses one of
// its own, so that the cold build is cold whatever the user's cache holds.
const siteCacheEnv = "RETRYLAB_CACHE"

// measureMakeSite times what make site runs, `go run ./cmd/sitegen build`
// (the generator compiled from a warm Go build cache, then its build), into
// an empty output folder, with the compressed siblings' cache the cold
// build filled: a clean build after make clean, or Netlify's with its cache.
func (b *bench) measureMakeSite(ctx context.Context, sg *sitegen) {
	const sec = "sitegen"
	const name = "make site from an empty public/ (go run ./cmd/sitegen build; Go build and compressed-sibling caches warm)"
	runs := 3
	if b.cfg.Quick {
		runs = 2
	}
	var times, cpu []float64
	var loads []string
	var summary string
	for i := range runs {
		out := filepath.Join(b.tmp, fmt.Sprintf("make-site-%d", i))
		cmd := exec.CommandContext(ctx, "go", "run", "./cmd/sitegen", "build", "-out", out)
		cmd.Dir = b.root
		cmd.Env = append(os.Environ(), siteCacheEnv+"="+sg.cache)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		loads = append(loads, loadAverage())
		took, err := runTimed(cmd)
		os.RemoveAll(out)
		if err != nil {
			b.add(missing(sec, name, fmt.Sprintf("go run ./cmd/sitegen build: %v\n%s", err, strings.TrimSpace(stderr.String()))))
			return
		}
		times, cpu = append(times, took.Wall.Seconds()), append(cpu, took.CPU.Seconds())
		summary = strings.TrimPrefix(firstLine(strings.TrimSpace(stdout.String())), "sitegen: ")
	}
	r := measured(sec, name, median(times), "s")
	r.Target = makeSiteTarget
	r.Samples = times
	r.Note = fmt.Sprintf("median of %d; load averages %s; %s", runs, strings.Join(loads, " / "), summary)
	r.Detail = map[string]any{"cpu_s": cpu, "loads": loads}
	b.add(r)
}

// measureOneArticle times a build of the one-article corpus (the corpus
// bench's small one, quick as there) against compiling the site's two
// modules as the build does, at once, each into a fresh file: the build
// less the compiling is what one article costs beyond the modules.
func (b *bench) measureOneArticle(ctx context.Context, sg *sitegen) {
	const sec = "sitegen"
	const name = "one-article site beyond compiling the modules"
	src := filepath.Join(b.tmp, "one-article")
	if err := writeFiles(src, corpusContent(1)); err != nil {
		b.add(missing(sec, name, err.Error()))
		return
	}
	runs := b.cfg.Builds + 1
	var builds, compiles []float64
	var loads []string
	for i := range runs {
		loads = append(loads, loadAverage())
		out := filepath.Join(b.tmp, fmt.Sprintf("one-article-site-%d", i))
		took, _, err := sg.build(ctx, src, out, true)
		os.RemoveAll(out)
		if err != nil {
			b.add(missing(sec, name, err.Error()))
			return
		}
		compile, err := compileModules(ctx, b.root, filepath.Join(b.tmp, fmt.Sprintf("modules-%d", i)))
		if err != nil {
			b.add(missing(sec, name, err.Error()))
			return
		}
		builds, compiles = append(builds, took.Seconds()), append(compiles, compile.Seconds())
	}
	build, compile := median(builds), median(compiles)
	r := measured(sec, name, build-compile, "s")
	r.Target = oneArticleTarget
	r.Note = fmt.Sprintf("medians of %d: the build %s less compiling the two modules %s; load averages %s",
		runs, formatSeconds(build), formatSeconds(compile), strings.Join(loads, " / "))
	r.Detail = map[string]any{"build_s": builds, "compile_s": compiles, "loads": loads}
	b.add(r)
}

// compileModules builds the site's two modules at once, with the site's
// flags, into dir, and returns how long that took.
func compileModules(ctx context.Context, root, dir string) (time.Duration, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	start := time.Now()
	pkgs := []string{"./wasm", "./cmd/playground"}
	errs := make([]error, len(pkgs))
	var wg sync.WaitGroup
	for i, pkg := range pkgs {
		wg.Go(func() { errs[i] = gotool.BuildWasm(ctx, root, pkg, filepath.Join(dir, strconv.Itoa(i)+".wasm")) })
	}
	wg.Wait()
	took := time.Since(start)
	os.RemoveAll(dir)
	for _, err := range errs {
		if err != nil {
			return 0, err
		}
	}
	return took, nil
}

// testPackage matches go test's line for a package that passed: "ok
// <tab>PKG<tab>12.345s".
var testPackage = regexp.MustCompile(`(?m)^ok\s+(\S+)\s+([0-9.]+)s`)

// measureMakeTest runs make test warm: the go command first compiles
// every test binary, native and WebAssembly, running no test (GOFLAGS
// -run=^$), then make test runs whole and is timed.
func (b *bench) measureMakeTest(ctx context.Context) {
	const sec = "test"
	const name = "make test, warm (deps installed, Go build cache warm)"
	if b.cfg.Quick && !b.want[sec] {
		b.add(missing(sec, name, "left out of a quick run (it takes minutes): -only test measures it"))
		return
	}
	warm := exec.CommandContext(ctx, "make", "--no-print-directory", "deps", "test-go", "test-wasm")
	warm.Dir = b.root
	warm.Env = append(os.Environ(), "GOFLAGS=-run=^$")
	b.logf("compiling every test binary (make test-go test-wasm, no test run)")
	if out, err := warm.CombinedOutput(); err != nil {
		b.add(missing(sec, name, fmt.Sprintf("warming the build cache: %v\n%s", err, lastLines(string(out), 20))))
		return
	}
	load := loadAverage()
	b.logf("running make test")
	cmd := exec.CommandContext(ctx, "make", "--no-print-directory", "test")
	cmd.Dir = b.root
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	took, err := runTimed(cmd)
	if err != nil {
		b.add(missing(sec, name, fmt.Sprintf("make test failed after %s: %v\n%s", formatSeconds(took.Wall.Seconds()), err, lastLines(out.String(), 30))))
		return
	}
	r := measured(sec, name, took.Wall.Seconds(), "s")
	r.Target = makeTestTarget
	pkgs := map[string]float64{}
	type pkgTime struct {
		name string
		s    float64
	}
	var slow []pkgTime
	for _, m := range testPackage.FindAllStringSubmatch(out.String(), -1) {
		s, _ := strconv.ParseFloat(m[2], 64)
		pkgs[m[1]] = max(pkgs[m[1]], s)
	}
	for p, s := range pkgs {
		slow = append(slow, pkgTime{strings.TrimPrefix(p, "github.com/retrylab/retrylab/"), s})
	}
	sort.Slice(slow, func(i, j int) bool { return slow[i].s > slow[j].s })
	var top []string
	for _, p := range slow[:min(3, len(slow))] {
		top = append(top, fmt.Sprintf("%s %s", p.name, formatSeconds(p.s)))
	}
	r.Note = fmt.Sprintf("load average %s at the start; CPU %s; slowest packages: %s", load, formatSeconds(took.CPU.Seconds()), strings.Join(top, ", "))
	r.Detail = map[string]any{"cpu_s": took.CPU.Seconds(), "load": load, "packages_s": pkgs}
	b.add(r)
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
