// Command serve runs the flawed payments APIs of package flawed on one
// address, each under a path of its own, for retrylab check to be pointed
// at:
//
//	go run ./internal/check/flawed/serve [--addr localhost:8788] [--work 300ms]
//	go run ./cmd/retrylab check http://localhost:8788/race/payments
package main

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/retrylab/retrylab/internal/check/flawed"
)

func main() {
	addr := flag.String("addr", "localhost:8788", "`host:port` to listen on")
	work := flag.Duration("work", flawed.DefaultWork, "how long a payment takes")
	flag.Parse()
	fmt.Printf("flawed payments APIs on http://%s: /correct/payments, and one flaw each at", *addr)
	for _, f := range flawed.Flaws {
		fmt.Printf(" /%s/payments", f)
	}
	fmt.Println()
	srv := &http.Server{Addr: *addr, Handler: flawed.Handler(*work), ReadHeaderTimeout: 10 * time.Second}
	if err := srv.ListenAndServe(); err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
		os.Exit(1)
	}
}
