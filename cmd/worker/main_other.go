//go:build !(js && wasm)

package main

import (
	"fmt"
	"os"
)

// main explains where the worker runs: it is built for js/wasm only.
func main() {
	fmt.Fprintln(os.Stderr, "cmd/worker runs on Cloudflare Workers: build it with build/worker/build.sh and run it with `make worker-dev`;")
	fmt.Fprintln(os.Stderr, "the same API runs locally with `retrylab api`.")
	os.Exit(2)
}
