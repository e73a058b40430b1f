package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/retrylab/retrylab/site/widget"
)

// fieldError is what the page shows of a value the widget cannot take.
type fieldError struct {
	Message     string   // the message's text ("" when there is none)
	Before      string   // the name of the control just before it
	Invalid     []string // the names of the controls marked aria-invalid
	DescribedBy string   // the message's id, if the invalid control points at it
	ID          string   // the message's id
	Role        string
	Stale       bool    // the output is marked stale
	Graphic     float64 // the opacity of the output's first chart, swatch or arrow; -1 without any
	Grey        bool    // the output is in greys, its text in the muted colour
	Label       string  // the visible label of the control before the message
	Min, Max    string  // that control's min and max
}

// fieldErrorOf reads the error state of the widget of p.
func (p *wpage) fieldErrorOf() fieldError {
	p.t.Helper()
	return evalT[fieldError](p.t, p.ctx, `(() => {
		const root = document.querySelector('`+p.root()+`');
		const out = root.querySelector('[data-region=output]');
		const msg = root.querySelector('.w-field-error');
		const invalid = [...root.querySelectorAll('[aria-invalid=true]')];
		let before = msg && msg.previousElementSibling, label = "";
		if (before && before.matches('fieldset')) label = before.querySelector('legend').textContent;
		else if (before) label = root.querySelector('label[for="' + before.id + '"]').textContent;
		const ctl = before && (before.matches('[name]') ? before : before.querySelector('[name]'));
		return {
			Message: msg ? msg.textContent : "", ID: msg ? msg.id : "", Role: msg ? msg.getAttribute('role') : "",
			Before: ctl ? ctl.name : "", Label: label,
			Min: ctl && ctl.getAttribute('min') || "", Max: ctl && ctl.getAttribute('max') || "",
			Invalid: invalid.map(e => e.name),
			DescribedBy: invalid.length ? invalid[0].getAttribute('aria-describedby') : "",
			Stale: out.hasAttribute('data-stale'), Graphic: `+graphicOpacity+`,
			Grey: getComputedStyle(out).filter === "grayscale(1)" &&
				getComputedStyle(out.querySelector('.w-outcome')).color === getComputedStyle(root.querySelector('.w-summary')).color,
		};
	})()`)
}

// graphicOpacity is the opacity of the first chart, swatch or arrow of the
// output (out), -1 without any.
const graphicOpacity = `(g => g ? +getComputedStyle(g).opacity : -1)(out.querySelector('svg, .w-swatch, .arrow'))`

// waitError waits until the widget shows an error, or none if want is
// false, and the output has finished fading.
func (p *wpage) waitError(want bool) fieldError {
	p.t.Helper()
	settled := `(() => { const root = document.querySelector('` + p.root() + `'), out = root.querySelector('[data-region=output]');
		const g = ` + graphicOpacity + `, f = getComputedStyle(out).filter;
		return !!root.querySelector('.w-field-error') === WANT && (WANT ? (g === -1 || g === 0.3) && f === "grayscale(1)" : (g === -1 || g === 1) && f === "none"); })()`
	p.waitJS(strings.ReplaceAll(settled, "WANT", strconv.FormatBool(want)))
	return p.fieldErrorOf()
}

var spanRE = regexp.MustCompile(`from (\S+) to (\S+?)[.:]`)

// checkShown checks an error as a reader meets it: the message names the
// control it sits beside by its label, that control alone is marked
// invalid and described by the message, the range the message states is
// the control's own min and max, and the output is dimmed.
func checkShown(t *testing.T, p *wpage, e fieldError, param string) {
	t.Helper()
	if e.Before != param {
		t.Errorf("%s: the message %q sits after %q, not beside %s", p.name, e.Message, e.Before, param)
	}
	if e.Label == "" || !strings.HasPrefix(e.Message, e.Label) {
		t.Errorf("%s: the message %q does not name the control by its label %q", p.name, e.Message, e.Label)
	}
	for _, name := range e.Invalid {
		if name != param {
			t.Errorf("%s: aria-invalid on %v, want %s alone", p.name, e.Invalid, param)
			break
		}
	}
	if len(e.Invalid) == 0 {
		t.Errorf("%s: no control is marked aria-invalid", p.name)
	}
	if e.ID == "" || e.DescribedBy != e.ID || e.Role != "alert" {
		t.Errorf("%s: message id %q, role %q; the control is described by %q", p.name, e.ID, e.Role, e.DescribedBy)
	}
	if m := spanRE.FindStringSubmatch(e.Message); m != nil {
		if strings.ReplaceAll(m[1], ",", "") != e.Min || strings.ReplaceAll(m[2], ",", "") != e.Max {
			t.Errorf("%s: the message says from %s to %s, the control's min and max are %s and %s", p.name, m[1], m[2], e.Min, e.Max)
		}
	}
	if !e.Stale || e.Graphic > 0.5 || !e.Grey {
		t.Errorf("%s: beside a bad value the output is not dimmed (stale %v, charts at opacity %v, grey %v)", p.name, e.Stale, e.Graphic, e.Grey)
	}
}

// checkCleared checks that a fixed value takes the error away.
func checkCleared(t *testing.T, p *wpage) {
	t.Helper()
	e := p.waitError(false)
	if e.Message != "" || len(e.Invalid) > 0 || e.Stale || e.Graphic != 1 && e.Graphic != -1 || e.Grey || p.rootData("error") != "" {
		t.Errorf("%s: after a good value the error stays: %+v", p.name, e)
	}
}

