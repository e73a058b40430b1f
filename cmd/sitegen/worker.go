package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// After a Go edit, serve's own code is no longer the site's, and its
// builds run in a child: the generator compiled afresh, started as
// `sitegen worker`, which builds on request and keeps a buildCache of its
// own, so that the markdown edits after a Go edit are as quick as before
// it. The requests are lines on the worker's standard input, each answered
// by one line of JSON (workerReply) on its standard output:
//
//	build          a build after any change
//	build-content  a build after changes to files of the content folder alone
//	finish         what the last build left for after the reload (finish)

// workerReply is the worker's answer to one request.
type workerReply struct {
	Error      string `json:"error,omitempty"`
	Summary    string `json:"summary,omitempty"` // a build's summary line
	Unfinished bool   `json:"unfinished,omitempty"`
}

// runWorker answers the requests read from in until it ends.
func runWorker(ctx context.Context, cfg buildConfig, in io.Reader, out io.Writer) error {
	cfg.Cache = &buildCache{}
	enc := json.NewEncoder(out)
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		var rep workerReply
		switch req := sc.Text(); req {
		case "build", "build-content":
			if req == "build" {
				cfg.Cache.forget()
			}
			stats, err := build(ctx, cfg)
			if err != nil {
				rep.Error = err.Error()
				break
			}
			rep.Summary = fmt.Sprintf("%s; %d of the markdown files converted", stats, cfg.Cache.Converted)
			rep.Unfinished = stats.Unfinished
		case "finish":
			if err := finish(ctx, cfg); err != nil {
				rep.Error = err.Error()
			}
		default:
			rep.Error = fmt.Sprintf("sitegen worker: unknown request %q (known: build, build-content, finish)", req)
		}
		if err := enc.Encode(rep); err != nil {
			return err
		}
	}
	return sc.Err()
}

// worker is a running `sitegen worker`.
type worker struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *json.Decoder
}

// compileGenerator builds ./cmd/sitegen of the module at root into bin.
// The go build cache keeps it short.
func compileGenerator(ctx context.Context, root, bin string) error {
	gobin, err := goTool()
	if err != nil {
		return err
	}
	var out bytes.Buffer
	compile := exec.CommandContext(ctx, gobin, "build", "-o", bin, "./cmd/sitegen")
	compile.Dir = root
	compile.Stdout, compile.Stderr = &out, &out
	if err := compile.Run(); err != nil {
		return fmt.Errorf("go build ./cmd/sitegen: %v\n%s", err, strings.TrimSpace(out.String()))
	}
	return nil
}

// startWorker starts bin as the worker of cfg's site, in the module root.
// Its standard error, warnings and panics, goes to stderr.
func startWorker(ctx context.Context, bin string, cfg buildConfig, stderr io.Writer) (*worker, error) {
	cmd := exec.CommandContext(ctx, bin, "worker", "-content", cfg.Content, "-out", cfg.Out,
		"-quick="+strconv.FormatBool(cfg.Quick))
	cmd.Dir = cfg.Root
	cmd.Stderr = stderr
	// Interrupt rather than kill, so that the worker removes its build
	// folder.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &worker{cmd: cmd, in: in, out: json.NewDecoder(out)}, nil
}

// do sends one request and waits for its answer. An error is the
// request's failure (a build's error text) or the worker's.
func (w *worker) do(req string) (workerReply, error) {
	var rep workerReply
	if _, err := io.WriteString(w.in, req+"\n"); err != nil {
		return rep, fmt.Errorf("sitegen worker: %w", err)
	}
	if err := w.out.Decode(&rep); err != nil {
		return rep, fmt.Errorf("sitegen worker stopped: %w", errors.Join(err, w.stop()))
	}
	if rep.Error != "" {
		return rep, errors.New(rep.Error)
	}
	return rep, nil
}

// stop ends the worker: its input closed, it exits.
func (w *worker) stop() error {
	w.in.Close()
	return w.cmd.Wait()
}

// workerBuilds runs serve's builds after a Go edit, in a worker of the
// generator compiled into binDir afresh after each Go edit.
type workerBuilds struct {
	cfg    buildConfig
	bin    string
	stderr io.Writer
	w      *worker // nil until a build, and after a Go edit or a worker's end
}

func newWorkerBuilds(cfg buildConfig, binDir string, stderr io.Writer) *workerBuilds {
	return &workerBuilds{cfg: cfg, bin: filepath.Join(binDir, "sitegen"), stderr: stderr}
}

// build builds with a worker; code says Go changed since the last build,
// contentOnly that only files of the content folder did.
func (wb *workerBuilds) build(ctx context.Context, code, contentOnly bool) (workerReply, error) {
	if code && wb.w != nil {
		wb.w.stop()
		wb.w = nil
	}
	req := "build-content"
	if wb.w == nil {
		if err := compileGenerator(ctx, wb.cfg.Root, wb.bin); err != nil {
			return workerReply{}, err
		}
		w, err := startWorker(ctx, wb.bin, wb.cfg, wb.stderr)
		if err != nil {
			return workerReply{}, err
		}
		wb.w, req = w, "build"
	} else if !contentOnly {
		req = "build"
	}
	return wb.do(req)
}

// finish asks the worker for what its last build left.
func (wb *workerBuilds) finish() error {
	if wb.w == nil {
		return errors.New("sitegen worker: no build to finish")
	}
	_, err := wb.do("finish")
	return err
}

func (wb *workerBuilds) do(req string) (workerReply, error) {
	rep, err := wb.w.do(req)
	if err != nil && rep.Error == "" {
		wb.w = nil // the worker is gone: the next build starts another
	}
	return rep, err
}

// close stops the worker, if one runs.
func (wb *workerBuilds) close() {
	if wb.w != nil {
		wb.w.stop()
	}
}
