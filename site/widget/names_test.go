package widget

import (
	"encoding/json"
	"regexp"
	"testing"
)

var (
	regions = []Region{RegionControls, RegionOutput, RegionPlayer, RegionStepNo, RegionStatus, RegionSettings, RegionSnippet, RegionPermalink, RegionCopied, RegionLinkCopied}
	actions = []Action{ActionPlay, ActionBack, ActionForward, ActionReplay, ActionRun, ActionScrub, ActionCopy, ActionReset, ActionAddItem, ActionRemoveItem}
)

// Every data-region and data-action a widget's markup carries is one of
// the declared names, and every declared name is in some widget's markup:
// a name written as a literal somewhere, or a declaration nothing draws,
// fails here.
func TestNamesAreTheMarkups(t *testing.T) {
	declared := map[string]bool{}
	for _, r := range regions {
		declared[`data-region="`+string(r)+`"`] = true
	}
	for _, a := range actions {
		declared[`data-action="`+string(a)+`"`] = true
	}
	attr := regexp.MustCompile(`data-(?:region|action)="[^"]*"`)
	drawn := map[string]bool{}
	for _, w := range All() {
		for _, m := range attr.FindAllString(render(t, w, nil), -1) {
			if !declared[m] {
				t.Errorf("%s: %s is not declared in names.go", w.Name, m)
			}
			drawn[m] = true
		}
	}
	for name := range declared {
		if !drawn[name] {
			t.Errorf("%s is declared but no widget draws it", name)
		}
	}
}

// The loader's selectors are a JSON object of the declared selectors,
// each matching the markup.
func TestSelectors(t *testing.T) {
	var got map[string]string
	if err := json.Unmarshal([]byte(Selectors()), &got); err != nil {
		t.Fatalf("Selectors() = %s: %v", Selectors(), err)
	}
	want := map[string]string{
		"output":     `[data-region="output"]`,
		"snippet":    `[data-region="snippet"]`,
		"copied":     `[data-region="copied"]`,
		"copy":       `[data-action="copy"]`,
		"permalink":  `[data-region="permalink"]`,
		"linkCopied": `[data-region="link-copied"]`,
	}
	if len(got) != len(want) {
		t.Errorf("Selectors() = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("selector %s = %q, want %q", k, got[k], v)
		}
	}
}
