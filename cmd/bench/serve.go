package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
)

// The serve section times what an author waits for under `sitegen serve`:
// from an edited file's write to the open page's reload, in a browser
// connected to the server's live reload. The server runs on a copy of the
// module's tracked files, so the edits touch nothing of the checkout.

// servePage is the page the browser keeps open, and serveArticle its
// markdown.
const (
	servePage    = "double-charge/"
	serveArticle = "content/double-charge.md"
	// serveEngineDir holds the Go file the engine edit adds a comment to:
	// code both the generator and the page's module are built from.
	serveEngineDir = "engine/backoff"
)

// serveEdits is how many edits of each kind are timed.
func (c config) serveEdits() (markdown, engine int) {
	if c.Quick {
		return 3, 1
	}
	return 7, 2
}

func (b *bench) measureServe(ctx context.Context, sg *sitegen, sgErr error, chrome string, chromeErr error) {
	const mdName = "markdown edit to reload (a one-word paragraph added to " + serveArticle + ")"
	const goName = "engine Go edit to reload (a comment added to a file of " + serveEngineDir + ")"
	const afterName = "markdown edit to reload after the Go edits (built by the generator compiled afresh)"
	fail := func(why string) {
		b.add(missing("serve", mdName, why), missing("serve", goName, why), missing("serve", afterName, why))
	}
	if sgErr != nil {
		fail(sgErr.Error())
		return
	}
	if chromeErr != nil {
		fail(chromeErr.Error())
		return
	}
	b.logf("copying the module for sitegen serve")
	root := filepath.Join(b.tmp, "serve-module")
	if err := copyModule(b.root, root); err != nil {
		fail(err.Error())
		return
	}
	engineFile, err := firstGoFile(filepath.Join(root, serveEngineDir))
	if err != nil {
		fail(err.Error())
		return
	}
	b.logf("starting sitegen serve and waiting for its first build")
	srv, err := startServe(ctx, sg.bin, root)
	if err != nil {
		fail(err.Error())
		return
	}
	defer srv.stop()
	br, err := startBrowser(ctx, chrome)
	if err != nil {
		fail(err.Error())
		return
	}
	defer br.close()
	open, cancel := context.WithTimeout(br.ctx, time.Minute)
	err = chromedp.Do(open, chromedp.Navigate(srv.URL+servePage))
	cancel()
	if err != nil {
		fail("opening " + srv.URL + servePage + ": " + err.Error())
		return
	}

	nMd, nGo := b.cfg.serveEdits()
	article := filepath.Join(root, filepath.FromSlash(serveArticle))
	src, err := os.ReadFile(article)
	if err != nil {
		fail(err.Error())
		return
	}
	markdownEdits := func(name, how string, n int) {
		var ms, rebuild []float64
		for i := range n {
			word := fmt.Sprintf("benchedit%dx%d", len(b.rows["serve"]), i)
			total, build, err := b.timeEdit(br, srv, article, append(bytes.Clone(src), "\n\n"+word+"\n"...), word, "search index and compressed copies updated")
			if err != nil {
				b.add(missing("serve", name, err.Error()))
				return
			}
			ms, rebuild = append(ms, total), append(rebuild, build)
		}
		r := measured("serve", name, median(ms), "ms")
		r.Samples = ms
		r.Target = AtMost(300, "≤ 300 ms")
		r.Note = fmt.Sprintf("median of %d, of which the rebuild %s; %s, the search index and compressed copies after the reload",
			len(ms), formatMs(median(rebuild)), how)
		r.Detail = map[string]any{"rebuild_ms": rebuild}
		b.add(r)
	}
	markdownEdits(mdName, "in the server's process", nMd)

	goSrc, err := os.ReadFile(engineFile)
	if err != nil {
		b.add(missing("serve", goName, err.Error()))
		return
	}
	var goS, goBuild []float64
	for i := range nGo {
		edited := append(bytes.Clone(goSrc), fmt.Sprintf("\n// bench edit %d\n", i)...)
		ms, build, err := b.timeEdit(br, srv, engineFile, edited, "", "")
		if err != nil {
			b.add(missing("serve", goName, err.Error()), missing("serve", afterName, "no Go edit"))
			return
		}
		goS, goBuild = append(goS, ms/1000), append(goBuild, build/1000)
	}
	r := measured("serve", goName, median(goS), "s")
	r.Samples = goS
	rel, _ := filepath.Rel(root, engineFile)
	r.Note = fmt.Sprintf("median of %d, of which the rebuild %s; %s: compiles the generator and the module, renders every page",
		len(goS), formatSeconds(median(goBuild)), filepath.ToSlash(rel))
	r.Detail = map[string]any{"rebuild_s": goBuild}
	b.add(r)
	markdownEdits(afterName, "in the worker the Go edit started", nMd)
}

// timeEdit writes data to file and returns the milliseconds from the
// write to the reloaded page's DOMContentLoaded, the page holding word
// when word is set, and the rebuild's share as serve prints it. It then
// waits for serve to print a line holding settled (when set), so that the
// next edit finds it idle.
func (b *bench) timeEdit(br *browser, srv *serveProcess, file string, data []byte, word, settled string) (total, rebuild float64, err error) {
	before, err := eval[float64](br, 10*time.Second, "performance.timeOrigin")
	if err != nil {
		return 0, 0, err
	}
	srv.drain()
	srv.last = nil
	wrote := float64(time.Now().UnixNano()) / 1e6
	if err := os.WriteFile(file, data, 0o644); err != nil {
		return 0, 0, err
	}
	loaded, err := waitReload(br, before, word, 10*time.Minute)
	if err != nil {
		return 0, 0, fmt.Errorf("%v; serve said: %s", err, srv.recent())
	}
	// serve prints the line before it tells the pages to reload.
	if err := srv.waitLine("sitegen: rebuilt in ", 10*time.Second); err != nil {
		return 0, 0, err
	}
	rebuild, err = rebuiltMs(srv.last[len(srv.last)-1])
	if err != nil {
		return 0, 0, err
	}
	if settled != "" {
		if err := srv.waitLine(settled, 2*time.Minute); err != nil {
			return 0, 0, err
		}
	}
	return loaded - wrote, rebuild, nil
}

