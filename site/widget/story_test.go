package widget

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// A trace of tens of thousands of events is listed storyRows at a time,
// those up to the step shown, and says which: the output stays about 33
// kilobytes for any values the declaration allows. (The lock's, here: 100
// senders of 100 attempts and no guard, 50,101 events; its 10,000 charges
// are 12 chips and a count, and marks a pixel apart on its time line one.
// Its output is 28,172 to 33,230 bytes at the steps below.)
func TestStoryListsAWindow(t *testing.T) {
	_, run := runAt(t, &Lock, map[string]string{"dupes": "100", "crash": "after-charge", "work": "604800", "attempts": "100", "guard": "none"}, 0)
	n := run.Steps()
	if n < 10*storyRows {
		t.Fatalf("the run has %d steps: too few to test the window", n)
	}
	rows := regexp.MustCompile(`<li class="k-([^"]*)"`)
	for _, c := range []struct {
		step       int
		first, cur string // the range line's first event and the one marked current
	}{
		{5, "1", "5"},
		{storyRows, "1", Figure(storyRows)},
		{1000, Figure(1000 - storyRows + 1), "1,000"},
		{n, Figure(n - storyRows + 1), ""},
	} {
		var h HTML
		run.Output(&h, c.step)
		out := h.String()
		listed := rows.FindAllStringSubmatch(out, -1)
		if len(listed) != storyRows {
			t.Errorf("step %d: %d events listed, want %d", c.step, len(listed), storyRows)
		}
		// The event marked current, by its number in the trace.
		first, _ := strconv.Atoi(strings.ReplaceAll(c.first, ",", ""))
		var current []string
		for i, m := range listed {
			if strings.HasSuffix(m[1], " current") {
				current = append(current, Figure(first+i))
			}
		}
		if want := []string{c.cur}; c.cur == "" && len(current) > 0 || c.cur != "" && !slices.Equal(current, want) {
			t.Errorf("step %d: events marked current %v, want %q", c.step, current, c.cur)
		}
		last := c.step
		if c.step < storyRows {
			last = storyRows
		}
		want := "Events " + c.first + " to " + Figure(last) + " of " + Figure(n)
		if !strings.Contains(out, want) {
			t.Errorf("step %d: the range line does not say %q", c.step, want)
		}
		if len(out) > 35_000 {
			t.Errorf("step %d: %d bytes of output, want at most 35,000", c.step, len(out))
		}
	}
	// A short trace is listed whole, without the line.
	out, run := runAt(t, &Lock, nil, atEnd)
	if got := len(rows.FindAllString(out, -1)); got != run.Steps() || strings.Contains(out, "w-story-range") {
		t.Errorf("the defaults' %d events: %d listed (range line: %v)", run.Steps(), got, strings.Contains(out, "w-story-range"))
	}
}

// The lock's time line draws key lives that meet as one: 100 senders of
// 100 attempts each checking the result key first (get-then-set), with a
// week's TTLs, set the key 9,899 times: drawn as 100 marks, in 64,479
// bytes of output.
func TestLockTimelineStaysSmall(t *testing.T) {
	out, run := runAt(t, &Lock, map[string]string{"dupes": "100", "attempts": "100", "crash": "after-charge", "work": "604800",
		"store": "down", "on-down": "fail-closed", "result-ttl": "604800", "timeout": "604800",
		"retry": "604800", "outage": "604800", "guard": "get-then-set"}, atEnd)
	if n := strings.Count(out, `class="lk-result`); n != 100 {
		t.Errorf("%d marks of the result key's 9,899 lives, want 100", n)
	}
	if len(out) > 68_000 {
		t.Errorf("%d bytes of output for %d steps, want at most 68,000", len(out), run.Steps())
	}
}
