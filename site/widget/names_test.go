package widget

import (
	"regexp"
	"testing"
)

var (
	regions = []Region{RegionControls, RegionOutput, RegionPlayer, RegionStepNo, RegionStatus, RegionSettings, RegionSnippet, RegionPermalink, RegionCopied, RegionLinkCopied}
	actions = []Action{ActionPlay, ActionBack, ActionForward, ActionRun, ActionScrub, ActionCopy, ActionReset, ActionAddItem, ActionRemoveItem, ActionToggle}
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

// The names the scripts get are the declared ones, each a name no other
// key of its group shares, and the selectors match the markup.
func TestScriptNames(t *testing.T) {
	names := ScriptNames()
	for group, m := range names {
		seen := map[string]string{}
		for key, v := range m {
			if v == "" {
				t.Errorf("names.%s.%s is empty", group, key)
			}
			if other, dup := seen[v]; dup {
				t.Errorf("names.%s.%s and names.%s.%s are both %q", group, key, group, other, v)
			}
			seen[v] = key
		}
	}
	want := map[string]string{
		"output":     `[data-region="output"]`,
		"snippet":    `[data-region="snippet"]`,
		"copied":     `[data-region="copied"]`,
		"copy":       `[data-action="copy"]`,
		"permalink":  `[data-region="permalink"]`,
		"linkCopied": `[data-region="link-copied"]`,
		"simulators": `[data-widget]:not([data-widget="live"])`,
	}
	for k, v := range want {
		if got := names["sel"][k]; got != v {
			t.Errorf("names.sel.%s = %q, want %q", k, got, v)
		}
	}
}
