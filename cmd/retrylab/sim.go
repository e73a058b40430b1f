package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/retrylab/retrylab/engine/payment"
	"github.com/retrylab/retrylab/engine/sim"
)

// A model is one simulator as the CLI sees it.
type model interface {
	name() string
	about() string
	random() bool
	params() []paramInfo
	// run applies the flags to the model's defaults and runs it. A flag the
	// model does not know is a *usageError; a value out of bounds comes back
	// from the engine as its parameter error.
	run(flags []flagValue, seed uint64) (report, error)
}

// paramInfo is a parameter as --help shows it.
type paramInfo struct {
	name, kind, def, help string
	allowed               []string
}

type flagValue struct{ name, value string }

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

// simModel is a model built from a Params type: defaults, a parameter table
// and a function from Params (and seed) to a report.
type simModel[P any] struct {
	id, title string
	seeded    bool // the model draws from the seed; the others ignore --seed
	defaults  func() P
	table     []param[P]
	exec      func(P, uint64) (report, error)
}

func (m simModel[P]) name() string  { return m.id }
func (m simModel[P]) about() string { return m.title }
func (m simModel[P]) random() bool  { return m.seeded }

func (m simModel[P]) params() []paramInfo {
	p := m.defaults()
	var out []paramInfo
	for _, q := range m.table {
		out = append(out, paramInfo{name: q.name, kind: q.kind, def: q.get(&p), help: q.help, allowed: q.allowed})
	}
	return out
}

func (m simModel[P]) run(flags []flagValue, seed uint64) (report, error) {
	p := m.defaults()
	for _, f := range flags {
		q, ok := m.param(f.name)
		if !ok {
			return report{}, &usageError{"unknown parameter --" + f.name + " (known: " + strings.Join(m.flagNames(), ", ") + ")"}
		}
		if err := q.set(&p, f.value); err != nil {
			return report{}, err
		}
	}
	return m.exec(p, seed)
}

func (m simModel[P]) param(name string) (param[P], bool) {
	for _, q := range m.table {
		if q.name == name {
			return q, true
		}
	}
	return param[P]{}, false
}

func (m simModel[P]) flagNames() []string {
	names := []string{"--json", "--seed"}
	for _, q := range m.table {
		names = append(names, "--"+q.name)
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
	return nil, false
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
		flags  []flagValue
		seed   uint64 = 1
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
		if !hasValue {
			if i+1 == len(args) {
				fmt.Fprintf(stderr, "%s--%s needs a value\n", prefix, name)
				return exitUsage
			}
			i++
			value = args[i]
		}
		switch name {
		case "json":
			b, err := strconv.ParseBool(value)
			if err != nil {
				fmt.Fprintf(stderr, "%sjson: %q is not allowed (allowed: true, false)\n", prefix, value)
				return exitUsage
			}
			asJSON = b
		case "seed":
			s, err := strconv.ParseUint(value, 10, 64)
			if err != nil {
				fmt.Fprintf(stderr, "%sseed: %q is not allowed (allowed: a whole number from 0 to %d)\n", prefix, value, uint64(1<<64-1))
				return exitUsage
			}
			seed = s
		default:
			flags = append(flags, flagValue{name, value})
		}
	}
	rep, err := m.run(flags, seed)
	if err != nil {
		fmt.Fprintf(stderr, "%s%s\n", prefix, message(err))
		if isUsage(err) {
			return exitUsage
		}
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
	printReport(stdout, m, flags, seed, rep)
	return exitOK
}

// isUsage reports whether err is about the command line: an unknown
// parameter, an unreadable value or one the engine's Validate refused.
func isUsage(err error) bool {
	var (
		ue *usageError
		ve *valueError
		se *sim.ParamError
		pe *payment.ParamError
	)
	return errors.As(err, &ue) || errors.As(err, &ve) || errors.As(err, &se) || errors.As(err, &pe)
}

// message is err's text for a line that already names the model.
func message(err error) string {
	var pe *payment.ParamError
	if errors.As(err, &pe) {
		return pe.Param + ": " + pe.Msg // without payment's own "payment: "
	}
	return err.Error()
}

func printReport(w io.Writer, m model, flags []flagValue, seed uint64, rep report) {
	// The header lists every parameter, given or default, so the output
	// says exactly what ran.
	set := map[string]string{}
	for _, f := range flags {
		set[f.name] = f.value
	}
	var parts []string
	for _, p := range m.params() {
		v := p.def
		if s, ok := set[p.name]; ok {
			v = s
		}
		parts = append(parts, p.name+"="+v)
	}
	if m.random() {
		parts = append(parts, "seed="+strconv.FormatUint(seed, 10))
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

func modelHelp(w io.Writer, m model) {
	fmt.Fprintf(w, "retrylab sim %s [--PARAM VALUE]... [--seed N] [--json]\n\n%s\n\n", m.name(), m.about())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, p := range m.params() {
		kind := p.kind
		if len(p.allowed) > 0 && p.kind != "on|off" {
			kind += " " + strings.Join(p.allowed, "|")
		}
		fmt.Fprintf(tw, "  --%s\t%s\t(default %s)\t%s\n", p.name, kind, p.def, p.help)
	}
	if m.random() {
		fmt.Fprintf(tw, "  --seed\tint\t(default 1)\tthe random seed; the same seed replays the same run\n")
	} else {
		fmt.Fprintf(tw, "  --seed\tint\t\taccepted and ignored: this model draws no random numbers\n")
	}
	fmt.Fprintf(tw, "  --json\t\t\tprint the summary as one JSON object\n")
	tw.Flush()
}
