package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/retrylab/retrylab/engine/param"
)

// A model is one simulator as the CLI sees it: its name, a line about it,
// its declared parameters (the flags) and a run of checked values.
type model struct {
	id, title string
	schema    param.Schema
	exec      func(param.Values) (report, error)
}

func (m model) name() string { return m.id }

// random reports whether the model draws from a seed: it declares one.
func (m model) random() bool {
	_, ok := m.schema.Param("seed")
	return ok
}

// A report is what a run prints: the summary (the object --json writes), a
// table of headline figures and optionally a longer table of detail.
type report struct {
	summary any
	rows    [][2]string
	detail  *table
}

type table struct {
	head []string
	rows [][]string
	more string // a last line when rows were left out
}

// flagNames lists the flags m takes, for an error message.
func (m model) flagNames() []string {
	names := []string{"--json", "--seed"}
	for _, p := range m.schema {
		if p.Name != "seed" {
			names = append(names, "--"+p.Name)
		}
	}
	sort.Strings(names)
	return names
}

type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func modelNames() []string {
	var names []string
	for _, m := range models {
		names = append(names, m.name())
	}
	sort.Strings(names)
	return names
}

func findModel(name string) (model, bool) {
	for _, m := range models {
		if m.name() == name {
			return m, true
		}
	}
	return model{}, false
}

// runSim is `retrylab sim NAME [--PARAM VALUE]... [--seed N] [--json]`.
func runSim(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && (args[0] == "--help" || args[0] == "-h") {
			simUsage(stdout)
			return exitOK
		}
		fmt.Fprintf(stderr, "retrylab sim: name a model (known: %s)\n", strings.Join(modelNames(), ", "))
		return exitUsage
	}
	m, ok := findModel(args[0])
	if !ok {
		fmt.Fprintf(stderr, "retrylab sim: unknown model %q (known: %s)\n", args[0], strings.Join(modelNames(), ", "))
		return exitUsage
	}
	prefix := "retrylab sim " + m.name() + ": "
	var (
		raw    = map[string]string{}
		asJSON bool
		given  = map[string]bool{}
	)
	for i := 1; i < len(args); i++ {
		arg := args[i]
		if arg == "--help" || arg == "-h" {
			modelHelp(stdout, m)
			return exitOK
		}
		if !strings.HasPrefix(arg, "--") || len(arg) == 2 {
			fmt.Fprintf(stderr, "%sunexpected argument %q: parameters are written --NAME VALUE or --NAME=VALUE\n", prefix, arg)
			return exitUsage
		}
		name, value, hasValue := strings.Cut(arg[2:], "=")
		if given[name] {
			fmt.Fprintf(stderr, "%s--%s is given more than once\n", prefix, name)
			return exitUsage
		}
		given[name] = true
		if name == "json" && !hasValue {
			asJSON = true
			continue
		}
		if _, ok := m.schema.Param(name); !ok && name != "json" && name != "seed" {
			fmt.Fprintf(stderr, "%sunknown parameter --%s (known: %s)\n", prefix, name, strings.Join(m.flagNames(), ", "))
			return exitUsage
		}
		if !hasValue {
			if i+1 == len(args) {
				fmt.Fprintf(stderr, "%s--%s needs a value\n", prefix, name)
				return exitUsage
			}
			i++
			value = args[i]
		}
		switch {
		case name == "json":
			b, err := strconv.ParseBool(value)
			if err != nil {
				fmt.Fprintf(stderr, "%sjson: %q is not allowed (allowed: true, false)\n", prefix, value)
				return exitUsage
			}
			asJSON = b
		case name == "seed" && !m.random():
			// Accepted and ignored, so that one command line runs every
			// model; still it must be a seed.
			if _, err := param.Seed("").Parse(value); err != nil {
				fmt.Fprintf(stderr, "%s%v\n", prefix, err)
				return exitUsage
			}
		default:
			raw[name] = value
		}
	}
	v, err := m.schema.Parse(raw)
	if err != nil {
		fmt.Fprintf(stderr, "%s%v\n", prefix, err)
		return exitUsage
	}
	rep, err := m.exec(v)
	if err != nil {
		// The values were within their declared bounds; the run was not
		// possible (too long to simulate).
		fmt.Fprintf(stderr, "%s%v\n", prefix, err)
		return exitFail
	}
	if asJSON {
		b, err := json.Marshal(rep.summary)
		if err != nil {
			fmt.Fprintf(stderr, "%s%v\n", prefix, err)
			return exitFail
		}
		fmt.Fprintf(stdout, "%s\n", b)
		return exitOK
	}
	printReport(stdout, m, v, rep)
	return exitOK
}

func printReport(w io.Writer, m model, v param.Values, rep report) {
	// The header lists every parameter, given or default, so the output
	// says exactly what ran.
	var parts []string
	for _, p := range m.schema {
		parts = append(parts, p.Name+"="+strings.ReplaceAll(v.Text(p.Name), ", ", ","))
	}
	fmt.Fprintf(w, "%s: %s\n\n", m.name(), strings.Join(parts, " "))
	tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
	for _, r := range rep.rows {
		fmt.Fprintf(tw, "%s\t%s\n", r[0], r[1])
	}
	tw.Flush()
	if t := rep.detail; t != nil {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 0, 3, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "%s\t\n", strings.Join(t.head, "\t"))
		for _, r := range t.rows {
			fmt.Fprintf(tw, "%s\t\n", strings.Join(r, "\t"))
		}
		tw.Flush()
		if t.more != "" {
			fmt.Fprintln(w, t.more)
		}
	}
}

// modelHelp lists the model's parameters from their declaration: the
// widget's, with the same defaults and bounds.
func modelHelp(w io.Writer, m model) {
	fmt.Fprintf(w, "retrylab sim %s [--PARAM VALUE]... [--seed N] [--json]\n\n%s\n\n", m.name(), m.title)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, p := range m.schema {
		fmt.Fprintf(tw, "  --%s\t%s\t(default %s)\t%s: %s\n", p.Name, kindText(p), strings.ReplaceAll(p.Default, ", ", ","), p.Label, p.Help)
	}
	if !m.random() {
		fmt.Fprintf(tw, "  --seed\tint\t\taccepted and ignored: this model draws no random numbers\n")
	}
	fmt.Fprintf(tw, "  --json\t\t\tprint the summary as one JSON object\n")
	tw.Flush()
}
