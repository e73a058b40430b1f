package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/retrylab/retrylab/engine/models"
	"github.com/retrylab/retrylab/engine/param"
)

// runSim is `retrylab sim NAME [--PARAM VALUE]... [--seed N] [--schedule
// N] [--json]`: one flag for each parameter the model declares
// (engine/models), with the declaration's name, and the schedule seed
// that orders simultaneous events (models.Model.RunSchedule), which is no
// widget's parameter.
func runSim(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && (args[0] == "--help" || args[0] == "-h") {
			simUsage(stdout)
			return exitOK
		}
		fmt.Fprintf(stderr, "retrylab sim: name a model (known: %s)\n", strings.Join(models.Names(), ", "))
		return exitUsage
	}
	m, ok := models.Find(args[0])
	if !ok {
		fmt.Fprintf(stderr, "retrylab sim: unknown model %q (known: %s)\n", args[0], strings.Join(models.Names(), ", "))
		return exitUsage
	}
	prefix := "retrylab sim " + m.Name + ": "
	raw, schedule, asJSON, err := simFlags(m, args[1:])
	switch {
	case errors.Is(err, flag.ErrHelp):
		modelHelp(stdout, m)
		return exitOK
	case err != nil:
		fmt.Fprintf(stderr, "%s%v\n", prefix, err)
		return exitUsage
	}
	v, err := m.Schema.Parse(raw)
	if err != nil {
		fmt.Fprintf(stderr, "%s%v\n", prefix, err)
		return exitUsage
	}
	run, err := m.RunSchedule(v, schedule)
	if err != nil {
		// The values were within their declared bounds; the run was not
		// possible (too long to simulate).
		fmt.Fprintf(stderr, "%s%v\n", prefix, err)
		return exitFail
	}
	if asJSON {
		b, err := json.Marshal(run.Report.Summary)
		if err != nil {
			fmt.Fprintf(stderr, "%s%v\n", prefix, err)
			return exitFail
		}
		fmt.Fprintf(stdout, "%s\n", b)
		return exitOK
	}
	printReport(stdout, m, v, schedule, run.Report)
	return exitOK
}

// simFlags reads a model's command line: a flag.Func for each declared
// parameter, which keeps its text for the schema to check (Schema.Parse,
// which reports the first problem in the declaration's order), --json,
// --seed, which a model that draws nothing accepts and ignores, and
// --schedule, which a model with no simultaneous events accepts and
// ignores, so that one command line runs every model. The error says
// what is wrong and what is allowed; flag.ErrHelp asks for the model's
// --help.
func simFlags(m *models.Model, args []string) (raw map[string]string, schedule uint64, asJSON bool, err error) {
	fs := flag.NewFlagSet("retrylab sim "+m.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // the errors are printed with the model's prefix
	fs.Usage = func() {}
	raw = map[string]string{}
	// refused is the error of a flag's value, which flag would wrap in
	// words of its own.
	var refused error
	given := map[string]bool{}
	once := func(name string, set func(string) error) func(string) error {
		return func(value string) error {
			if given[name] {
				refused = errors.New("--" + name + " is given more than once")
			} else {
				given[name] = true
				refused = set(value)
			}
			return refused
		}
	}
	for _, p := range m.Schema {
		fs.Func(p.Name, p.Label+": "+p.Help, once(p.Name, func(value string) error {
			raw[p.Name] = value
			return nil
		}))
	}
	if !m.Random() {
		fs.Func("seed", "accepted and ignored: this model draws no random numbers", once("seed", func(value string) error {
			_, err := param.Seed("").Parse(value)
			return err
		}))
	}
	fs.Func("schedule", scheduleHelp(m), once("schedule", func(value string) error {
		n, err := strconv.ParseUint(value, 10, 64)
		if err != nil {
			return errors.New("schedule: " + strconv.Quote(value) + " is not a whole number (allowed: 0 to " + strconv.FormatUint(math.MaxUint64, 10) + ")")
		}
		schedule = n
		return nil
	}))
	fs.BoolFunc("json", "print the summary as one JSON object", once("json", func(value string) error {
		b, err := strconv.ParseBool(value)
		if err != nil {
			return errors.New("json: " + strconv.Quote(value) + " is not allowed (allowed: true, false)")
		}
		asJSON = b
		return nil
	}))
	switch err := fs.Parse(args); {
	case errors.Is(err, flag.ErrHelp):
		return nil, 0, false, err
	case refused != nil:
		return nil, 0, false, refused
	case err != nil:
		return nil, 0, false, syntaxError(err, m)
	}
	if rest := fs.Args(); len(rest) > 0 {
		return nil, 0, false, errors.New("unexpected argument " + strconv.Quote(rest[0]) + ": parameters are written --NAME VALUE or --NAME=VALUE")
	}
	return raw, schedule, asJSON, nil
}

// scheduleHelp is what --schedule does to m.
func scheduleHelp(m *models.Model) string {
	if m.Reorders {
		return "the order of simultaneous events: 0 (the default) the order they were scheduled in, as the widget runs; another seed a permutation of it, the same each time"
	}
	return "accepted and ignored: this model has no simultaneous events to reorder"
}

// syntaxError is an error of flag's own, a flag it does not know or one
// without its value, in the words of the other errors: what is wrong, and
// what is allowed. (TestUsageErrors holds flag to its words.)
func syntaxError(err error, m *models.Model) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return errors.New("unknown parameter --" + name + " (known: " + strings.Join(flagNames(m), ", ") + ")")
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return errors.New("--" + name + " needs a value")
	}
	return errors.New(msg + " (parameters are written --NAME VALUE or --NAME=VALUE)")
}

