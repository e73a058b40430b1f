package stream

import (
	"strings"
	"testing"

	"github.com/retrylab/retrylab/engine/figures"
	"github.com/retrylab/retrylab/engine/param"
)

// TestPublishedFigures runs every published case of the model.
func TestPublishedFigures(t *testing.T) {
	rows := figures.Of("stream")
	if len(rows) == 0 {
		t.Fatal("no published figures for stream")
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
			"written": itoa(res.Written),
			"records": itoa(res.Records),
			"effects": itoa(res.Effects),
			"orders":  itoa(res.Orders),
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

// TestDefaultStory checks the default run event by event: the retry the
// broker drops, the crash whose transaction is aborted, order 2 processed
// again, and the consumer's crash that emails order 2 twice.
func TestDefaultStory(t *testing.T) {
	res, err := Run(Binding.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range res.Trace {
		s := e.Kind.String() + " " + e.Ref
		if e.Detail == "again" {
			s += " again"
		}
		got = append(got, s)
	}
	want := []string{
		"read order_1", "produce order_1", "append order_1", "ack-lost order_1", "produce order_1", "duplicate order_1", "commit order_1",
		"read order_2", "produce order_2", "append order_2", "crash order_2", "abort order_2", "restart ",
		"read order_2 again", "produce order_2", "append order_2", "commit order_2",
		"read order_3", "produce order_3", "append order_3", "commit order_3",
		"deliver order_1", "email order_1", "advance ",
		"deliver order_2", "email order_2", "down ", "resume ",
		"deliver order_2 again", "email order_2", "advance ",
		"deliver order_3", "email order_3", "advance ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("trace:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if res.ByOrder != [Orders]int{1, 2, 1} || res.Aborted != 1 {
		t.Errorf("emails by order %v, aborted %d: want [1 2 1], 1", res.ByOrder, res.Aborted)
	}
}

// TestTheLogKeepsTheAbortedRecord checks that an abort marks a record
// rather than removing it: the read_uncommitted consumer is returned it,
// at its position, between order 1 and order 2's committed record.
func TestTheLogKeepsTheAbortedRecord(t *testing.T) {
	p := Binding.Defaults()
	p.Isolation = ReadUncommitted
	res, err := Run(p)
	if err != nil {
		t.Fatal(err)
	}
	want := []Record{{Order: 1, Tx: true, Copy: 1}, {Order: 2, Tx: true, Aborted: true, Copy: 1}, {Order: 2, Tx: true, Copy: 2}, {Order: 3, Tx: true, Copy: 1}}
	if len(res.Log) != len(want) {
		t.Fatalf("log %+v, want %+v", res.Log, want)
	}
	for i := range want {
		if res.Log[i] != want[i] {
			t.Fatalf("log %+v, want %+v", res.Log, want)
		}
	}
	if res.Seen != [Orders]int{1, 2, 1} {
		t.Errorf("records read by order %v, want [1 2 1]", res.Seen)
	}
}

// TestEverySentenceIsWritten checks that no event falls back to its
// kind's bare name.
func TestEverySentenceIsWritten(t *testing.T) {
	for _, row := range figures.Of("stream") {
		v, _ := Binding.Schema.Parse(row.Params)
		res, _ := Run(Binding.Read(v))
		for _, e := range res.Trace {
			if s := e.Sentence(); s == e.Kind.String() || !strings.HasSuffix(s, ".") {
				t.Errorf("%s: %s has no sentence: %q", row.Case, e.Kind, s)
			}
		}
	}
}
