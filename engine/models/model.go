// Package models is the one list of the handbook's simulators. Each model
// is registered once, in All, as one value: its name, a line about it,
// its parameters (its Params' Binding), its run, the headline figures a
// run comes to, what the CLI prints of it and its trace. Everything that
// handles every model alike iterates the list: the CLI's commands and
// flags, the figures' and the parameters' tests, the bench, and the test
// that every model has its widget (site/widget, where each view registers
// itself) and its chapter.
//
// The package is pure, as the engine is: no I/O, and nothing the page's
// WebAssembly module could not carry (no fmt, no reflect).
package models

import (
	"sort"

	"github.com/retrylab/retrylab/engine/param"
	"github.com/retrylab/retrylab/engine/sim"
)

// A Model is one simulator, whatever its Params and Result.
type Model struct {
	Name  string // as the CLI, a widget block, data-widget and engine/figures name it
	Title string // one line about it, for the CLI's help
	// Schema is the parameters, as the model's Params declare them
	// (param.Binding): the CLI's flags, the widget's controls.
	Schema param.Schema
	// Params reads, writes and checks the model's Params with their type
	// erased, for code that handles every model's parameters alike.
	Params Params

	// Reorders reports whether the model has simultaneous events that a
	// schedule seed reorders (its Def's Schedule); RunSchedule of another
	// model runs it as Run does.
	Reorders bool

	run    func(param.Values, uint64) (Run, error)
	repeat func(param.Values) func() (sim.Trace, error)
}

// Params is a Binding without its Params type: a Params travels as an any
// holding the model's own Params type.
type Params struct {
	Defaults func() any
	Read     func(param.Values) any
	Raw      func(any) map[string]string
	Check    func(any) error
}

// A Run is what one run of a model comes to.
type Run struct {
	// Figures are the headline figures, by the names of the widget's
	// data-* attributes ("charges" is data-charges), as the rows of
	// engine/figures name them.
	Figures map[string]string
	// Report is what the CLI prints of the run.
	Report Report
	// Trace is the run's events.
	Trace sim.Trace
}

// A Report is a run as the CLI prints it: Summary, the object `retrylab
// sim --json` writes; Rows, a table of labels and values; Detail, a
// longer table, or nil.
type Report struct {
	Summary any
	Rows    [][2]string
	Detail  *Table
}

// A Table is rows of cells under a head, and a last line when rows were
// left out.
type Table struct {
	Head []string
	Rows [][]string
	More string
}

// Run runs the model with checked values. The error is for values the
// declaration accepts and the run cannot take (too long to simulate).
func (m *Model) Run(v param.Values) (Run, error) { return m.run(v, 0) }

// RunSchedule runs the model with checked values and a schedule seed: 0
// is Run, and any other seed orders the events due at one instant as
// sim.Sim.Reorder says. The same values and seed replay the same run.
func (m *Model) RunSchedule(v param.Values, schedule uint64) (Run, error) { return m.run(v, schedule) }

// Repeat returns a function that runs the model with v, each time into
// the room of its last run (the models' RunInto), as a caller that runs a
// model again and again does; it returns the run's trace. The bench
// times it.
func (m *Model) Repeat(v param.Values) func() (sim.Trace, error) { return m.repeat(v) }

// Random reports whether the model draws from a seed: it declares one.
func (m *Model) Random() bool {
	_, ok := m.Schema.Param("seed")
	return ok
}

// A Def is a model's registration with its types: what Of makes a Model of.
type Def[P, R any] struct {
	Name, Title string
	Binding     *param.Binding[P]
	// Run runs the model; Into, if the model has one, is its RunInto:
	// Run writing into the room of a result the caller no longer reads.
	Run  func(P) (R, error)
	Into func(P, *R) error
	// Figures, Report and Trace read a run of p.
	Figures func(p P, r *R) map[string]string
	Report  func(p P, r *R) Report
	Trace   func(r *R) sim.Trace
	// Schedule, for a model with simultaneous events, sets the schedule
	// seed of its Params (nil: the model has none to reorder).
	Schedule func(p *P, seed uint64)
}

// Of makes the Model of d.
func Of[P, R any](d Def[P, R]) *Model {
	b := d.Binding
	into := d.Into
	if into == nil {
		into = func(p P, r *R) error {
			res, err := d.Run(p)
			if err == nil {
				*r = res
			}
			return err
		}
	}
	return &Model{
		Name: d.Name, Title: d.Title, Schema: b.Schema, Reorders: d.Schedule != nil,
		Params: Params{
			Defaults: func() any { return b.Defaults() },
			Read:     func(v param.Values) any { return b.Read(v) },
			Raw:      func(p any) map[string]string { return b.Raw(p.(P)) },
			Check:    func(p any) error { return b.Check(p.(P)) },
		},
		run: func(v param.Values, schedule uint64) (Run, error) {
			p := b.Read(v)
			if d.Schedule != nil {
				d.Schedule(&p, schedule)
			}
			r, err := d.Run(p)
			if err != nil {
				return Run{}, err
			}
			return Run{Figures: d.Figures(p, &r), Report: d.Report(p, &r), Trace: d.Trace(&r)}, nil
		},
		repeat: func(v param.Values) func() (sim.Trace, error) {
			p := b.Read(v)
			var last R
			return func() (sim.Trace, error) {
				if err := into(p, &last); err != nil {
					return nil, err
				}
				return d.Trace(&last), nil
			}
		},
	}
}

// Find returns the model called name.
func Find(name string) (*Model, bool) {
	for _, m := range All {
		if m.Name == name {
			return m, true
		}
	}
	return nil, false
}

// Names lists the models' names, sorted.
func Names() []string {
	names := make([]string, len(All))
	for i, m := range All {
		names[i] = m.Name
	}
	// Not sort.Strings: its pdqsort of strings would be linked into the
	// page's module beside the stable sort engine/ijson links already.
	sort.Stable(sort.StringSlice(names))
	return names
}
