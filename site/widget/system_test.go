package widget

import (
	"regexp"
	"strings"
	"testing"
)

var (
	systemRootRE = regexp.MustCompile(`<div class="w-system" data-figure="system"[^>]*>`)
	tagAttrRE    = regexp.MustCompile(`\s(data-[a-z-]+|aria-[a-z-]+|class|role)="([^"]*)"`)
	partRE       = regexp.MustCompile(`<section class="w-part[^"]*" data-part="([^"]+)"`)
	linkRE       = regexp.MustCompile(`<div class="(w-link[^"]*)" data-link="([^"]+)" aria-hidden="true"><span class="w-carried">([^<]*)</span>`)
	altRE        = regexp.MustCompile(`<div class="w-system"[^>]*><p class="w-sr w-system-alt">([^<]*)</p>`)
)

// attrsOf reads the attributes of one start tag.
func attrsOf(tag string) map[string]string {
	m := map[string]string{}
	for _, a := range tagAttrRE.FindAllStringSubmatch(tag, -1) {
		m[a[1]] = a[2]
	}
	return m
}

// systemOf is the drawing's root attributes in html, which must hold one.
func systemOf(t *testing.T, html string) map[string]string {
	t.Helper()
	roots := systemRootRE.FindAllString(html, -1)
	if len(roots) != 1 {
		t.Fatalf("%d system drawings, want 1:\n%s", len(roots), html)
	}
	return attrsOf(roots[0])
}

// The drawing names its parts in order, draws a link between each two,
// and the step's item on the link it moves along, in the direction it
// moves; a move between parts that are not neighbours is drawn nowhere.
func TestSystemDrawsTheMove(t *testing.T) {
	parts := []Part{{Name: "a", Title: "A"}, {Name: "b", Title: "B"}, {Name: "c", Title: "C", Fault: "Broke", Faulted: true, Down: true}}
	draw := func(m Move) string {
		var h HTML
		drawSystem(&h, System{Label: "Three parts", Alt: "What the step shows.", Parts: parts, Move: m})
		return h.String()
	}
	html := draw(Move{From: "b", To: "c", Item: "msg_1", Outcome: "bad"})
	root := systemOf(t, html)
	if root["data-from"] != "b" || root["data-to"] != "c" || root["data-item"] != "msg_1" || root["aria-label"] != "Three parts" || root["role"] != "group" {
		t.Errorf("root: %v", root)
	}
	if alt := altRE.FindStringSubmatch(html); alt == nil || alt[1] != "What the step shows." {
		t.Errorf("the text alternative is not the drawing's first child:\n%s", html)
	}
	var names []string
	for _, m := range partRE.FindAllStringSubmatch(html, -1) {
		names = append(names, m[1])
	}
	if strings.Join(names, " ") != "a b c" {
		t.Errorf("parts %v, want a b c", names)
	}
	links := linkRE.FindAllStringSubmatch(html, -1)
	if len(links) != 2 {
		t.Fatalf("%d links, want 2:\n%s", len(links), html)
	}
	if links[0][1] != "w-link" || links[0][2] != "a-b" || links[0][3] != "" {
		t.Errorf("the link the item does not move along: %q", links[0][0])
	}
	if links[1][1] != "w-link moving bad" || links[1][2] != "b-c" || links[1][3] != "msg_1" {
		t.Errorf("the link the item moves along: %q", links[1][0])
	}
	if !strings.Contains(html, `<section class="w-part down" data-part="c"`) || !strings.Contains(html, `<p class="w-fault">Broke</p>`) {
		t.Errorf("the part that is down is not drawn so, or its fault is not shown:\n%s", html)
	}

	back := linkRE.FindAllStringSubmatch(draw(Move{From: "b", To: "a", Item: "ack"}), -1)
	if back[0][1] != "w-link moving back" || back[0][3] != "ack" || back[1][3] != "" {
		t.Errorf("a move back: %q, %q", back[0][0], back[1][0])
	}
	far := draw(Move{From: "a", To: "c", Item: "x"})
	if strings.Contains(far, "moving") || systemOf(t, far)["data-from"] != "" {
		t.Errorf("a move between parts that are not neighbours is drawn:\n%s", far)
	}
}

// A fault not reached yet keeps its place, hidden.
func TestSystemHoldsTheFault(t *testing.T) {
	var h HTML
	drawSystem(&h, System{Parts: []Part{{Name: "a", Title: "A", Fault: "Broke"}}})
	if !strings.Contains(h.String(), `<p class="w-fault held" aria-hidden="true">Broke</p>`) {
		t.Errorf("a fault to come is not held:\n%s", h.String())
	}
}

