// Command sitegen builds the retrylab site into public/ and serves it with
// live reload.
//
//	go run ./cmd/sitegen build [-content content] [-out public] [-quick]
//	go run ./cmd/sitegen serve [-addr localhost:8080] [-content content] [-out public] [-quick=false]
//	go run ./cmd/sitegen preview [-addr localhost:8080] [-out public]
//	go run ./cmd/sitegen widgets [NAME...]
//
// preview serves a site already built, as deployed: no build, no live
// reload. widgets prints the widget reference of the authors' guide
// (/authoring/): every widget's parameters, from their declarations.
//
// Both run from anywhere inside the module: paths default to the module
// root's content/ and public/.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/retrylab/retrylab/internal/gotool"
	"github.com/retrylab/retrylab/site/widget"
)

const usage = `usage:
  sitegen build [-content DIR] [-out DIR] [-quick]
  sitegen serve [-addr HOST:PORT] [-content DIR] [-out DIR] [-quick=false]
  sitegen preview [-addr HOST:PORT] [-out DIR]
  sitegen widgets [NAME...]
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run carries out one command line and returns the exit code: 0, 1 when
// the command failed, 2 for a usage error.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(stderr, "sitegen:", err)
		return 1
	}
	cmd := args[0]
	fl := flag.NewFlagSet("sitegen "+cmd, flag.ContinueOnError)
	fl.SetOutput(stderr)
	cfg := buildConfig{Root: root, Siblings: defaultSiblingCache()}
	fl.StringVar(&cfg.Content, "content", filepath.Join(root, "content"), "the folder of markdown articles")
	fl.StringVar(&cfg.Out, "out", filepath.Join(root, "public"), "the output folder, replaced as a whole")
	const quickHelp = "write no new brotli copy of the module (brotli's best level takes seconds on it)"
	switch cmd {
	case "build":
		fl.BoolVar(&cfg.Quick, "quick", false, quickHelp)
		if err := fl.Parse(args[1:]); err != nil || fl.NArg() > 0 {
			return 2
		}
		stats, err := build(ctx, cfg)
		if err != nil {
			// As the markdown package words them: file:line: what.
			fmt.Fprintln(stderr, err)
			return 1
		}
		fmt.Fprintf(stdout, "sitegen: %s\n", stats)
		return 0
	case "serve":
		// Rebuilds should be quick; the brotli copy matters for deploys.
		fl.BoolVar(&cfg.Quick, "quick", true, quickHelp)
		addr := fl.String("addr", "localhost:8080", "the address to listen on")
		if err := fl.Parse(args[1:]); err != nil || fl.NArg() > 0 {
			return 2
		}
		err := serve(ctx, serveConfig{buildConfig: cfg, Addr: *addr}, stdout, stderr)
		if err != nil && !errors.Is(err, context.Canceled) {
			fmt.Fprintln(stderr, "sitegen:", err)
			return 1
		}
		return 0
	case "worker":
		// serve's builds after a Go edit (worker.go); not for people.
		fl.BoolVar(&cfg.Quick, "quick", true, quickHelp)
		if err := fl.Parse(args[1:]); err != nil || fl.NArg() > 0 {
			return 2
		}
		if err := runWorker(ctx, cfg, os.Stdin, stdout); err != nil {
			fmt.Fprintln(stderr, "sitegen worker:", err)
			return 1
		}
		return 0
	case "preview":
		addr := fl.String("addr", "localhost:8080", "the address to listen on")
		if err := fl.Parse(args[1:]); err != nil || fl.NArg() > 0 {
			return 2
		}
		err := preview(ctx, previewConfig{Root: root, Dir: cfg.Out, Addr: *addr}, stdout)
		if err != nil && !errors.Is(err, context.Canceled) {
			fmt.Fprintln(stderr, "sitegen:", err)
			return 1
		}
		return 0
	case "widgets":
		if err := fl.Parse(args[1:]); err != nil {
			return 2
		}
		for _, name := range fl.Args() {
			if _, err := widget.Find(name); err != nil {
				fmt.Fprintln(stderr, "sitegen:", err)
				return 2
			}
		}
		if err := writeWidgetReference(stdout, nil, fl.Args()); err != nil {
			fmt.Fprintln(stderr, "sitegen:", err)
			return 1
		}
		return 0
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "sitegen: unknown command %q\n%s", cmd, usage)
	return 2
}

// moduleRoot is the folder holding go.mod, found from the working
// directory.
func moduleRoot() (string, error) { return gotool.ModuleRoot() }