// Errors in the reader's words: the storm widget's "More parameters", as
// issue 12 found them, then a bad number in every widget.
func TestBrowserFieldErrors(t *testing.T) {
	ts := serveSite(t, builtSite(t))

	t.Run("storm more parameters", func(t *testing.T) {
		p := open(t, ts, "storm")
		p.openMore()
		calls := p.figure("calls")

		// Length (s) 10 is in conflict with Slowdown from (s) and to (s):
		// the message is about the field just changed.
		p.typeNumber("seconds", "10")
		e := p.waitError(true)
		if want := "Length (s) must be from 20 to 600: at least Slowdown to (s), which is 20."; e.Message != want {
			t.Errorf("Length (s) 10 says %q, want %q", e.Message, want)
		}
		checkShown(t, p, e, "seconds")
		axeNow(t, p)
		if p.figure("calls") != calls {
			t.Errorf("the output changed under a bad value")
		}
		p.typeNumber("seconds", "120")
		checkCleared(t, p)

		// Slowdown from (s) 599: the bound the message gives is the
		// input's own max.
		p.typeNumber("slow-from", "599")
		e = p.waitError(true)
		if want := "Slowdown from (s) must be from 0 to 19: below Slowdown to (s), which is 20."; e.Message != want {
			t.Errorf("Slowdown from (s) 599 says %q, want %q", e.Message, want)
		}
		checkShown(t, p, e, "slow-from")
		p.typeNumber("slow-from", "10")
		checkCleared(t, p)

		// Moving the end of the run moves the other fields' bounds.
		p.typeNumber("seconds", "300")
		// Settled: the simulator worker's answer drawn.
		p.settled()
		p.waitJS(`document.querySelector('` + p.control("slow-to") + `').max === "300"`)

		// Letters in a number field.
		sel := chromedp.CSS(p.control("timeout"))
		p.do(chromedp.Focus(sel), chromedp.KeyEvent("a", chromedp.KeyModifiers(chromedp.ModifierCtrl)), chromedp.KeyEvent("abc"+kb.Tab))
		if v := evalT[string](t, p.ctx, `document.querySelector('`+p.control("timeout")+`').value`); v != "" {
			t.Fatalf("typing abc left the timeout at %q", v)
		}
		e = p.waitError(true)
		if want := "Client timeout (s) needs a whole number from 1 to 60."; e.Message != want {
			t.Errorf(`"abc" says %q, want %q`, e.Message, want)
		}
		checkShown(t, p, e, "timeout")
		p.typeNumber("timeout", "3")
		checkCleared(t, p)
		p.clean()
	})

	// Every widget: clear its first whole number, or empty its list, and
	// read what it says; a widget of selects and checkboxes alone has no
	// value a reader can get wrong.
	for _, w := range widget.All() {
		var num, list, other *widget.Param
		for i, q := range w.Schema {
			switch {
			case q.Kind == widget.Int && num == nil:
				num = &w.Schema[i]
			case q.Kind == widget.EnumList && q.MinItems > 0 && q.Pad == "" && list == nil:
				list = &w.Schema[i]
			case q.Kind != widget.Enum && q.Kind != widget.Bool:
				other = &w.Schema[i]
			}
		}
		if num == nil && list == nil {
			if other != nil {
				t.Errorf("%s: %s, a %s, is not tested", w.Name, other.Name, other.Kind)
			}
			continue
		}
		t.Run(w.Name, func(t *testing.T) {
			p := open(t, ts, w.Name)
			if num == nil {
				// Every item of the list emptied, as a reader cannot
				// (Remove stops at the shortest list): the check still
				// holds.
				all := `document.querySelectorAll('` + p.control(list.Name) + `')`
				before := evalT[[]string](t, p.ctx, `[...`+all+`].map(s => s.value)`)
				setAll := func(values []string) {
					evalT[bool](t, p.ctx, `(() => { const v = `+jsArray(values)+`; const ss = [...`+all+`];
						ss.forEach((s, i) => s.value = v[i]); ss[0].dispatchEvent(new Event("change", {bubbles: true})); return true; })()`)
				}
				setAll(make([]string, len(before)))
				e := p.waitError(true)
				if want := list.Label + " needs at least 1 item."; e.Message != want {
					t.Errorf("an empty %s says %q, want %q", list.Label, e.Message, want)
				}
				checkShown(t, p, e, list.Name)
				setAll(before)
				checkCleared(t, p)
				return
			}
			if num.More {
				p.openMore()
			}
			p.typeNumber(num.Name, kb.Backspace)
			e := p.waitError(true)
			if !strings.Contains(e.Message, " needs a whole number from ") {
				t.Errorf("an empty %s says %q", num.Label, e.Message)
			}
			checkShown(t, p, e, num.Name)
			p.typeNumber(num.Name, num.Default)
			checkCleared(t, p)
		})
	}
}

// axeNow runs axe-core on the page as it stands, in light and dark: an
// error state breaks no rule, the contrast of the dimmed output included.
// axe-core goes in through the DevTools protocol, which the page's
// Content-Security-Policy does not govern.
func axeNow(t *testing.T, p *wpage) {
	t.Helper()
	evalT[bool](t, p.ctx, axeSource(t)+";true")
	for _, scheme := range []string{"light", "dark"} {
		if _, err := chromedp.Call(p.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
		}); err != nil {
			t.Fatal(err)
		}
		vs, err := chromedp.Run(p.ctx, chromedp.Evaluate[[]axeViolation](axeRun, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("%s: running axe-core: %v", scheme, err)
		}
		for _, v := range vs {
			t.Errorf("%s, %s: %s (%s): %s\n\t%s", p.name, scheme, v.ID, v.Impact, v.Help, strings.Join(v.Nodes, "\n\t"))
		}
	}
}

func jsArray(xs []string) string {
	quoted := make([]string, len(xs))
	for i, x := range xs {
		quoted[i] = strconv.Quote(x)
	}
	return "[" + strings.Join(quoted, ",") + "]"
}
