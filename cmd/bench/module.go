package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/retrylab/retrylab/internal/gotool"
	"github.com/retrylab/retrylab/internal/precompress"
)

// sizes are a WebAssembly module's bytes as built and as served.
type sizes struct{ Raw, Gzip, Brotli int64 }

// compressedSizes compresses data the way the site generator writes its
// precompressed copies (internal/precompress).
func compressedSizes(data []byte) (sizes, error) {
	s := sizes{Raw: int64(len(data))}
	var gz, br bytes.Buffer
	if err := precompress.Gzip(&gz, data); err != nil {
		return s, err
	}
	if err := precompress.Brotli(&br, data); err != nil {
		return s, err
	}
	s.Gzip, s.Brotli = int64(gz.Len()), int64(br.Len())
	return s, nil
}

// buildHello compiles bench/hello, a module that touches only syscall/js,
// with the flags sitegen builds the page's module with (gotool.WasmFlags),
// and returns its bytes.
func buildHello(ctx context.Context, root, dir string) ([]byte, error) {
	file := filepath.Join(dir, "hello.wasm")
	if err := gotool.BuildWasm(ctx, root, "./bench/hello", file); err != nil {
		return nil, err
	}
	return os.ReadFile(file)
}

// siteModuleSizes are the sizes of the module the site serves: the build
// wrote its gzip and brotli siblings (internal/precompress), so they are
// read rather than compressed again (brotli 11 takes seconds). A sibling
// missing (a quick build) is made here the same way.
func siteModuleSizes(site string) (sizes, error) {
	files, err := filepath.Glob(filepath.Join(site, "static", "retrylab.*.wasm"))
	if err != nil {
		return sizes{}, err
	}
	if len(files) != 1 {
		return sizes{}, fmt.Errorf("%s/static: %d files retrylab.*.wasm, want 1", site, len(files))
	}
	raw, errRaw := os.Stat(files[0])
	gz, errGz := os.Stat(files[0] + ".gz")
	br, errBr := os.Stat(files[0] + ".br")
	if errRaw == nil && errGz == nil && errBr == nil {
		return sizes{Raw: raw.Size(), Gzip: gz.Size(), Brotli: br.Size()}, nil
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		return sizes{}, err
	}
	return compressedSizes(data)
}
