package playground

import (
	"reflect"
	"testing"
)

// An include block, which reads the repository's files, says at its line
// that the page has none, and the draft gets no preview.
func TestIncludeSaysThePageHasNoFiles(t *testing.T) {
	src := "---\ntitle: T\n---\n\nProse.\n\n```go include=engine/payment/client.go#Pay\n```\n"
	got := New("https://retrylab.example").Render([]byte(src))
	want := []Problem{{7, "include engine/payment/client.go#Pay: " + errNoFiles.Error()}}
	if !reflect.DeepEqual(got.Problems, want) {
		t.Errorf("problems %+v, want %+v", got.Problems, want)
	}
	if got.HTML != "" {
		t.Errorf("a draft with a problem has a preview: %.80s", got.HTML)
	}
}

// Every problem of a draft is listed, each at its own line, in line
// order: an author fixes them all from one list.
func TestEveryProblemAtItsLine(t *testing.T) {
	src := "---\ntitle: T\n---\n\n```widget paymnt\n```\n\n```widget payment\nkeys: maybe\n```\n\n```go\nfunc f() {}\n"
	got := New("").Render([]byte(src)).Problems
	var lines []int
	for _, p := range got {
		lines = append(lines, p.Line)
	}
	if want := []int{5, 9, 12}; !reflect.DeepEqual(lines, want) {
		t.Errorf("problems at lines %v, want %v: %+v", lines, want, got)
	}
}
