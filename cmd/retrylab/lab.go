package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/retrylab/retrylab/engine/guard"
	"github.com/retrylab/retrylab/internal/lab"
)

func labUsage(w io.Writer) {
	fmt.Fprintln(w, "retrylab lab guard --db sqlite:FILE|postgres://... [--n 20] [--runs 6] --strategy NAME [--card-ms 50] [--isolation LEVEL] [--json]")
	fmt.Fprintln(w, "runs the guard simulator's strategy on a real database: n goroutines with one key, each on its")
	fmt.Fprintln(w, "own connection, the card call a sleep recorded in a charges table; prints rows and charges per run.")
	fmt.Fprintln(w, "with --isolation LEVEL (PostgreSQL only) each request is one transaction at that level, the card")
	fmt.Fprintln(w, "call inside it and its charge recorded outside it; a 40001 or 40P01 runs the transaction again.")
	fmt.Fprintf(w, "strategies: %s\n", lab.StrategyNames())
	fmt.Fprintf(w, "isolation: %s (default %s: one transaction per statement)\n", lab.IsolationNames(), lab.Autocommit)
}

// runLab is `retrylab lab EXPERIMENT ...`; guard is the one experiment.
func runLab(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "guard" {
		switch {
		case len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help"):
			labUsage(stdout)
			return exitOK
		case len(args) == 0:
			fmt.Fprintln(stderr, "retrylab lab: which experiment? (known: guard)")
		default:
			fmt.Fprintf(stderr, "retrylab lab: unknown experiment %q (known: guard)\n", args[0])
		}
		labUsage(stderr)
		return exitUsage
	}
	fs := flag.NewFlagSet("retrylab lab guard", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { labUsage(stderr); fs.PrintDefaults() }
	db := fs.String("db", "", "the database: sqlite:`FILE` or a postgres:// URL")
	n := fs.Int("n", 20, "requests with one key, sent at once, each on its own connection")
	runs := fs.Int("runs", 6, "runs, each on fresh tables")
	strategy := fs.String("strategy", "", "how the handler guards the charge: "+lab.StrategyNames())
	cardMS := fs.Int("card-ms", 50, "how long the card network takes per charge, in milliseconds")
	isolation := fs.String("isolation", string(lab.Autocommit), "each request as one transaction at this level: "+lab.IsolationNames())
	asJSON := fs.Bool("json", false, `print {"strategy", "isolation", "db", "n", "runs": [{"rows", "charges", "failures", "retries"}...]} as one JSON object`)
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "retrylab lab guard: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if *db == "" {
		fmt.Fprintf(stderr, "retrylab lab guard: --db is required (allowed: %s)\n", lab.DBAllowed)
		return exitUsage
	}
	if *strategy == "" {
		fmt.Fprintf(stderr, "retrylab lab guard: --strategy is required (allowed: %s)\n", lab.StrategyNames())
		return exitUsage
	}
	cfg := lab.Config{DB: *db, N: *n, Runs: *runs, Strategy: guard.Strategy(*strategy), Card: time.Duration(*cardMS) * time.Millisecond, Isolation: lab.Isolation(*isolation)}
	if err := cfg.Validate(); err != nil {
		fmt.Fprintf(stderr, "retrylab lab guard: --%v\n", err)
		return exitUsage
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := lab.Guard(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "retrylab lab guard: %s on %s: %v\n", cfg.Strategy, lab.Describe(cfg.DB), err)
		return exitFail
	}
	if *asJSON {
		b, _ := json.Marshal(res)
		fmt.Fprintln(stdout, string(b))
		return exitOK
	}
	printLab(stdout, res)
	return exitOK
}

// printLab prints a measurement: one line per run, then the spread.
func printLab(w io.Writer, res lab.Result) {
	fmt.Fprintf(w, "%s: %d requests with one key at once, card call %d ms, %s, on %s\n\n", res.Strategy, res.N, res.CardMS, res.Isolation, res.DB)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "run\trows\tcharges\tanswers\tfailures\tretries")
	for i, r := range res.Runs {
		fmt.Fprintf(tw, "%d\t%d\t%d\t%s\t%s\t%d\n", i+1, r.Rows, r.Charges, r.Answers(), r.FailureText(), r.Retries)
	}
	tw.Flush()
	rlo, rhi := res.Span(func(r lab.Run) int { return r.Rows })
	clo, chi := res.Span(func(r lab.Run) int { return r.Charges })
	fmt.Fprintf(w, "\nover %d runs: rows %s, charges %s\n", len(res.Runs), span(rlo, rhi), span(clo, chi))
}

func span(lo, hi int) string {
	if lo == hi {
		return fmt.Sprintf("%d every run", lo)
	}
	return fmt.Sprintf("%d to %d", lo, hi)
}
