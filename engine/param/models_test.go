package param_test

import (
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/retrylab/retrylab/engine/backoff"
	"github.com/retrylab/retrylab/engine/budget"
	"github.com/retrylab/retrylab/engine/cas"
	"github.com/retrylab/retrylab/engine/guard"
	"github.com/retrylab/retrylab/engine/lease"
	"github.com/retrylab/retrylab/engine/lock"
	"github.com/retrylab/retrylab/engine/ordering"
	"github.com/retrylab/retrylab/engine/outbox"
	"github.com/retrylab/retrylab/engine/param"
	"github.com/retrylab/retrylab/engine/payment"
	"github.com/retrylab/retrylab/engine/saga"
	"github.com/retrylab/retrylab/engine/sentmarker"
	"github.com/retrylab/retrylab/engine/storm"
)

// declared is what every model package declares: its schema, its
// parameters written out, and the same read back from checked values.
type declared struct {
	schema param.Schema
	raw    func() map[string]string // Defaults().Raw()
	back   func(param.Values) any   // FromValues
	def    any                      // Defaults()
	runner []string                 // parameters of the run rather than of Params (seed, compare)
}

func models() map[string]declared {
	return map[string]declared{
		"payment":     {payment.Schema, func() map[string]string { return payment.Defaults().Raw() }, func(v param.Values) any { return payment.FromValues(v) }, payment.Defaults(), nil},
		"guard":       {guard.Schema, func() map[string]string { return guard.Defaults().Raw() }, func(v param.Values) any { return guard.FromValues(v) }, guard.Defaults(), []string{"seed"}},
		"backoff":     {backoff.Schema, func() map[string]string { return backoff.Defaults().Raw() }, func(v param.Values) any { return backoff.FromValues(v) }, backoff.Defaults(), []string{"compare", "seed"}},
		"budget":      {budget.Schema, func() map[string]string { return budget.Defaults().Raw() }, func(v param.Values) any { return budget.FromValues(v) }, budget.Defaults(), nil},
		"storm":       {storm.Schema, func() map[string]string { return storm.Defaults().Raw() }, func(v param.Values) any { return storm.FromValues(v) }, storm.Defaults(), nil},
		"outbox":      {outbox.Schema, func() map[string]string { return outbox.Defaults().Raw() }, func(v param.Values) any { return outbox.FromValues(v) }, outbox.Defaults(), nil},
		"saga":        {saga.Schema, func() map[string]string { return saga.Defaults().Raw() }, func(v param.Values) any { return saga.FromValues(v) }, saga.Defaults(), nil},
		"ordering":    {ordering.Schema, func() map[string]string { return ordering.Defaults().Raw() }, func(v param.Values) any { return ordering.FromValues(v) }, ordering.Defaults(), nil},
		"cas":         {cas.Schema, func() map[string]string { return cas.Defaults().Raw() }, func(v param.Values) any { return cas.FromValues(v) }, cas.Defaults(), nil},
		"lock":        {lock.Schema, func() map[string]string { return lock.Defaults().Raw() }, func(v param.Values) any { return lock.FromValues(v) }, lock.Defaults(), nil},
		"lease":       {lease.Schema, func() map[string]string { return lease.Defaults().Raw() }, func(v param.Values) any { return lease.FromValues(v) }, lease.Defaults(), nil},
		"sent-marker": {sentmarker.Schema, func() map[string]string { return sentmarker.Defaults().Raw() }, func(v param.Values) any { return sentmarker.FromValues(v) }, sentmarker.Defaults(), nil},
	}
}

// Each model writes out every parameter it declares (but those of the run,
// such as the seed) under the declared name, and reads back what it wrote:
// Raw and FromValues agree with the declaration, so Validate checks what
// the declaration says.
func TestDeclarationsRoundTrip(t *testing.T) {
	for name, m := range models() {
		raw := m.raw()
		var want []string
		for _, p := range m.schema {
			if p.Label == "" || p.Help == "" {
				t.Errorf("%s: parameter %s has no label or no help", name, p.Name)
			}
			if !slices.Contains(m.runner, p.Name) {
				want = append(want, p.Name)
			}
		}
		got := slices.Sorted(maps.Keys(raw))
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: Raw writes %v, the declaration has %v", name, got, want)
		}
		v, err := m.schema.Parse(raw)
		if err != nil {
			t.Errorf("%s: the defaults written out do not parse: %v", name, err)
			continue
		}
		if back := m.back(v); !reflect.DeepEqual(back, m.def) {
			t.Errorf("%s: read back %+v, want %+v", name, back, m.def)
		}
	}
}
