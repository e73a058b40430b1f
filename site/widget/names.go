package widget

import "strings"

// Region is the data-region of a part of a widget that the page's scripts
// look for: the module (wasm/) and the loader (site/static/loader.js). Each
// name is declared here once; the module uses the constants, and the loader
// reads the selectors the page carries (Selectors), so a rename here
// renames it everywhere.
type Region string

// The regions of a widget.
const (
	RegionControls  Region = "controls"  // the parameters' form
	RegionOutput    Region = "output"    // the figure the engine's run draws
	RegionPlayer    Region = "player"    // the replay controls
	RegionStepNo    Region = "stepno"    // "Step 3 of 9"
	RegionStatus    Region = "status"    // what changed, for screen readers
	RegionSettings  Region = "settings"  // the settings of the run shown, in words (SettingsCaption)
	RegionSnippet   Region = "snippet"   // the embed snippet's text area
	RegionPermalink Region = "permalink" // the link to the widget's state
	RegionCopied    Region = "copied"    // what Copy did
	// What a click on the permalink did: copied it, or not.
	RegionLinkCopied Region = "link-copied"
)

// Selector is the CSS selector of the region.
func (r Region) Selector() string { return `[data-region="` + string(r) + `"]` }

// Action is the data-action of a control of a widget: what it does.
type Action string

// The actions of a widget's controls.
const (
	ActionPlay    Action = "play"    // play or pause the replay
	ActionBack    Action = "back"    // a step back
	ActionForward Action = "forward" // a step forward
	ActionReplay  Action = "replay"  // replay from the start (submits the form)
	ActionRun     Action = "run"     // run again (submits the form of a widget without replay)
	ActionScrub   Action = "scrub"   // the scrubber
	ActionCopy    Action = "copy"    // copy the embed snippet
	ActionReset   Action = "reset"   // back to the values the page was built with
)

// Selector is the CSS selector of the control.
func (a Action) Selector() string { return `[data-action="` + string(a) + `"]` }

// The actions of a list parameter's control (ListControl).
const (
	ActionAddItem    Action = "add-item"    // add an item to the list
	ActionRemoveItem Action = "remove-item" // remove this item of the list
)

// loaderSelectors are the parts of a widget the loader finds, by the name
// it knows them by.
var loaderSelectors = [][2]string{
	{"output", RegionOutput.Selector()},
	{"snippet", RegionSnippet.Selector()},
	{"copied", RegionCopied.Selector()},
	{"copy", ActionCopy.Selector()},
	{"permalink", RegionPermalink.Selector()},
	{"linkCopied", RegionLinkCopied.Selector()},
}

// Selectors is the JSON object the loader's script element carries in
// data-selectors: the selector of each part of a widget the loader looks
// for, by the name it knows it by ("output", "snippet", "copied", "copy",
// "permalink", "linkCopied").
func Selectors() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, kv := range loaderSelectors {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(quote(kv[0]) + ":" + quote(kv[1]))
	}
	b.WriteByte('}')
	return b.String()
}
