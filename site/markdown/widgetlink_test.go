package markdown

import (
	"github.com/retrylab/retrylab/site/widget"
	"strings"
	"testing"
)

// A page with two payment widgets and a backoff between them: the links
// below name them payment-1, backoff-1 and payment-2.
const linkPage = fm + // 1-3
	"\n```widget payment\nkeys: off\nfaults: lose-response, ok\n```\n" + // 4-8
	"\n```widget backoff\n```\n" + // 9-11
	"\n```widget payment\nattempts: 2\n```\n" // 12-15

func TestWidgetLink(t *testing.T) {
	src := linkPage + "\nNow [send the *same* key](widget:payment-1?keys=per-intent \"try it\"),\n" +
		"or [lose the request](widget:payment-2?faults=lose-request%2Cok) instead.\n"
	p, err := conv.Convert(path, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	links := elements(p.Body, "data-widget-link")
	if len(links) != 2 {
		t.Fatalf("got %d widget links, want 2:\n%s", len(links), p.Body)
	}
	// The state is the block's with the link's parameters set: the
	// second link keeps its block's 2 attempts. A permalink leaves out
	// the values at their defaults (payment-1's faults, lose-response).
	for i, want := range []map[string]string{
		{"data-widget-link": "payment-1", "href": "?w=payment-1&keys=per-intent#w-payment-1", "title": "try it"},
		{"data-widget-link": "payment-2", "href": "?w=payment-2&attempts=2&faults=lose-request#w-payment-2"},
	} {
		for k, v := range want {
			if links[i][k] != v {
				t.Errorf("link %d: %s=%q, want %q", i+1, k, links[i][k], v)
			}
		}
		if len(links[i]) != len(want) {
			t.Errorf("link %d has attributes %v, want %v", i+1, links[i], want)
		}
	}
	if !strings.Contains(p.Body, `>send the <em>same</em> key</a>`) {
		t.Errorf("the link's text is not rendered as written:\n%s", p.Body)
	}
	// Nothing of the markdown's destination reaches the page.
	if strings.Contains(p.Body, "widget:") {
		t.Errorf("a widget: destination is left in the page:\n%s", p.Body)
	}
}

// Each mistake in a link is an error at its line, in the words a widget
// block's error uses, and one build reports them all.
func TestWidgetLinkErrors(t *testing.T) {
	src := linkPage +
		"\nFirst [one](widget:payment-3?keys=off).\n" + // 17
		"Then\n[two](widget:payment-1?keys=maybe).\n" + // 18-19
		"[three](widget:backoff-1?jiter=full)\n" + // 20
		"[four](widget:payment-2?attempts=11)\n" + // 21
		"[five](widget:?keys=off)\n" + // 22
		"[](widget:payment-1?keys=%zz)\n" // 23
	_, err := conv.Convert(path, []byte(src))
	if err == nil {
		t.Fatal("bad links converted without an error")
	}
	ids := "payment-1, backoff-1, payment-2"
	want := strings.Join([]string{
		path + `:17: widget link payment-3: no such widget in this page (the page has: ` + ids + `)`,
		path + `:19: widget link payment-1: keys: "maybe" is not allowed (allowed: off, per-intent, per-attempt)`,
		path + `:20: widget link backoff-1: unknown parameter "jiter" (known: ` + strings.Join(widget.Backoff.Schema.Names(), ", ") + `)`,
		path + `:21: widget link payment-2: attempts: "11" is out of bounds (allowed: 1 to 10)`,
		path + `:22: widget link : missing the widget: write "widget:NAME-N?param=value" (the page has: ` + ids + `)`,
		path + `:23: widget link payment-1: query: "keys=%zz" is not valid URL encoding`,
	}, "\n")
	if err.Error() != want {
		t.Errorf("errors:\n%v\nwant:\n%s", err, want)
	}

	_, err = conv.Convert(path, []byte(fm+"\nSee [it](widget:payment-1).\n"))
	if want := path + ":5: widget link payment-1: no such widget in this page (the page has: no widgets)"; err == nil || err.Error() != want {
		t.Errorf("a link in a page without widgets: %v, want %s", err, want)
	}
}

// A widget block with errors is reported once, at its line: the links to
// it are not reported for its errors, and it keeps its place in the
// numbering, so that links to the widgets after it are checked as ever.
func TestWidgetLinkToABlockWithErrors(t *testing.T) {
	for _, c := range []struct {
		name, blocks, links string
		want                []string
	}{{
		name:   "misspelt widget",
		blocks: "\n```widget paymnet\nkeys: off\n```\n",           // 4-7
		links:  "\nSee [it](widget:payment-1?keys=per-intent).\n", // 9
		want:   []string{`:5: widget "paymnet": unknown widget (did you mean payment?`},
	}, {
		name:   "bad value",
		blocks: "\n```widget payment\nkeys: of\n```\n",
		links:  "\nSee [it](widget:payment-1?keys=per-intent).\n",
		want:   []string{`:6: widget payment: keys: "of" is not allowed (did you mean off?`},
	}, {
		name:   "a name like none",
		blocks: "\n```widget zzzzzz\n```\n",                       // 4-6
		links:  "\nSee [it](widget:payment-1?keys=per-intent).\n", // 8
		want:   []string{`:5: widget "zzzzzz": unknown widget (known:`},
	}, {
		name: "the widgets after it keep their numbers",
		blocks: "\n```widget paymnet\n```\n" + // 4-6
			"\n```widget payment\nattempts: 2\n```\n", // 7-10
		links: "\nSee [it](widget:payment-2?keys=off), [the first](widget:payment-1),\n" + // 12
			"[none](widget:payment-3) and [a bad value](widget:payment-2?keys=maybe).\n", // 13
		want: []string{
			`:5: widget "paymnet": unknown widget (did you mean payment?`,
			`:13: widget link payment-3: no such widget in this page (the page has: payment-2)`,
			`:13: widget link payment-2: keys: "maybe" is not allowed`,
		},
	}} {
		t.Run(c.name, func(t *testing.T) {
			_, err := conv.Convert(path, []byte(fm+c.blocks+c.links))
			if err == nil {
				t.Fatal("converted without an error")
			}
			got := strings.Split(err.Error(), "\n")
			if len(got) != len(c.want) {
				t.Fatalf("errors:\n%v\nwant %d, starting:\n%s", err, len(c.want), strings.Join(c.want, "\n"))
			}
			for i, w := range c.want {
				if !strings.HasPrefix(got[i], path+w) {
					t.Errorf("error %d: %s\nwant it to start %s", i+1, got[i], path+w)
				}
			}
		})
	}
}
