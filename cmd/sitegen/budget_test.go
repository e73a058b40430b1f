package main

import "testing"

// wasmBudget is the most the WebAssembly module may weigh, brotli-compressed
// as served: every reader downloads it. A Go module that touches only
// syscall/js is about 440 KB brotli. The module was 839 KB with the twelve
// widgets; five cuts (README, "What would close the module target") took
// it to 819,131 B. The simulator worker, the widget's toolbar and Reset,
// lists of the items in use, the output patched in place and the
// playground's hook added 39,725 B: 858,856 B. errors.AsType for the embed
// snippet's error (no internal/reflectlite) took it to 848,178 B, and
// compiling the page's own packages without inlining (gotool.WasmFlags)
// to 801,522 B; setting a permalink's controls instead of drawing the
// widget again, and the smaller trace events, to 794,273 B. Making the
// models allocate about half as often a run and backoff's 100,000 clients
// a loop without calls added 18,127 B raw and 4,111 B brotli (796,281 to
// 800,392 B): a reader downloads 0.5% more for a heavy run about a
// quarter faster in the page. The schedule seed of engine/sim, which the
// models in the module call (Reorder, Ties, Jitter: the page runs seed 0,
// engine/explore and the CLI the others), added 5,031 B raw and 2,301 B
// brotli (802,836 to 805,137 B). The budget is just above that: about
// 3.6 KB, what brotli 11 moves either way for a change of a few bytes, so
// that a change that adds to the module has to raise it, and say why,
// here. The aim stays the Performance section's: within 1.5x the floor,
// 660 KB.
const wasmBudget = 809 * 1000

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

// playgroundBudget is the most the playground's module may weigh, brotli
// as served: only /playground/ loads it, but it loads it at once. It holds
// the site's markdown converter, and with it chroma's lexers (all of them:
// chroma registers every lexer in one package, the Go lexer among them,
// and reads every definition's configuration as the module starts) and styles, beside
// what the handbook's module holds. Measured: 2,412,491 bytes (2,457,212
// before the site's and the engine's packages were compiled without
// inlining, gotool.WasmFlags).
const playgroundBudget = 2_500_000

func TestPlaygroundModuleWithinBudget(t *testing.T) {
	productionSite(t)
	w := shared.stats.Playground
	if w.Brotli == 0 {
		t.Fatal("the build wrote no brotli copy of the playground's module")
	}
	t.Logf("playground module: %d bytes raw, %d gzip, %d brotli (budget %d)", w.Raw, w.Gzip, w.Brotli, playgroundBudget)
	if w.Brotli > playgroundBudget {
		t.Fatalf("the playground's module is %d bytes brotli, over the %d budget by %d", w.Brotli, playgroundBudget, w.Brotli-playgroundBudget)
	}
}