// rebuiltMs reads the milliseconds of serve's "sitegen: rebuilt in 0.123s,
// reloading pages".
func rebuiltMs(line string) (float64, error) {
	_, rest, _ := strings.Cut(line, "rebuilt in ")
	s, _, ok := strings.Cut(rest, "s,")
	v, err := strconv.ParseFloat(s, 64)
	if !ok || err != nil {
		return 0, fmt.Errorf("serve's line %q gives no rebuild time", line)
	}
	return v * 1000, nil
}

// waitReload waits until the tab holds a document other than the one of
// timeOrigin before whose DOMContentLoaded has run and whose
// text holds word (when set), and returns when that event ended, in
// milliseconds since the epoch. It asks every 5 ms, from Go: a poll in
// the page would die with the page it polls.
func waitReload(br *browser, before float64, word string, timeout time.Duration) (float64, error) {
	js := fmt.Sprintf(`(() => {
  const nav = performance.getEntriesByType("navigation")[0];
  if (performance.timeOrigin === %v || !nav || nav.domContentLoadedEventEnd === 0) return 0;
  if (%q !== "" && !document.body.innerText.includes(%q)) return 0;
  return performance.timeOrigin + nav.domContentLoadedEventEnd;
})()`, before, word, word)
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if t, err := eval[float64](br, 2*time.Second, js); err == nil && t > 0 {
			return t, nil
		}
		time.Sleep(5 * time.Millisecond)
	}
	return 0, fmt.Errorf("no reload within %s", timeout)
}

// serveProcess is a running `sitegen serve`, its output read line by line.
type serveProcess struct {
	URL   string
	cmd   *exec.Cmd
	done  chan error
	lines chan string
	last  []string // the latest lines, for errors
}

// startServe starts `sitegen serve` in the module at root and waits until
// its first build is served.
func startServe(ctx context.Context, bin, root string) (*serveProcess, error) {
	cmd := exec.Command(bin, "serve", "-addr", "127.0.0.1:0")
	cmd.Dir = root
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &serveProcess{cmd: cmd, done: make(chan error, 1), lines: make(chan string, 256)}
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
	}()
	go func() {
		err := cmd.Wait()
		pw.Close()
		s.done <- err
	}()
	if err := s.waitLine(" at http://", time.Minute); err != nil {
		s.stop()
		return nil, err
	}
	// The first build, cold on this copy, may take minutes.
	deadline := time.Now().Add(15 * time.Minute)
	for {
		resp, err := http.Get(s.URL + servePage)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("sitegen serve served no %s within 15 minutes: %s", servePage, s.recent())
		}
		select {
		case <-ctx.Done():
			s.stop()
			return nil, ctx.Err()
		case err := <-s.done:
			return nil, fmt.Errorf("sitegen serve exited: %v: %s", err, s.recent())
		case <-time.After(200 * time.Millisecond):
		}
		s.drain()
	}
}

// waitLine reads lines until one holds text; a line " at http://" also
// sets URL.
func (s *serveProcess) waitLine(text string, timeout time.Duration) error {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		select {
		case line := <-s.lines:
			s.keep(line)
			if strings.Contains(line, text) {
				if url, ok := announcedURL(line); ok && s.URL == "" {
					s.URL = url
				}
				return nil
			}
		case <-timer.C:
			return fmt.Errorf("sitegen serve printed no %q within %s: %s", text, timeout, s.recent())
		}
	}
}

// drain reads the lines printed so far.
func (s *serveProcess) drain() {
	for {
		select {
		case line := <-s.lines:
			s.keep(line)
		default:
			return
		}
	}
}

func (s *serveProcess) keep(line string) {
	s.last = append(s.last, line)
	if len(s.last) > 20 {
		s.last = s.last[1:]
	}
}

func (s *serveProcess) recent() string { return strings.Join(s.last, "\n") }

// stop interrupts the server, as Ctrl-C would, and waits for it; it is
// killed if it is still there ten seconds later.
func (s *serveProcess) stop() {
	s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}

// copyModule copies the files git tracks under root, as they are in the
// work tree, to dst, and links the Pagefind install (build/search's
// node_modules, which git does not track) into it.
func copyModule(root, dst string) error {
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		return fmt.Errorf("git ls-files: %w", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		src := filepath.Join(root, filepath.FromSlash(name))
		info, err := os.Lstat(src)
		if errors.Is(err, os.ErrNotExist) {
			continue // deleted in the work tree
		}
		if err != nil {
			return err
		}
		if !info.Mode().IsRegular() {
			continue
		}
		data, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(to, data, info.Mode().Perm()); err != nil {
			return err
		}
	}
	modules, err := filepath.EvalSymlinks(filepath.Join(root, "build", "search", "node_modules"))
	if err != nil {
		return fmt.Errorf("Pagefind is not installed (./build/install-deps.sh): %w", err)
	}
	return os.Symlink(modules, filepath.Join(dst, "build", "search", "node_modules"))
}

// firstGoFile is the first Go file of dir by name, tests aside.
func firstGoFile(dir string) (string, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return "", err
	}
	sort.Strings(names)
	for _, n := range names {
		if !strings.HasSuffix(n, "_test.go") {
			return n, nil
		}
	}
	return "", fmt.Errorf("no Go file in %s", dir)
}
