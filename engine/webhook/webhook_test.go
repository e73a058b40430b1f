package webhook

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retrylab/retrylab/engine/figures"
	"github.com/retrylab/retrylab/engine/param"
	"github.com/retrylab/retrylab/engine/sim"
)

// TestPublishedFigures runs every published case of the model.
func TestPublishedFigures(t *testing.T) {
	rows := figures.Of("webhook")
	if len(rows) == 0 {
		t.Fatal("no published figures for webhook")
	}
	for _, row := range rows {
		v, err := Binding.Schema.Parse(row.Params)
		if err != nil {
			t.Fatalf("%s: %v", row.Case, err)
		}
		res, err := Run(Binding.Read(v))
		if err != nil {
			t.Fatalf("%s: %v", row.Case, err)
		}
		got := map[string]string{
			"fulfilled":  itoa(res.Fulfilled),
			"forged":     itoa(res.Forged),
			"deliveries": itoa(res.Deliveries),
		}
		for k, want := range row.Want {
			if got[k] != want {
				t.Errorf("%s: %s = %s, want %s\n%s", row.Case, k, got[k], want, story(res))
			}
		}
	}
}

func story(r Result) string {
	var b strings.Builder
	for _, e := range r.Trace {
		b.WriteString(e.Sentence() + "\n")
	}
	return b.String()
}

func itoa(n int) string { return param.Number(float64(n)) }

// TestDefaultStory checks the default run event by event: the lost
// answer, the retry that finds its id, the forgery and the replay
// refused, each for its own reason.
func TestDefaultStory(t *testing.T) {
	res, err := Run(Binding.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range res.Trace {
		got = append(got, sim.Span(e.At)+" "+e.Kind.String()+" "+e.Detail)
	}
	want := []string{
		"0 s post ", "0 s queue ", "0 s lost ",
		"10 s timeout ",
		"20 s fulfil ",
		"70 s post ", "70 s seen ", "70 s answer ",
		"5 min post forged", "5 min refuse signature",
		"48 h post replay", "48 h refuse timestamp",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("trace:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !res.Delivered || res.Refused != 2 {
		t.Errorf("delivered %v, refused %d: want true, 2", res.Delivered, res.Refused)
	}
}

// TestBackoffDoubles checks the sender's schedule when every delivery
// fails: 60 s after the first failure, then 120, 240 and 480, five in all.
func TestBackoffDoubles(t *testing.T) {
	p := Binding.Defaults()
	p.Reply, p.Lost, p.Dedupe = AfterWork, false, false
	res, err := Run(p)
	if err != nil {
		t.Fatal(err)
	}
	var at []time.Duration
	for _, e := range res.Trace {
		if e.Kind == Post && e.Lane == "sender" {
			at = append(at, e.At)
		}
	}
	want := []time.Duration{0, 70 * time.Second, 200 * time.Second, 450 * time.Second, 940 * time.Second}
	if len(at) != len(want) {
		t.Fatalf("deliveries at %v, want %v", at, want)
	}
	for i := range want {
		if at[i] != want[i] {
			t.Fatalf("deliveries at %v, want %v", at, want)
		}
	}
	gaveUp := slices.ContainsFunc(res.Trace, func(e sim.Event) bool { return e.Kind == GiveUp && e.N == Deliveries })
	if res.Delivered || !gaveUp {
		t.Errorf("delivered %v; want the sender to give up after its fifth", res.Delivered)
	}
}

// TestEverySentenceIsWritten checks that no event falls back to its
// kind's bare name.
func TestEverySentenceIsWritten(t *testing.T) {
	for _, row := range figures.Of("webhook") {
		v, _ := Binding.Schema.Parse(row.Params)
		res, _ := Run(Binding.Read(v))
		for _, e := range res.Trace {
			if s := e.Sentence(); s == e.Kind.String() || !strings.HasSuffix(s, ".") {
				t.Errorf("%s: %s has no sentence: %q", row.Case, e.Kind, s)
			}
		}
	}
}
