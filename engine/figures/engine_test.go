package figures_test

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/engine/backoff"
	"github.com/retrylab/retrylab/engine/budget"
	"github.com/retrylab/retrylab/engine/cas"
	"github.com/retrylab/retrylab/engine/figures"
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

var itoa = strconv.Itoa

// engines run a model from checked values and name its figures as the
// table does.
var engines = map[string]struct {
	schema param.Schema
	run    func(param.Values) (map[string]string, error)
}{
	"payment": {payment.Schema, func(v param.Values) (map[string]string, error) {
		r, err := payment.Run(payment.FromValues(v))
		return map[string]string{"charges": itoa(len(r.Charges)), "receipt": r.Receipt}, err
	}},
	"guard": {guard.Schema, func(v param.Values) (map[string]string, error) {
		r, err := guard.Run(guard.FromValues(v), uint64(v.Int("seed")))
		var st []string
		for _, c := range slices.Sorted(maps.Keys(r.Statuses)) {
			st = append(st, itoa(c)+":"+itoa(r.Statuses[c]))
		}
		return map[string]string{"rows": itoa(r.Rows), "charges": itoa(r.Charges), "statuses": strings.Join(st, ",")}, err
	}},
	"backoff": {backoff.Schema, func(v param.Values) (map[string]string, error) {
		r, err := backoff.Run(backoff.FromValues(v), uint64(v.Int("seed")))
		return map[string]string{"calls": itoa(r.Calls), "last-served": strconv.FormatFloat(r.LastServedS, 'f', 1, 64)}, err
	}},
	"budget": {budget.Schema, func(v param.Values) (map[string]string, error) {
		r, err := budget.Run(budget.FromValues(v))
		return map[string]string{"calls": itoa(r.Calls)}, err
	}},
	"storm": {storm.Schema, func(v param.Values) (map[string]string, error) {
		r, err := storm.Run(storm.FromValues(v))
		rec := "never"
		if r.RecoveredAfterS != nil {
			rec = itoa(*r.RecoveredAfterS)
		}
		return map[string]string{"healthy": itoa(r.Healthy), "slow": itoa(r.Slow), "recovered": rec}, err
	}},
	"outbox": {outbox.Schema, func(v param.Values) (map[string]string, error) {
		r, err := outbox.Run(outbox.FromValues(v))
		return map[string]string{"published": itoa(r.Published), "emails": itoa(r.Emails)}, err
	}},
	"saga": {saga.Schema, func(v param.Values) (map[string]string, error) {
		r, err := saga.Run(saga.FromValues(v))
		return map[string]string{"charges": itoa(r.Charges), "undos": itoa(r.Undos)}, err
	}},
	"ordering": {ordering.Schema, func(v param.Values) (map[string]string, error) {
		r, err := ordering.Run(ordering.FromValues(v))
		return map[string]string{"plan": r.Plan}, err
	}},
	"sent-marker": {sentmarker.Schema, func(v param.Values) (map[string]string, error) {
		r, err := sentmarker.Run(sentmarker.FromValues(v))
		return map[string]string{"sent": itoa(r.Sent)}, err
	}},
	"lease": {lease.Schema, func(v param.Values) (map[string]string, error) {
		r, err := lease.Run(lease.FromValues(v))
		return map[string]string{"charges": itoa(r.Charges), "retry": r.Retry, "receipt": r.Receipt, "payments": itoa(r.Payments)}, err
	}},
	"lock": {lock.Schema, func(v param.Values) (map[string]string, error) {
		r, err := lock.Run(lock.FromValues(v))
		done := "never"
		if r.DoneAt != nil {
			done = strconv.FormatFloat(*r.DoneAt, 'f', -1, 64)
		}
		return map[string]string{"charges": itoa(r.Charges), "sends": itoa(r.Sends), "conflicts": itoa(r.Conflicts),
			"replays": itoa(r.Replays), "unavailable": itoa(r.Unavailable), "done-at": done}, err
	}},
	"cas": {cas.Schema, func(v param.Values) (map[string]string, error) {
		r, err := cas.Run(cas.FromValues(v))
		return map[string]string{"shipments": itoa(r.Shipments), "version": itoa(r.Version)}, err
	}},
}

// The engine reproduces every row of the table.
func TestEngineFigures(t *testing.T) {
	for _, r := range figures.Rows {
		e, ok := engines[r.Model]
		if !ok {
			t.Errorf("no engine called %s", r.Model)
			continue
		}
		v, err := e.schema.Parse(r.Params)
		if err != nil {
			t.Errorf("%s, %s: %v", r.Model, r.Case, err)
			continue
		}
		got, err := e.run(v)
		if err != nil {
			t.Errorf("%s, %s: %v", r.Model, r.Case, err)
			continue
		}
		for k, want := range r.Want {
			if got[k] != want {
				t.Errorf("%s, %s: %s = %q, want %q", r.Model, r.Case, k, got[k], want)
			}
		}
	}
}
