package widget

// The names the page and its scripts share: the data attributes, classes,
// events and globals by which the generator's markup, the module (wasm/)
// and the site's JavaScript (site/static, site/root/embed.js) find one
// another. Each is declared here once. Go uses the constants; a script
// gets them from ScriptNames, which the build writes into it (cmd/sitegen,
// scriptnames.go), and a script that names one this file does not declare
// fails the build.

// Region is the data-region of a part of a widget that the page's scripts
// look for.
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
	ActionRun     Action = "run"     // run again (submits the form of a widget without replay)
	ActionScrub   Action = "scrub"   // the scrubber
	ActionCopy    Action = "copy"    // copy the embed snippet
	ActionReset   Action = "reset"   // back to the values the page was built with
	// A button on a figure that turns the on/off parameter its data-param
	// names on or off, as its checkbox does (toggleButton).
	ActionToggle Action = "toggle"
)

// Selector is the CSS selector of the control.
func (a Action) Selector() string { return `[data-action="` + string(a) + `"]` }

// The actions of a list parameter's control (ListControl).
const (
	ActionAddItem    Action = "add-item"    // add an item to the list
	ActionRemoveItem Action = "remove-item" // remove this item of the list
)

// Attr is a data attribute of a widget's root (or of the page's html
// element) that the generator, the module or the loader reads or sets.
type Attr string

// The data attributes of a widget's root.
const (
	AttrWidget     Attr = "data-widget"      // the widget's name (Widget.Name)
	AttrParams     Attr = "data-params"      // the values of the run shown, as JSON (Values.JSON)
	AttrStep       Attr = "data-step"        // the step shown
	AttrSteps      Attr = "data-steps"       // the steps of the run shown
	AttrHydrated   Attr = "data-hydrated"    // "true" once the module has wired the controls
	AttrHydratedAt Attr = "data-hydrated-at" // when, in ms of performance.now()
	AttrBusy       Attr = "data-busy"        // BusyLoading or BusyRunning: a change is on its way
	AttrPending    Attr = "data-pending"     // PendingReplay: Replay was pressed before the module ran
	AttrError      Attr = "data-error"       // the message of the widget's error box (ClassError)
	AttrPlaying    Attr = "data-playing"     // "true" while the replay plays
	AttrMS         Attr = "data-ms"          // ms from the last change to its run drawn
)

// The data attributes of a page's html element, or of an element in it.
const (
	AttrEmbed        Attr = "data-embed"         // the page is an embed page (/embed/NAME/)
	AttrWidgetsLater Attr = "data-widgets-later" // the page draws its widgets after it loads (the playground)
)

// The values of AttrBusy and AttrPending.
const (
	BusyLoading   = "loading" // changed before the module runs: "loading the simulator…"
	BusyRunning   = "running" // a run takes longer than a glance: "running…"
	PendingReplay = "replay"
)

// LiveWidget is the AttrWidget of the live API panel (site/markdown,
// live.js), which is no simulator: the module and the loader leave it alone.
const LiveWidget = "live"

// Simulators is the selector of every simulator's root in a page.
const Simulators = `[` + string(AttrWidget) + `]:not([` + string(AttrWidget) + `="` + LiveWidget + `"])`

// The classes the page's scripts look for or draw.
const (
	ClassOutcome    = "w-outcome"     // the run's outcome: its headline figures, and the sentence announced
	ClassError      = "w-error"       // the widget's error box, drawn by the loader (role=alert)
	ClassEmbed      = "w-embed"       // the Embed panel, its snippet and Copy
	ClassChanged    = "w-changed"     // a control a prose link changed, for a moment
	ClassFieldError = "w-field-error" // the message under a control whose value was refused
)

// The events, messages, frame names and globals by which the scripts and
// the module speak to one another.
const (
	// EventWidgets is sent on the document by a page that has drawn new
	// widgets (AttrWidgetsLater): the module hydrates them.
	EventWidgets = "retrylab:widgets"
	// EventError is sent by the module on a widget's root, its detail the
	// message, "" to take it away: the loader draws the error box.
	EventError = "retrylab:error"
	// MessageHeight is the type of the message an embed page posts to
	// the page that frames it, with its height (embed.js).
	MessageHeight = "retrylab:height"
	// SnippetFrame is the name embed.js gives the frames it makes.
	SnippetFrame = "retrylab-snippet"
	// GlobalWorker is the simulator worker the loader started, on window.
	GlobalWorker = "retrylabWorker"
	// GlobalServe is what the module calls in the worker, once, with its
	// answer to a request (simworker.js).
	GlobalServe = "retrylabServe"
)

// ScriptNames are the names a script may use, by group and key, as the
// build writes them into it: names.attr.params is "data-params".
func ScriptNames() map[string]map[string]string {
	attrs := map[string]string{}
	for key, a := range map[string]Attr{
		"widget": AttrWidget, "params": AttrParams, "step": AttrStep, "steps": AttrSteps,
		"hydrated": AttrHydrated, "hydratedAt": AttrHydratedAt, "busy": AttrBusy, "pending": AttrPending,
		"error": AttrError, "ms": AttrMS,
		"embed": AttrEmbed, "widgetsLater": AttrWidgetsLater,
	} {
		attrs[key] = string(a)
	}
	return map[string]map[string]string{
		"attr":    attrs,
		"busy":    {"loading": BusyLoading, "running": BusyRunning},
		"pending": {"replay": PendingReplay},
		"cls":     {"error": ClassError, "embed": ClassEmbed},
		"sel": {
			"simulators": Simulators,
			"output":     RegionOutput.Selector(),
			"snippet":    RegionSnippet.Selector(),
			"copied":     RegionCopied.Selector(),
			"copy":       ActionCopy.Selector(),
			"permalink":  RegionPermalink.Selector(),
			"linkCopied": RegionLinkCopied.Selector(),
		},
		"event":   {"widgets": EventWidgets, "error": EventError},
		"message": {"height": MessageHeight},
		"frame":   {"snippet": SnippetFrame},
		"global":  {"worker": GlobalWorker, "serve": GlobalServe},
	}
}
