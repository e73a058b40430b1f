package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// preview serves a built folder on the address it announces, with the
// production headers and without the live-reload script, and stops when
// its context ends.
func TestPreview(t *testing.T) {
	dir := fakeSite(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- preview(ctx, previewConfig{Root: repoRoot(t), Dir: dir, Addr: "127.0.0.1:0"}, pw)
		pw.Close()
	}()

	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the announced address: %v", err)
	}
	go io.Copy(io.Discard, pr)
	i := strings.Index(line, "http://")
	if !strings.HasPrefix(line, "sitegen: previewing ") || i < 0 {
		t.Fatalf("announced %q, want \"sitegen: previewing DIR at http://...\"", line)
	}
	base := strings.Fields(line[i:])[0]

	client := &http.Client{Timeout: 10 * time.Second}
	res, err := client.Get(base)
	if err != nil {
		t.Fatal(err)
	}
	page, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 200 || !strings.Contains(string(page), "<h1>home</h1>") {
		t.Fatalf("GET %s: %d %q", base, res.StatusCode, page)
	}
	if strings.Contains(string(page), livePrefix) {
		t.Errorf("the page carries the live-reload script: %q", page)
	}
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "'wasm-unsafe-eval'") {
		t.Errorf("Content-Security-Policy %q: netlify.toml's headers are missing", csp)
	}
	res, err = client.Get(base + "static/retrylab.89abcdef.wasm")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if ct := res.Header.Get("Content-Type"); res.StatusCode != 200 || ct != "application/wasm" {
		t.Errorf("the module: %d, Content-Type %q; want 200 application/wasm", res.StatusCode, ct)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("preview returned %v after its context ended, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("preview still serving 10 s after its context ended")
	}
}

// A folder with no built site is refused with a hint, before listening.
func TestPreviewNeedsBuild(t *testing.T) {
	err := preview(context.Background(), previewConfig{Root: repoRoot(t), Dir: t.TempDir(), Addr: "127.0.0.1:0"}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "build the site first") {
		t.Fatalf("preview of an empty folder: %v, want an error saying to build first", err)
	}
}
