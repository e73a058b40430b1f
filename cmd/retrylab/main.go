// Command retrylab runs the handbook's simulators in a terminal, and its
// sandbox payments API.
//
//	retrylab sim NAME [--PARAM VALUE]... [--seed N] [--schedule N] [--json]
//	retrylab api [--addr localhost:8787] [--db retrylab.db | postgres://... | memory] [--lease 1m] [--ttl 24h]
//	retrylab load [--url http://localhost:8787] [--n 5000] [--replays 20000] [--c 32] [--json]
//	retrylab check URL [--token T] [--other-token T2] [--header 'K: V']... [--body JSON] [--other-body JSON] [--id-field NAME] [--concurrency N] [--ttl D] [--json]
//
// Each simulator takes the parameters its widget takes, under the same
// kebab-case names, and prints its summary as a table, or with --json as one
// JSON object. A usage error (an unknown command, model or parameter, or a
// value out of bounds) exits with status 2 and a message that names it and
// what is allowed.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/retrylab/retrylab/engine/models"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1 // the command was understood and failed
	exitUsage = 2 // the command line was not understood
)

// A command is one subcommand of retrylab.
type command struct {
	name  string
	about string
	run   func(args []string, stdout, stderr io.Writer) int
}

// commands are retrylab's subcommands.
var commands = []command{
	{"sim", "run a simulator and print its summary", runSim},
	{"api", "serve the sandbox payments API (Idempotency-Key, fault injection)", runAPI},
	{"load", "measure the API: new keys and replays per second, and double charges", runLoad},
	{"lab", "run the guard strategies on a real database: rows and charges per run", runLab},
	{"check", "test any Idempotency-Key API from outside: replays, races, mismatches, scope, keys", runCheck},
}

// run is the whole program, with its arguments and output passed in so that
// tests run it in-process.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "help", "-h", "--help":
		usage(stdout)
		return exitOK
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "retrylab: unknown command %q (known: %s)\n", args[0], strings.Join(commandNames(), ", "))
	return exitUsage
}

func commandNames() []string {
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	sort.Strings(names)
	return names
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: retrylab COMMAND [ARGS]")
	fmt.Fprintln(w)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-6s %s\n", c.name, c.about)
	}
	fmt.Fprintln(w)
	simUsage(w)
	fmt.Fprintln(w)
	apiUsage(w)
	fmt.Fprintln(w)
	loadUsage(w)
	fmt.Fprintln(w)
	checkUsage(w)
}

func simUsage(w io.Writer) {
	fmt.Fprintln(w, "retrylab sim NAME [--PARAM VALUE]... [--seed N] [--schedule N] [--json]")
	fmt.Fprintf(w, "models: %s\n", strings.Join(models.Names(), ", "))
	fmt.Fprintln(w, "retrylab sim NAME --help lists a model's parameters.")
}
