package widget

import (
	"regexp"
	"strings"
	"testing"
)

func TestWords(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Figure(0), "0"},
		{Figure(999), "999"},
		{Figure(99997), "99,997"},
		{Figure(-1234567), "−1,234,567"},
		{Decimal(19932.74, 1), "19,932.7"},
		{Decimal(4, 1), "4.0"},
		{Decimal(-0.01, 1), "0.0"},
		{Count(1, "call"), "1 call"},
		{Count(0, "call"), "0 calls"},
		{Count(100050000, "call"), "100,050,000 calls"},
		{Count(2, "retry"), "2 retries"},
		{Count(3, "delivery"), "3 deliveries"},
		{Count(2, "day"), "2 days"},
		{Count(2, "box"), "2 boxes"},
		{Count(2, "replayed answer"), "2 replayed answers"},
		{List(nil), ""},
		{List([]string{"ch_1"}), "ch_1"},
		{List([]string{"ch_1", "ch_2"}), "ch_1 and ch_2"},
		{List([]string{"a", "b", "c"}), "a, b and c"},
		{Clauses([]string{"a, b"}), "a, b"},
		{Clauses([]string{"a", "b, c"}), "a; and b, c"},
		{Clauses([]string{"a", "b", "c"}), "a; b; and c"},
		{Times(0) + "/" + Times(1) + "/" + Times(2) + "/" + Times(1000), "never/once/twice/1,000 times"},
		{Pick(1, "is", "are") + Pick(2, "is", "are"), "isare"},
		{Money(123456789), "1,234,567.89"},
		{Capital("no jitter"), "No jitter"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

var outcomeTextRE = regexp.MustCompile(`(?s)<p class="w-outcome"[^>]*>(.*?)</p>`)

// outcomeText is the sentence of the outcome of w run with raw, at its end.
func outcomeText(t *testing.T, w *Widget, raw map[string]string) string {
	t.Helper()
	html, _ := runAt(t, w, raw, 1<<30)
	m := outcomeTextRE.FindStringSubmatch(html)
	if m == nil {
		t.Fatalf("%s %v: no outcome", w.Name, raw)
	}
	return m[1]
}

// The outcomes write counts with their plural and figures with their
// thousands separated, and list ids as a sentence does.
func TestOutcomeWords(t *testing.T) {
	for _, c := range []struct {
		w      *Widget
		raw    map[string]string
		has    []string
		hasNot []string
	}{
		{&Backoff, map[string]string{"clients": "1", "compare": "off"},
			[]string{"No jitter: 1 call for 1 client, in 1 wave;"}, []string{"1 calls"}},
		{&Backoff, map[string]string{"clients": "100000", "compare": "off"},
			[]string{"100,050,000 calls for 100,000 clients, in 2,000 waves; the last client is served at 19,932.7 s."}, nil},
		{&Budget, map[string]string{"requests": "100000"},
			[]string{"Without a budget 100,000 failing requests send 400,000 calls; with it, 110,009.",
				"The bucket let 10,009 retries through; 99,997 refused."}, []string{"refused 99997"}},
		{&Budget, map[string]string{"requests": "1"}, []string{"Without a budget 1 failing request sends "}, nil},
		{&Payment, map[string]string{"faults": "lose-response, lose-response", "attempts": "3"},
			[]string{"Charged 3 times for one payment. The client holds ch_3; ch_1 and ch_2 are money taken that it never heard of."}, nil},
		{&Payment, map[string]string{"faults": "lose-response", "attempts": "2"},
			[]string{"The client holds ch_2; ch_1 is money taken"}, nil},
		{&Storm, nil, []string{"Goodput 80/s before the slowdown, 20/s during it; it never recovers in 120 s:", "gave up."}, nil},
		{&Storm, map[string]string{"new": "10000"},
			[]string{"overloaded before any slowdown", "against 10,000 new ones"}, []string{"recovers"}},
		{&Storm, map[string]string{"capacity": "1"}, []string{"overloaded before any slowdown"}, []string{"recovers"}},
		{&Storm, map[string]string{"new": "0"}, []string{"No requests arrive"}, []string{"recovers as soon"}},
		{&Storm, map[string]string{"slow-from": "0"}, []string{"The slowdown starts at once", "it is never healthy in 120 s"}, []string{"recovers"}},
		{&Storm, map[string]string{"budget": "on"}, []string{"it recovers 20 s after the slowdown ends."}, nil},
		{&Storm, map[string]string{"budget": "on", "skip-expired": "on"}, []string{"it recovers as soon as the slowdown ends."}, nil},
	} {
		text := outcomeText(t, c.w, c.raw)
		for _, s := range c.has {
			if !strings.Contains(text, s) {
				t.Errorf("%s %v says %q, which lacks %q", c.w.Name, c.raw, text, s)
			}
		}
		for _, s := range c.hasNot {
			if strings.Contains(text, s) {
				t.Errorf("%s %v says %q, with %q", c.w.Name, c.raw, text, s)
			}
		}
	}
}
