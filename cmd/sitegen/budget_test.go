package main

import "testing"

// wasmBudget is the most the WebAssembly module may weigh, brotli-compressed
// as served: every reader downloads it. A Go module that touches only
// syscall/js is about 440 KB brotli, so this leaves 360 KB for the engine,
// the widgets and their views.
const wasmBudget = 800 * 1000

func TestWasmModuleWithinBudget(t *testing.T) {
	productionSite(t)
	w := shared.stats.Wasm
	if w.Brotli == 0 {
		t.Fatal("the build wrote no brotli copy of the module")
	}
	t.Logf("wasm module: %d bytes raw, %d gzip, %d brotli (budget %d)", w.Raw, w.Gzip, w.Brotli, wasmBudget)
	if w.Brotli > wasmBudget {
		t.Fatalf("the wasm module is %d bytes brotli, over the %d budget by %d", w.Brotli, wasmBudget, w.Brotli-wasmBudget)
	}
}