// At each step of the outbox's replay, the step's row or message moves
// between the parts it goes between: the commit from the app into the
// table, each publish from the relay to the broker (the second one the
// duplicate), the mark back to the table, and the deliveries to the
// consumer; the crash and the restart move nothing.
func TestOutboxSystemSteps(t *testing.T) {
	want := []string{
		"", // step 0
		"app>outbox evt_1",
		"relay>broker evt_1",
		"", // the crash
		"", // the restart
		"relay>broker evt_1 bad",
		"relay>outbox evt_1 good",
		"broker>consumer evt_1",
		"broker>consumer evt_1 good",
	}
	_, run := runAt(t, &Outbox, nil, 0)
	if run.Steps() != len(want)-1 {
		t.Fatalf("%d steps, want %d", run.Steps(), len(want)-1)
	}
	for step, w := range want {
		html, _ := runAt(t, &Outbox, nil, step)
		root := systemOf(t, html)
		got := ""
		if root["data-from"] != "" {
			got = root["data-from"] + ">" + root["data-to"] + " " + root["data-item"]
			for _, l := range linkRE.FindAllStringSubmatch(html, -1) {
				if strings.Contains(l[1], "moving") {
					for _, c := range []string{"good", "bad"} {
						if strings.Contains(l[1], c) {
							got += " " + c
						}
					}
				}
			}
		}
		if got != w {
			t.Errorf("step %d moves %q, want %q", step, got, w)
		}
	}
}

// The parts are the app, the table, the relay, the broker, the consumer
// and, when on, the inbox.
func TestOutboxSystemParts(t *testing.T) {
	for _, c := range []struct {
		inbox, want string
	}{{"on", "app outbox relay broker consumer inbox"}, {"off", "app outbox relay broker consumer"}} {
		var names []string
		for _, m := range partRE.FindAllStringSubmatch(render(t, &Outbox, map[string]string{"inbox": c.inbox}), -1) {
			names = append(names, m[1])
		}
		if got := strings.Join(names, " "); got != c.want {
			t.Errorf("inbox %s: parts %q, want %q", c.inbox, got, c.want)
		}
	}
}

// The relay's crash is marked on the relay from the step it happens, the
// relay drawn down until it restarts; the button on it that sets the crash
// is pressed while the crash is on. Without a crash there is no mark.
func TestOutboxSystemMarksTheCrash(t *testing.T) {
	const button = `data-action="toggle" data-param="relay-crash" aria-pressed="`
	const fault = `<p class="w-fault">Crashed before marking evt_1</p>`
	for step, c := range []struct{ down, marked bool }{{false, false}, {false, false}, {false, false}, {true, true}, {false, true}} {
		html, _ := runAt(t, &Outbox, nil, step)
		if got := strings.Contains(html, `<section class="w-part down" data-part="relay"`); got != c.down {
			t.Errorf("step %d: the relay drawn down: %v, want %v", step, got, c.down)
		}
		if got := strings.Contains(html, fault); got != c.marked {
			t.Errorf("step %d: the crash marked: %v, want %v", step, got, c.marked)
		}
		if !strings.Contains(html, button+`true"`) {
			t.Errorf("step %d: no pressed crash button on the relay", step)
		}
	}
	off := render(t, &Outbox, map[string]string{"relay-crash": "off"})
	if strings.Contains(off, "w-fault") || strings.Contains(off, "w-part down") {
		t.Error("without a crash, the relay is marked")
	}
	if !strings.Contains(off, button+`false"`) {
		t.Error("without a crash, the crash button is not there, unpressed")
	}
}

// The text alternative says what the step shows: where the item goes,
// and the event in words.
func TestOutboxSystemSaysTheStep(t *testing.T) {
	for step, want := range map[int]string{
		0: "Before the first step: no order yet.",
		2: "Step 2 of 8, relay to broker: Publish evt_1 to the broker.",
		3: "Step 3 of 8: The relay crashes before marking evt_1 sent.",
	} {
		html, _ := runAt(t, &Outbox, nil, step)
		if alt := altRE.FindStringSubmatch(html); alt == nil || alt[1] != want {
			t.Errorf("step %d: text alternative %q, want %q", step, alt, want)
		}
	}
}

// The story is folded under the drawing, closed.
func TestOutboxStoryFolded(t *testing.T) {
	html := render(t, &Outbox, nil)
	if !regexp.MustCompile(`<details class="w-events"><summary>Every event</summary><ol class="w-story"`).MatchString(html) {
		t.Errorf("the story is not folded under the drawing:\n%s", html)
	}
}

// The widgets that draw their system mark the drawing's root the same way,
// once, at the first step and at the end: the outbox's drawing, the
// payment's swimlane and the guard's grid of requests.
func TestSystemFigureMarked(t *testing.T) {
	marked := regexp.MustCompile(`<[a-z]+ class="([^"]+)" data-figure="system"`)
	for _, c := range []struct {
		w    *Widget
		root string
	}{{&Outbox, "w-system"}, {&Payment, "seq"}, {&Guard, "g-lanes"}} {
		for _, step := range []int{1, atEnd} {
			html, _ := runAt(t, c.w, nil, step)
			got := marked.FindAllStringSubmatch(html, -1)
			if len(got) != 1 || got[0][1] != c.root {
				t.Errorf("%s at step %d: data-figure=\"system\" on %v, want once, on .%s", c.w.Name, step, got, c.root)
			}
		}
	}
}
