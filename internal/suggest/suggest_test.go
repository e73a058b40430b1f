package suggest

import "testing"

func TestClosest(t *testing.T) {
	widgets := []string{"backoff", "budget", "lease", "lock", "payment", "replay"}
	for _, c := range []struct {
		typo string
		list []string
		want string
	}{
		{"paymnet", widgets, "payment"}, // two letters swapped
		{"paymnt", widgets, "payment"},  // one left out
		{"lokc", widgets, "lock"},       // a short one: two edits
		{"leese", widgets, "lease"},     // one changed
		{"payment", widgets, ""},        // a name that is right needs no suggestion
		{"storm", widgets, ""},          // too far from every one
		{"what-to-tri", []string{"keys", "what-to-try"}, "what-to-try"},
		{"per-intnt", []string{"off", "per-intent", "per-attempt"}, "per-intent"},
		{"c", []string{"a", "b"}, ""},        // every letter apart
		{"of", []string{"off", "on"}, "off"}, // the nearer of two
		{"x", nil, ""},
	} {
		if got := Closest(c.typo, c.list); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.typo, got, c.want)
		}
	}
	if got := DidYouMean("titel", []string{"date", "title"}); got != "did you mean title? " {
		t.Errorf("DidYouMean = %q", got)
	}
	if got := DidYouMean("author", []string{"date", "title"}); got != "" {
		t.Errorf("DidYouMean with none close = %q, want \"\"", got)
	}
}
