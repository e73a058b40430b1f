package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// everyMarkdown is what a build's summary says when it converted every
// markdown file: the chapters in content, the authors' guide
// (guideFile) and the playground's starter text (exampleFile).
func everyMarkdown(t *testing.T, content string) string {
	t.Helper()
	chapters, err := filepath.Glob(filepath.Join(content, "*.md"))
	if err != nil || len(chapters) == 0 {
		t.Fatalf("no chapters in %s (%v)", content, err)
	}
	return "; " + strconv.Itoa(len(chapters)+2) + " of the markdown files converted"
}

// TestWorker drives runWorker as serve drives `sitegen worker` after a Go
// edit: a first build, a markdown edit that converts that file alone and
// leaves the rest to finish, finish, and a request it does not know.
func TestWorker(t *testing.T) {
	root := repoRoot(t)
	dir := t.TempDir()
	content := filepath.Join(dir, "content")
	if err := os.CopyFS(content, os.DirFS(filepath.Join(root, "content"))); err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	cfg := buildConfig{Root: root, Content: content, Out: filepath.Join(dir, "public"), Quick: true}
	go func() { done <- runWorker(context.Background(), cfg, inR, outW); outW.Close() }()
	replies := json.NewDecoder(outR)
	ask := func(req string) workerReply {
		t.Helper()
		if _, err := io.WriteString(inW, req+"\n"); err != nil {
			t.Fatal(err)
		}
		var rep workerReply
		if err := replies.Decode(&rep); err != nil {
			t.Fatal(err)
		}
		return rep
	}

	if rep := ask("build"); rep.Error != "" || rep.Unfinished || !strings.Contains(rep.Summary, everyMarkdown(t, content)) {
		t.Fatalf("first build: %+v, want every file converted and the build finished", rep)
	}
	article := filepath.Join(content, "double-charge.md")
	src, err := os.ReadFile(article)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(article, append(src, "\n\nworkeredit\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if rep := ask("build-content"); rep.Error != "" || !rep.Unfinished || !strings.Contains(rep.Summary, "; 1 of the markdown files converted") {
		t.Fatalf("after an edit: %+v, want one file converted and the rest left to finish", rep)
	}
	if !strings.Contains(readFile(t, filepath.Join(cfg.Out, "double-charge", "index.html")), "<p>workeredit</p>") {
		t.Error("the edit is not in the page")
	}
	// The unfinished build kept the previous search index; finish writes
	// a new one.
	index := filepath.Join(cfg.Out, pagefindDir, "pagefind.js")
	before, err := os.Stat(index)
	if err != nil {
		t.Fatal(err)
	}
	if rep := ask("finish"); rep.Error != "" {
		t.Fatalf("finish: %+v", rep)
	}
	if after, err := os.Stat(index); err != nil || os.SameFile(before, after) {
		t.Errorf("after finish, the search index is the one before it (%v)", err)
	}
	if rep := ask("rebuild"); !strings.Contains(rep.Error, `unknown request "rebuild"`) {
		t.Errorf("an unknown request: %+v", rep)
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestWorkerBuilds runs serve's builds after a Go edit through a real
// worker process: the generator compiled, a build, a markdown edit built
// by the same worker with its cache, finish, and a Go edit that starts
// another worker.
func TestWorkerBuilds(t *testing.T) {
	root := repoRoot(t)
	dir := t.TempDir()
	content := filepath.Join(dir, "content")
	if err := os.CopyFS(content, os.DirFS(filepath.Join(root, "content"))); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cfg := buildConfig{Root: root, Content: content, Out: filepath.Join(dir, "public"), Quick: true}
	wb := newWorkerBuilds(cfg, t.TempDir(), os.Stderr)
	defer wb.close()

	rep, err := wb.build(ctx, true, false)
	if err != nil || !strings.Contains(rep.Summary, everyMarkdown(t, content)) {
		t.Fatalf("first build: %+v, %v", rep, err)
	}
	first := wb.w
	article := filepath.Join(content, "double-charge.md")
	src, err := os.ReadFile(article)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(article, append(src, "\n\nworkeredit\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = wb.build(ctx, false, true)
	if err != nil || !rep.Unfinished || !strings.Contains(rep.Summary, "; 1 of the markdown files converted") || wb.w != first {
		t.Fatalf("after a markdown edit: %+v, %v; want the same worker converting that file alone", rep, err)
	}
	if err := wb.finish(); err != nil {
		t.Fatal(err)
	}
	// A Go edit: a fresh generator, and a worker of its own.
	if rep, err = wb.build(ctx, true, false); err != nil || wb.w == first || !strings.Contains(rep.Summary, everyMarkdown(t, content)) {
		t.Fatalf("after a Go edit: %+v, %v; want a new worker converting every file", rep, err)
	}
	if !strings.Contains(readFile(t, filepath.Join(cfg.Out, "double-charge", "index.html")), "<p>workeredit</p>") {
		t.Error("the edit is not in the page")
	}
}
