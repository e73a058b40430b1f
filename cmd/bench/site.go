package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/retrylab/retrylab/site/widget"
)

// The bench drives the site generator through its command line, as a
// developer and Netlify do: `sitegen build` for every build it times, and
// `sitegen preview`, which serves a built folder with the production
// handler and headers, for every page the browser loads. The binary is
// compiled once per run, so no timing includes compiling the generator.

// sitegen is the generator compiled for this run.
type sitegen struct {
	root  string // the module root
	bin   string
	cache string // the folder of its cache of the modules' compressed siblings (siteCacheEnv)
}

// buildSitegen compiles ./cmd/sitegen into dir.
func buildSitegen(ctx context.Context, root, dir string) (*sitegen, error) {
	bin := filepath.Join(dir, "sitegen")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/sitegen")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build ./cmd/sitegen: %v\n%s", err, strings.TrimSpace(string(out)))
	}
	return &sitegen{root: root, bin: bin, cache: filepath.Join(dir, "sitegen-cache")}, nil
}

// build runs `sitegen build` of content into out and returns its wall
// time and the summary line it printed. quick leaves out the module's
// brotli copy (see sitegen's -quick).
func (s *sitegen) build(ctx context.Context, content, out string, quick bool) (time.Duration, string, error) {
	took, summary, err := s.run(ctx, content, out, quick)
	return took.Wall, summary, err
}

// run is build, with the build's CPU time as well as its wall time.
func (s *sitegen) run(ctx context.Context, content, out string, quick bool) (buildTime, string, error) {
	args := []string{"build", "-out", out, "-quick=" + strconv.FormatBool(quick)}
	if content != "" {
		args = append(args, "-content", content)
	}
	cmd := exec.CommandContext(ctx, s.bin, args...)
	cmd.Dir = s.root
	cmd.Env = append(os.Environ(), siteCacheEnv+"="+s.cache)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	took, err := runTimed(cmd)
	if err != nil {
		return buildTime{}, "", fmt.Errorf("sitegen build -out %s: %v\n%s", out, err, strings.TrimSpace(stderr.String()))
	}
	return took, strings.TrimSpace(stdout.String()), nil
}

// buildTime is what a build took: wall time, and CPU time, user and
// system, of the command and of every process it waited for (sitegen's
// Pagefind and go command among them). On a shared machine the CPU time
// moves much less with the load than the wall time does.
type buildTime struct{ Wall, CPU time.Duration }

// runTimed runs cmd and returns its buildTime.
func runTimed(cmd *exec.Cmd) (buildTime, error) {
	start := time.Now()
	err := cmd.Run()
	t := buildTime{Wall: time.Since(start)}
	if cmd.ProcessState != nil {
		t.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	return t, err
}

// preview is a running `sitegen preview`.
type preview struct {
	URL  string // the site's root, ending in "/"
	cmd  *exec.Cmd
	done chan error
}

// preview serves the built folder dir until stop is called.
func (s *sitegen) preview(ctx context.Context, dir string) (*preview, error) {
	cmd := exec.Command(s.bin, "preview", "-out", dir, "-addr", "127.0.0.1:0")
	cmd.Dir = s.root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &preview{cmd: cmd, done: make(chan error, 1)}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		first := true
		for sc.Scan() {
			if first {
				lines <- sc.Text()
				first = false
			}
		}
		close(lines)
		p.done <- cmd.Wait()
	}()
	select {
	case line, ok := <-lines:
		url, found := announcedURL(line)
		if !ok || !found {
			p.stop()
			return nil, fmt.Errorf("sitegen preview announced no address (%q): %s", line, strings.TrimSpace(stderr.String()))
		}
		p.URL = url
		return p, nil
	case <-time.After(30 * time.Second):
		p.stop()
		return nil, errors.New("sitegen preview announced no address within 30 s")
	case <-ctx.Done():
		p.stop()
		return nil, ctx.Err()
	}
}

