package param_test

import (
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/retrylab/retrylab/engine/models"
	"github.com/retrylab/retrylab/engine/param"
	"github.com/retrylab/retrylab/engine/sim"
)

// Every model's check, which checks its typed fields, gives the answer
// of its schema's Check of the same parameters written out, error message
// and all: for each field of the defaults set in turn to values in and out
// of every bound the schemas declare, then for random mixes of several.
// A field bound to another parameter's declaration, or a bound the check
// reads otherwise than Parse does, is a parameter checked against other
// bounds, and one of these values shows it.
func TestCheckIsCheckOfRaw(t *testing.T) {
	for _, m := range models.All {
		cands := candidates(m.Schema)
		def := reflect.ValueOf(m.Params.Defaults())
		check := func(p reflect.Value, what string) {
			t.Helper()
			v := p.Interface()
			got, want := m.Params.Check(v), m.Schema.Check(m.Params.Raw(v))
			if errText(got) != errText(want) {
				t.Errorf("%s, %s: the check says %s, Check of Raw says %s", m.Name, what, errText(got), errText(want))
			}
		}
		check(def, "the defaults")
		for i := range def.NumField() {
			for _, c := range cands(def.Field(i).Type()) {
				p := reflect.New(def.Type()).Elem()
				p.Set(def)
				p.Field(i).Set(c)
				check(p, def.Type().Field(i).Name+" = "+show(c))
			}
		}
		const seed = 1
		r := sim.NewRand(seed)
		for n := range 2000 {
			p := reflect.New(def.Type()).Elem()
			p.Set(def)
			what := ""
			for range 1 + r.Intn(3) {
				i := r.Intn(def.NumField())
				cs := cands(def.Field(i).Type())
				c := cs[r.Intn(len(cs))]
				p.Field(i).Set(c)
				what += def.Type().Field(i).Name + " = " + show(c) + ", "
			}
			check(p, fmt.Sprintf("mix %d of seed %d: %s", n, seed, what))
		}
	}
}

// candidates returns, for a field's type, values in and out of the bounds
// and allowed values the schema declares.
func candidates(s param.Schema) func(reflect.Type) []reflect.Value {
	var nums []float64
	var words, items []string
	for _, p := range s {
		for _, b := range []float64{p.Min, p.Max} {
			nums = append(nums, b-1, b-0.5, b-0.001, b, b+0.001, b+0.5, b+1)
		}
		words = append(words, p.Allowed...)
		if p.Kind == param.EnumList {
			items = append(items, p.Allowed...)
		}
	}
	nums = append(nums, 0, 0.1, 2.5, 86400, math.NaN(), math.Inf(1))
	words = append(words, "", "bogus")
	if len(words) > 2 {
		words = append(words, " "+words[0]+" ")
	}
	dur := reflect.TypeFor[time.Duration]()
	return func(t reflect.Type) []reflect.Value {
		var out []reflect.Value
		switch {
		case t == dur:
			for _, f := range nums {
				if !math.IsNaN(f) && !math.IsInf(f, 0) && math.Abs(f) < 1e9 {
					out = append(out, reflect.ValueOf(time.Duration(f*float64(time.Second))))
				}
			}
		case t.Kind() == reflect.Int || t.Kind() == reflect.Int64 || t.Kind() == reflect.Uint64:
			for _, f := range nums {
				if f == math.Trunc(f) && math.Abs(f) < 1e15 {
					out = append(out, reflect.ValueOf(int64(f)).Convert(t))
				}
			}
		case t.Kind() == reflect.Float64:
			for _, f := range nums {
				out = append(out, reflect.ValueOf(f))
			}
		case t.Kind() == reflect.Bool:
			out = append(out, reflect.ValueOf(true), reflect.ValueOf(false))
		case t.Kind() == reflect.String:
			for _, w := range words {
				out = append(out, reflect.ValueOf(w).Convert(t))
			}
		case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.String:
			list := func(ws ...string) reflect.Value {
				l := reflect.MakeSlice(t, len(ws), len(ws))
				for i, w := range ws {
					l.Index(i).Set(reflect.ValueOf(w).Convert(t.Elem()))
				}
				return l
			}
			out = append(out, reflect.Zero(t), list(""), list("bogus"), list(" "+items[0]))
			for n := range 12 {
				for k := range items {
					ws := make([]string, n)
					for i := range ws {
						ws[i] = items[(k+i)%len(items)]
					}
					out = append(out, list(ws...), list(append(ws, "bogus")...))
				}
			}
		default:
			panic("no candidates for a field of type " + t.String())
		}
		return out
	}
}

func errText(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}

func show(v reflect.Value) string { return fmt.Sprintf("%#v", v.Interface()) }
