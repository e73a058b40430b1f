package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/retrylab/retrylab/internal/check"
)

func checkUsage(w io.Writer) {
	fmt.Fprintln(w, "retrylab check URL [--token T] [--other-token T2] [--header 'K: V']... [--body JSON] [--other-body JSON] [--id-field NAME] [--concurrency N] [--ttl D] [--json]")
	fmt.Fprintln(w, "tests an Idempotency-Key API from outside: POSTs to URL, some at the same instant, every check with new keys.")
	fmt.Fprintln(w, "Exit status: 0 when no check failed, 1 when one did, 2 for bad flags or a URL that cannot be checked.")
}

// headerFlags collects --header 'Name: value' flags.
type headerFlags struct{ h http.Header }

func (f *headerFlags) String() string { return "" }

func (f *headerFlags) Set(s string) error {
	name, value, ok := strings.Cut(s, ":")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	if !ok || name == "" || strings.ContainsAny(name, " \t") {
		return fmt.Errorf("%q is not a header: write it 'Name: value'", s)
	}
	if f.h == nil {
		f.h = http.Header{}
	}
	f.h.Add(name, value)
	return nil
}

// checkFlags is what `retrylab check` is told.
type checkFlags struct {
	url                string
	token, otherToken  string
	headers            headerFlags
	body, otherBody    string
	idField            string
	concurrency        int
	ttl                time.Duration
	json               bool
	setToken, setOther bool
}

// parseCheck reads the command line: URL anywhere among the flags.
func parseCheck(args []string, stderr io.Writer) (*checkFlags, int) {
	fs := flag.NewFlagSet("retrylab check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { checkUsage(stderr); fs.PrintDefaults() }
	c := &checkFlags{}
	fs.StringVar(&c.token, "token", "", "bearer `token` of the account to check as (default: a new random one, a new account on the sandbox API)")
	fs.StringVar(&c.otherToken, "other-token", "", "bearer `token` of a second account, for the scope check (default: a new random one)")
	fs.Var(&c.headers, "header", "a header to send on every request, `'Name: value'` (repeat the flag for more)")
	fs.StringVar(&c.body, "body", check.DefaultBody, "the JSON `body` of a request that creates a resource")
	fs.StringVar(&c.otherBody, "other-body", "", "a different JSON `body`, sent under a used key by the mismatch check (default: --body with another amount)")
	fs.StringVar(&c.idField, "id-field", check.DefaultIDField, "the `name` of the new resource's id in a 2xx body (data.id for a nested one)")
	fs.IntVar(&c.concurrency, "concurrency", check.DefaultConcurrency, "how many requests the concurrent check sends at the same instant ("+
		strconv.Itoa(check.MinConcurrency)+" to "+strconv.Itoa(check.MaxConcurrency)+")")
	fs.DurationVar(&c.ttl, "ttl", 0, "how long the API says it remembers a key; set, the expiry check waits a little longer than that (at most "+check.MaxTTL.String()+")")
	fs.BoolVar(&c.json, "json", false, "print the findings as one JSON object")
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, exitOK
			}
			return nil, exitUsage
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "token":
			c.setToken = true
		case "other-token":
			c.setOther = true
		}
	})
	bad := func(format string, a ...any) (*checkFlags, int) {
		fmt.Fprintf(stderr, "retrylab check: "+format+"\n", a...)
		return nil, exitUsage
	}
	switch {
	case len(positional) == 0:
		checkUsage(stderr)
		return bad("give the URL a client POSTs to, such as http://localhost:8787/v1/payments")
	case len(positional) > 1:
		return bad("one URL only; unexpected %q", positional[1])
	case c.headers.h.Get("Authorization") != "" && (c.setToken || c.setOther):
		return bad("--header sets Authorization, and --token or --other-token would send a second one: give one or the other")
	}
	c.url = positional[0]
	return c, exitOK
}

func runCheck(args []string, stdout, stderr io.Writer) int {
	f, code := parseCheck(args, stderr)
	if f == nil {
		return code
	}
	cfg := check.Config{URL: f.url, Token: f.token, OtherToken: f.otherToken, Header: f.headers.h,
		Body: []byte(f.body), OtherBody: []byte(f.otherBody), IDField: f.idField, Concurrency: f.concurrency, TTL: f.ttl}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := check.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "retrylab check: %v\n", err)
		return exitUsage
	}
	if f.json {
		err = rep.WriteJSON(stdout)
	} else {
		err = rep.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "retrylab check: %v\n", err)
		return exitFail
	}
	if rep.Failed() {
		return exitFail
	}
	return exitOK
}
