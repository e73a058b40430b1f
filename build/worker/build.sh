#!/usr/bin/env bash
# Builds the worker into build/worker/dist: cmd/worker compiled by Go to
# WebAssembly (app.wasm), and the JavaScript that starts it on Workers
# (worker.mjs, runtime.mjs, and wasm_exec.js for Go rather than TinyGo),
# written by the workers-assets-gen command of github.com/syumai/workers,
# at the version go.mod requires.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.."
go run github.com/syumai/workers/cmd/workers-assets-gen -mode=go -o "$here/dist"
GOOS=js GOARCH=wasm go build -trimpath -ldflags=-s -o "$here/dist/app.wasm" ./cmd/worker
ls -l "$here/dist/app.wasm" | awk '{printf "build/worker/dist/app.wasm: %.1f MB\n", $5 / 1e6}'
