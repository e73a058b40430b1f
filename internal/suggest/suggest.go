// Package suggest finds the name an author most likely meant when a
// name is not one of those allowed: a widget, a parameter, a value, a
// front matter field, a page or a section. Every error that lists what is
// allowed asks it, so that one rule decides what "close" means.
package suggest

// Closest is the candidate closest to s, if one is close enough to be a
// likely meaning of a typo: at most a third of its letters apart (two for
// a short one, where a swap of two letters is two edits), and not every
// letter of either ("c" does not mean "a"). It is "" when none is, or when
// s is a candidate itself.
func Closest(s string, candidates []string) string {
	best, bestD := "", max(2, len(s)/3)+1
	for _, c := range candidates {
		if c == s {
			return ""
		}
		if d := distance(s, c); d < bestD && d < len(s) && d < len(c) {
			best, bestD = c, d
		}
	}
	return best
}

// DidYouMean is "did you mean X? " for the closest candidate to s
// (Closest), to open the parenthesis of a message that lists the
// candidates, or "" when none is close.
func DidYouMean(s string, candidates []string) string {
	if c := Closest(s, candidates); c != "" {
		return "did you mean " + c + "? "
	}
	return ""
}

// distance is the Levenshtein distance between a and b, in bytes.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
