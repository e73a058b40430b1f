package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// previewConfig is what `sitegen preview` needs.
type previewConfig struct {
	Root string // the module root: its netlify.toml gives the headers
	Dir  string // the built site to serve
	Addr string
}

// preview serves the site already built at cfg.Dir exactly as it is
// deployed: the headers of netlify.toml, compressed answers, pretty URLs
// and 404.html, with no build, no watching and no live reload. It prints the
// address it serves at on one line ("sitegen: previewing DIR at URL"), which
// is how a program that started it on port 0 learns the port, and serves
// until ctx is done.
func preview(ctx context.Context, cfg previewConfig, stdout io.Writer) error {
	if _, err := os.Stat(filepath.Join(cfg.Dir, "index.html")); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: no index.html: build the site first (sitegen build -out %s)", cfg.Dir, cfg.Dir)
		}
		return err
	}
	rules, err := loadHeaders(filepath.Join(cfg.Root, "netlify.toml"))
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: newServer(cfg.Dir, rules, false), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "sitegen: previewing %s at %s with the production headers; Ctrl-C stops\n", cfg.Dir, siteURL(cfg.Addr, ln.Addr()))
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err = <-served:
	case <-ctx.Done():
		// Five seconds for requests under way, as serve allows.
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = hs.Shutdown(sctx)
		cancel()
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}
