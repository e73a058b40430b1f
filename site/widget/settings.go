package widget

import (
	"strings"

	"github.com/retrylab/retrylab/site/chart"
)

// Settings says in words which values v holds, every parameter in the
// order its widget declares them, each by its control's label: "Idempotency
// keys: off; Network, attempt by attempt: lose-response, then ok;
// Attempts: 3; Amount (cents): 2,500". Without JavaScript the controls
// are hidden, and this caption says what produced the run shown.
func Settings(v Values) string {
	parts := make([]string, 0, len(v.Values.Schema()))
	for _, p := range v.Values.Schema() {
		parts = append(parts, p.Label+": "+setting(p, v))
	}
	return strings.Join(parts, "; ")
}

// SettingsCaption writes the caption's content for v: "Settings:" in
// bold, then Settings(v). The page's module writes it again for every run
// it draws, so that a printed page says what produced the figures on it.
func SettingsCaption(h *HTML, v Values) {
	h.Elem("strong", "Settings:").Text(" " + Settings(v) + ".")
}

// setting is one parameter's value as a reader reads it: a list's items
// and, where the list stops short of its count, what the rest stand for
// ("lose-response, then ok"); a number as exact as its control's, its
// thousands separated; a value by the word its control shows for it
// (word).
func setting(p Param, v Values) string {
	switch p.Kind {
	case Bool:
		return v.Text(p.Name) // on, off
	case Int, Float:
		return chart.Group(v.Text(p.Name)) // 2,500; 0.001
	case Enum:
		return word(p, v.String(p.Name))
	}
	items := v.List(p.Name)
	words := make([]string, len(items), len(items)+1)
	for i, it := range items {
		words[i] = word(p, it)
	}
	if p.Pad != "" && len(items) < ListLimit(p, v) {
		rest := word(p, p.Pad)
		if len(items) > 0 {
			rest = "then " + rest
		}
		words = append(words, rest)
	}
	return strings.Join(words, ", ")
}

// word is what the control shows for the value x, its gloss in brackets
// where the control writes it after a colon: "none: no jitter" reads
// "none (no jitter)" among the caption's colons.
func word(p Param, x string) string {
	w := p.Word(x)
	if name, gloss, ok := strings.Cut(w, ": "); ok {
		return name + " (" + gloss + ")"
	}
	return w
}
