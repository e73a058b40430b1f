package handbook

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The targets for how a chapter reads: at most 20 words a sentence on
// average, and at most one sentence in twenty longer than LongSentence.
const (
	maxAverage     = 20
	longSentenceIn = 20
)

// Every chapter reads well by the targets, counted over its prose
// exactly as Sentences defines it; a chapter over them is reported with
// its figures and its longest sentences.
func TestChaptersReadWell(t *testing.T) {
	chapters, err := filepath.Glob("../../content/*.md")
	if err != nil || len(chapters) < 20 {
		t.Fatalf("%d chapters found (%v)", len(chapters), err)
	}
	for _, path := range chapters {
		base := filepath.Base(path)
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		sentences := Sentences(src)
		f := Measure(sentences)
		if f.Sentences == 0 {
			t.Errorf("%s: no sentences found", base)
			continue
		}
		t.Logf("%s: %d sentences, %.1f words on average, %d over %d words", base, f.Sentences, f.Average(), f.Long, LongSentence)
		if f.Average() <= maxAverage && f.Long*longSentenceIn <= f.Sentences {
			continue
		}
		worst := slices.Clone(sentences)
		slices.SortStableFunc(worst, func(a, b Sentence) int { return b.Words - a.Words })
		var b strings.Builder
		for _, s := range worst[:min(8, len(worst))] {
			if s.Words <= maxAverage {
				break
			}
			fmt.Fprintf(&b, "\n\t%s:%d (%d words) %s", base, s.Line, s.Words, s.Text)
		}
		t.Errorf("%s: %d sentences, %.1f words on average (at most %d), %d over %d words (at most %d):%s",
			base, f.Sentences, f.Average(), maxAverage, f.Long, LongSentence, f.Sentences/longSentenceIn, b.String())
	}
}

// Sentences counts prose only, splits where a sentence ends before a
// capital, and counts words that have a letter or a digit.
func TestSentences(t *testing.T) {
	src := "---\ntitle: Not. Counted\n---\n\n" +
		"# A heading. Not counted\n\n" +
		"The first, e.g. with `code` and [a link](/x/), ends here. The second asks? Yes!\n" +
		"It goes on (a 409. Then) \"quoted.\" Done \u2014 with 3 words.\n\n" +
		"- A list item. Two\n  sentences\n\n" +
		"```go\nfmt.Println(\"Not. Counted\")\n```\n\n" +
		"| A. Table | Not. Counted |\n|---|---|\n| x. Y | z |\n\n" +
		"<p>Raw. HTML</p>\n\n" +
		"> Quoted prose. Counted\n"
	var got []string
	for _, s := range Sentences([]byte(src)) {
		got = append(got, fmt.Sprintf("%d %d %s", s.Line, s.Words, s.Text))
	}
	want := []string{
		"7 10 The first, e.g. with code and a link, ends here.",
		"7 3 The second asks?",
		"7 1 Yes!",
		"7 5 It goes on (a 409.",
		"7 2 Then) \"quoted.\"",
		"7 4 Done \u2014 with 3 words.",
		"10 3 A list item.",
		"10 2 Two sentences",
		"23 2 Quoted prose.",
		"23 1 Counted",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Sentences =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	f := Measure([]Sentence{{Words: 36}, {Words: 35}, {Words: 1}})
	if f.Sentences != 3 || f.Words != 72 || f.Long != 1 || f.Average() != 24 {
		t.Errorf("Measure = %+v, average %v", f, f.Average())
	}
}