// flagNames lists the flags m takes, for an error message.
func flagNames(m *models.Model) []string {
	names := []string{"--json", "--schedule", "--seed"}
	for _, p := range m.Schema {
		if p.Name != "seed" {
			names = append(names, "--"+p.Name)
		}
	}
	sort.Strings(names)
	return names
}

func printReport(w io.Writer, m *models.Model, v param.Values, schedule uint64, rep models.Report) {
	// The header lists every parameter, given or default, so the output
	// says exactly what ran, and a schedule seed that reordered it.
	var parts []string
	for _, p := range m.Schema {
		parts = append(parts, p.Name+"="+strings.ReplaceAll(v.Text(p.Name), ", ", ","))
	}
	if schedule != 0 && m.Reorders {
		parts = append(parts, "schedule="+strconv.FormatUint(schedule, 10))
	}
	fmt.Fprintf(w, "%s: %s\n\n", m.Name, strings.Join(parts, " "))
	tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
	for _, r := range rep.Rows {
		fmt.Fprintf(tw, "%s\t%s\n", r[0], r[1])
	}
	tw.Flush()
	if t := rep.Detail; t != nil {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 0, 3, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "%s\t\n", strings.Join(t.Head, "\t"))
		for _, r := range t.Rows {
			fmt.Fprintf(tw, "%s\t\n", strings.Join(r, "\t"))
		}
		tw.Flush()
		if t.More != "" {
			fmt.Fprintln(w, t.More)
		}
	}
}

// modelHelp lists the model's parameters from their declaration: the
// widget's, with the same defaults and bounds.
func modelHelp(w io.Writer, m *models.Model) {
	fmt.Fprintf(w, "retrylab sim %s [--PARAM VALUE]... [--seed N] [--schedule N] [--json]\n\n%s\n\n", m.Name, m.Title)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, p := range m.Schema {
		fmt.Fprintf(tw, "  --%s\t%s\t(default %s)\t%s: %s\n", p.Name, kindText(p), strings.ReplaceAll(p.Default, ", ", ","), p.Label, p.Help)
	}
	if !m.Random() {
		fmt.Fprintf(tw, "  --seed\tint\t\taccepted and ignored: this model draws no random numbers\n")
	}
	fmt.Fprintf(tw, "  --schedule\tint\t(default 0)\t%s\n", scheduleHelp(m))
	fmt.Fprintf(tw, "  --json\t\t\tprint the summary as one JSON object\n")
	tw.Flush()
}
