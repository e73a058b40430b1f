package widget

import (
	"reflect"
	"testing"
)

// sent records what a Latest sends.
type sent struct {
	seqs []int
	reqs []string
}

func (s *sent) send(seq int, req string) {
	s.seqs = append(s.seqs, seq)
	s.reqs = append(s.reqs, req)
}

// A run answered after a newer request never shows: three changes made
// while the first computes send the first and the third, and only the
// third's answer counts.
func TestLatestDropsStaleAnswers(t *testing.T) {
	var s sent
	l := Latest[string]{Send: s.send}
	a := l.Ask("clients=100000")
	l.Ask("clients=99999")
	c := l.Ask("clients=10")
	if !reflect.DeepEqual(s.reqs, []string{"clients=100000"}) {
		t.Fatalf("sent %v while the first was out, want only the first", s.reqs)
	}
	if !l.Waiting() {
		t.Fatal("not waiting with three requests unanswered")
	}
	if req, ok := l.Answered(a); ok {
		t.Fatalf("the answer to the first of three requests counts (%q)", req)
	}
	if !reflect.DeepEqual(s.seqs, []int{a, c}) || s.reqs[1] != "clients=10" {
		t.Fatalf("sent %v %v, want the first and then the newest (%d, %d), the one between skipped", s.seqs, s.reqs, a, c)
	}
	// The stale answer again, as a worker might post it twice: dropped.
	if _, ok := l.Answered(a); ok {
		t.Fatal("a second answer to the first request counts")
	}
	req, ok := l.Answered(c)
	if !ok || req != "clients=10" {
		t.Fatalf("the newest request's answer: %q %v, want clients=10 true", req, ok)
	}
	if l.Waiting() {
		t.Fatal("still waiting once the newest request is answered")
	}
	// With nothing out, a request goes at once.
	d := l.Ask("step=3")
	if len(s.seqs) != 3 || s.seqs[2] != d {
		t.Fatalf("sent %v, want the request made when none was out sent at once", s.seqs)
	}
	if req, ok := l.Answered(d); !ok || req != "step=3" {
		t.Fatalf("answer to the only request: %q %v", req, ok)
	}
}

// A form refused while a run computes drops it: its answer does not draw
// the values the reader has since left, and nothing more is sent.
func TestLatestDrop(t *testing.T) {
	var s sent
	l := Latest[string]{Send: s.send}
	a := l.Ask("requests=100000")
	l.Ask("requests=50000")
	l.Drop()
	if l.Waiting() {
		t.Fatal("waiting after Drop")
	}
	if _, ok := l.Answered(a); ok {
		t.Fatal("the answer to a dropped request counts")
	}
	if len(s.seqs) != 1 {
		t.Fatalf("sent %v: the request waiting at Drop was sent", s.reqs)
	}
	// A request after Drop, while the dropped one is still out, waits
	// for its answer and then counts.
	b := l.Ask("requests=1000")
	c := l.Ask("requests=2000")
	if len(s.seqs) != 2 || s.seqs[1] != b {
		t.Fatalf("sent %v, want the request after Drop at once", s.seqs)
	}
	if _, ok := l.Answered(b); ok {
		t.Fatal("an answer overtaken by a newer request counts")
	}
	if req, ok := l.Answered(c); !ok || req != "requests=2000" {
		t.Fatalf("answer to the newest: %q %v", req, ok)
	}
}

// Resend hands the request out to Send again, under its number, and its
// answer counts once.
func TestLatestResend(t *testing.T) {
	var s sent
	l := Latest[string]{Send: s.send}
	if l.Resend() {
		t.Fatal("Resend with nothing out sent something")
	}
	a := l.Ask("x")
	if !l.Resend() || !reflect.DeepEqual(s.seqs, []int{a, a}) {
		t.Fatalf("sent %v, want request %d twice", s.seqs, a)
	}
	if req, ok := l.Answered(a); !ok || req != "x" {
		t.Fatalf("answer to the resent request: %q %v", req, ok)
	}
	if _, ok := l.Answered(a); ok {
		t.Fatal("the second answer to a resent request counts")
	}
}
