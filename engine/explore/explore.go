// Package explore checks the claims the handbook's chapters make about
// each model as properties, across many runs: for a claim and a seed, it
// draws the model's parameters within the claim's scope (every crash
// point, any number of duplicates, any lease) and, for a model with
// simultaneous events, runs them in the order the same seed draws
// (sim.Sim.Reorder). A claim that fails names the seed, and the command
// that replays that run exactly: retrylab sim MODEL --PARAM VALUE...
// --schedule SEED.
//
// The tests run a few thousand seeds of every claim; go test
// ./engine/explore -explore N runs N, and FuzzClaims lets go test -fuzz
// search. Every model of engine/models has at least one claim
// (cmd/retrylab's TestEveryModelIsEverywhere checks it).
//
// The package is for tests and the CLI: the page's WebAssembly module
// does not import it (a run with a schedule seed needs only the models).
package explore

import (
	"strconv"
	"strings"

	"github.com/retrylab/retrylab/engine/models"
	"github.com/retrylab/retrylab/engine/param"
	"github.com/retrylab/retrylab/engine/sim"
)

// A Claim is one thing a chapter says a model does, as a property of its
// runs.
type Claim struct {
	Model   string // as engine/models names it
	Name    string // short and unique within the model: "setnx-once"
	Chapter string // the chapter that makes the claim: "redis-key-store"
	Says    string // the claim, as the chapter makes it

	run, outside func(seed uint64) (Case, sim.Trace, error)
}

// ID is the claim's model and name: "lock/setnx-once".
func (c *Claim) ID() string { return c.Model + "/" + c.Name }

// A Case is one run a claim was checked on: the parameters drawn, as the
// CLI's flags would give them, and the schedule seed.
type Case struct {
	Model string
	// Values are the parameters that differ from the model's defaults,
	// by name, as the CLI and a widget block write them.
	Values   map[string]string
	Names    []string // Values' names, in the declaration's order
	Schedule uint64   // 0 for a model with no simultaneous events
}

// Command is the command line that replays the case.
func (c Case) Command() string {
	var b strings.Builder
	b.WriteString("go run ./cmd/retrylab sim " + c.Model)
	for _, n := range c.Names {
		v := strings.ReplaceAll(c.Values[n], ", ", ",")
		if v == "" || strings.ContainsAny(v, " '\"") {
			v = strconv.Quote(v)
		}
		b.WriteString(" --" + n + " " + v)
	}
	if c.Schedule != 0 {
		b.WriteString(" --schedule " + strconv.FormatUint(c.Schedule, 10))
	}
	return b.String()
}

// A Failure is a claim that did not hold on one case.
type Failure struct {
	Claim *Claim
	Seed  uint64
	Case  Case
	Err   error // what the run came to instead
}

func (f *Failure) Error() string {
	return f.Claim.ID() + " (content/" + f.Claim.Chapter + ".md: " + f.Claim.Says + "): seed " +
		strconv.FormatUint(f.Seed, 10) + ": " + f.Err.Error() + "\n\treplay: " + f.Case.Command()
}

// Check runs c on the case seed draws. The error is a *Failure, or a
// claim's parameters that the model refused (a bug in the claim).
func (c *Claim) Check(seed uint64) error {
	_, _, err := c.run(seed)
	return err
}

// Run is the case seed draws and the trace of its run, whether or not
// the claim holds on it.
func (c *Claim) Run(seed uint64) (Case, sim.Trace, error) {
	cs, tr, err := c.run(seed)
	if _, failed := err.(*Failure); failed {
		err = nil
	}
	return cs, tr, err
}

// claim makes a Claim of a model's binding and run: draw sets the
// parameters of a case from the seed's generator, starting from the
// defaults; schedule, for a model with simultaneous events, sets the
// schedule seed of its Params; holds says what the run came to when the
// claim does not hold. outside, drawn after draw, takes a case out of
// the claim's scope, where the chapter says the claim fails (nil: no
// parameter does): the tests hold each claim to failing there.
func claim[P, R any](model, name, chapter, says string, b *param.Binding[P], run func(P) (R, error),
	schedule func(*P, uint64), trace func(*R) sim.Trace,
	draw func(r *sim.Rand, p *P), holds func(p P, r *R) error, outside func(r *sim.Rand, p *P)) Claim {
	c := &Claim{Model: model, Name: name, Chapter: chapter, Says: says}
	check := func(draw func(r *sim.Rand, p *P)) func(uint64) (Case, sim.Trace, error) {
		return func(seed uint64) (Case, sim.Trace, error) {
			p := b.Defaults()
			draw(sim.NewRand(seed), &p)
			cs := Case{Model: model, Values: map[string]string{}}
			if schedule != nil {
				schedule(&p, seed)
				cs.Schedule = seed
			}
			raw, def := b.Raw(p), b.Raw(b.Defaults())
			for _, sp := range b.Schema {
				if raw[sp.Name] != def[sp.Name] {
					cs.Values[sp.Name] = raw[sp.Name]
					cs.Names = append(cs.Names, sp.Name)
				}
			}
			res, err := run(p)
			if err != nil {
				return cs, nil, errorf("%s seed %d: the model refused the claim's parameters (%s): %v", c.ID(), seed, cs.Command(), err)
			}
			tr := trace(&res)
			if err := holds(p, &res); err != nil {
				return cs, tr, &Failure{Claim: c, Seed: seed, Case: cs, Err: err}
			}
			return cs, tr, nil
		}
	}
	c.run = check(draw)
	if outside != nil {
		c.outside = check(func(r *sim.Rand, p *P) {
			draw(r, p)
			outside(r, p)
		})
	}
	return *c
}

// Of lists the claims about the model called name.
func Of(name string) []*Claim {
	var out []*Claim
	for i := range Claims {
		if Claims[i].Model == name {
			out = append(out, &Claims[i])
		}
	}
	return out
}

// Find is the claim whose ID is id.
func Find(id string) (*Claim, bool) {
	for i := range Claims {
		if Claims[i].ID() == id {
			return &Claims[i], true
		}
	}
	return nil, false
}

// Replay runs a case as the CLI does, from its values and schedule seed
// through the model's declaration: the run whose summary Command's line
// prints.
func Replay(cs Case) (models.Run, error) {
	m, ok := models.Find(cs.Model)
	if !ok {
		return models.Run{}, errorf("no model %q", cs.Model)
	}
	v, err := m.Schema.Parse(cs.Values)
	if err != nil {
		return models.Run{}, err
	}
	return m.RunSchedule(v, cs.Schedule)
}