// announcedURL finds the address in preview's first line, "sitegen:
// previewing DIR at http://127.0.0.1:PORT/ ...".
func announcedURL(line string) (string, bool) {
	i := strings.Index(line, " at http://")
	if i < 0 {
		return "", false
	}
	url := strings.Fields(line[i+len(" at "):])[0]
	url = strings.TrimRight(url, ";,")
	if !strings.HasSuffix(url, "/") {
		url += "/"
	}
	return url, true
}

// stop interrupts the server, as Ctrl-C would, and waits for it; it is
// killed if it is still there ten seconds later.
func (p *preview) stop() {
	if p.cmd.Process == nil {
		return
	}
	p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
	}
}

// countPages counts the HTML pages of a built site.
func countPages(dir string) (int, error) {
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".html") {
			n++
		}
		return err
	})
	return n, err
}

// writeFiles writes name -> content under dir.
func writeFiles(dir string, files map[string]string) error {
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// widgetPageSlug is the page of the widget content for the widget called name.
func widgetPageSlug(name string) string { return "bench-" + name }

// widgetContent is a content folder with one page per registered widget,
// each holding the widget with its default parameters, well below the
// first screen so that the module loads only when it is scrolled to.
func widgetContent(ws []*widget.Widget) map[string]string {
	files := map[string]string{
		"index.md": "---\ntitle: Widgets\ndescription: One page per widget, for the bench.\n---\n\nOne page per widget.\n",
	}
	for _, w := range ws {
		var b strings.Builder
		fmt.Fprintf(&b, "---\ntitle: The %s widget\ndescription: The %s widget with its defaults.\n---\n\n", w.Name, w.Name)
		b.WriteString(fillerParagraphs(12))
		fmt.Fprintf(&b, "```widget %s\n```\n", w.Name)
		files[widgetPageSlug(w.Name)+".md"] = b.String()
	}
	return files
}

// fillerParagraphs is n paragraphs of plain prose, about 70 words each.
func fillerParagraphs(n int) string {
	const para = "A client that does not hear back cannot tell a lost request from a lost " +
		"response. It retries, and the server must recognise the second request as the " +
		"same intent as the first. An idempotency key names that intent: the server " +
		"claims the key before it works, saves the answer with it, and replays the saved " +
		"answer to every retry that carries the same key and the same body.\n\n"
	return strings.Repeat(para, n)
}

// corpusContent is a content folder of n articles and a home page. Each
// article has a few paragraphs, two headings (a table of contents), a Go
// code block (highlighted) and a payment widget block (validated, run and
// rendered at build time), so a page costs what a real chapter costs.
func corpusContent(n int) map[string]string {
	files := map[string]string{
		"index.md": "---\ntitle: Corpus\ndescription: Generated articles for the bench.\n---\n\nGenerated articles.\n",
	}
	keys := []string{"off", "per-intent", "per-attempt"}
	faults := []string{"lose-response, ok", "lose-request, ok", "lose-response, lose-response, ok"}
	for i := 1; i <= n; i++ {
		var b strings.Builder
		fmt.Fprintf(&b, "---\ntitle: Article %d\ndescription: Generated article number %d.\ndate: 2026-01-%02d\n---\n\n", i, i, 1+i%28)
		b.WriteString("## Why the retry happens\n\n")
		b.WriteString(fillerParagraphs(3))
		b.WriteString("```go\n")
		fmt.Fprintf(&b, "func charge%d(ctx context.Context, c *Client, key string) (*Charge, error) {\n", i)
		b.WriteString("\treq, err := http.NewRequestWithContext(ctx, \"POST\", c.base+\"/v1/charges\", body(2500))\n")
		b.WriteString("\tif err != nil {\n\t\treturn nil, err\n\t}\n")
		b.WriteString("\treq.Header.Set(\"Idempotency-Key\", key) // the same key on every retry\n")
		b.WriteString("\treturn c.do(req)\n}\n```\n\n")
		b.WriteString("## What the widget shows\n\n")
		b.WriteString(fillerParagraphs(2))
		fmt.Fprintf(&b, "```widget payment\nkeys: %s\nfaults: %s\n```\n\n", keys[i%len(keys)], faults[i%len(faults)])
		b.WriteString(fillerParagraphs(1))
		files[fmt.Sprintf("article-%04d.md", i)] = b.String()
	}
	return files
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
