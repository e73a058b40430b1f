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
// table and DWARF (about 2% of the page's module).
//
// The -gcflags compile the page's own packages without inlining, for
// size: in WebAssembly an inlined call is a copy of the callee's body at
// every call site, and the views, which make thousands of small calls
// (an attribute list, a word, a number), grow the most; without it the
// page's module is about 5% smaller, brotli 11. The four packages whose
// loops make the heaviest runs a reader can ask for (engine/sim's event
// queue and backoff's, budget's and storm's 100,000 clients or requests)
// keep it: inlining them off too would save only about 5 KB more (an empty
// -gcflags gives a package its default flags back: of the patterns a
// package matches, the last one wins). The patterns name no package of
// the standard library, nor bench/hello, so the runtime and syscall/js
// that every Go module carries (bench/hello, the floor the page's module
// is measured against) compile exactly as with the default flags: the
// floor's functions are the same, and only its build information grows,
// by the flags' text. Native builds (the generator, the CLI) are not
// affected at all.
var WasmFlags = []string{
	"-trimpath", "-ldflags=-s -w",
	"-gcflags=" + modulePath + "/wasm=-l",
	"-gcflags=" + modulePath + "/site/...=-l",
	"-gcflags=" + modulePath + "/engine/...=-l",
	"-gcflags=" + modulePath + "/engine/sim=",
	"-gcflags=" + modulePath + "/engine/backoff=",
	"-gcflags=" + modulePath + "/engine/budget=",
	"-gcflags=" + modulePath + "/engine/storm=",
}

// modulePath is go.mod's module path.
const modulePath = "github.com/retrylab/retrylab"

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
