// Package gotool holds what the site generator and the bench both ask of
// the go command and the module, so that they cannot drift apart: above
// all, the flags the page's WebAssembly module is built with, which the
// bench's hello-world floor must share for the comparison to mean anything.
package gotool

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// WasmFlags are the go build flags of every module the site ships:
// -trimpath keeps local paths out, and -ldflags=-s -w drops the symbol
// table and DWARF (2% of the page's module: 2,913,942 bytes to 2,855,568
// when measured).
var WasmFlags = []string{"-trimpath", "-ldflags=-s -w"}

// BuildWasm compiles pkg (a path such as ./wasm, relative to the module
// root) for GOOS=js GOARCH=wasm into out, with WasmFlags, using the go
// command on PATH: the one a developer's `go run` used.
func BuildWasm(ctx context.Context, root, pkg, out string) error {
	gobin, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("the go command is needed to build the WebAssembly module: %w", err)
	}
	args := append(append([]string{"build"}, WasmFlags...), "-o", out, pkg)
	cmd := exec.CommandContext(ctx, gobin, args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("GOOS=js GOARCH=wasm go build %s: %v\n%s", pkg, err, strings.TrimSpace(buf.String()))
	}
	return nil
}

// ModuleRoot walks up from the working directory to the folder holding
// go.mod.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod in the working directory or above it: run inside the module")
		}
		dir = parent
	}
}
