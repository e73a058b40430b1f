package outbox

import (
	"slices"
	"testing"
)

// A relay that crashes after publishing but before marking publishes the
// event again: 2 events on the broker; a consumer inbox keyed by event id
// sends 1 email (the package documentation).
func TestFigures(t *testing.T) {
	for _, c := range []struct {
		crash, inbox      bool
		published, emails int
	}{
		{true, true, 2, 1},
		{true, false, 2, 2},
		{false, true, 1, 1},
		{false, false, 1, 1},
	} {
		res, err := Run(Params{Orders: 1, RelayCrash: c.crash, Inbox: c.inbox})
		if err != nil {
			t.Fatal(err)
		}
		if res.Orders != 1 || res.Events != 1 || res.Published != c.published || res.Emails != c.emails {
			t.Errorf("crash %v inbox %v: %+v; want %d published, %d emails", c.crash, c.inbox, res.Summary, c.published, c.emails)
		}
	}
}

// With several orders only the event caught by the crash goes out twice,
// and the inbox turns every event into exactly one email.
func TestOnlyTheUnmarkedEventRepeats(t *testing.T) {
	res, _ := Run(Params{Orders: 5, RelayCrash: true, Inbox: true})
	if res.Published != 6 || res.Emails != 5 || res.Skipped != 1 {
		t.Fatalf("%+v; want 6 published, 5 emails, 1 skipped", res.Summary)
	}
	var kinds []string
	for _, e := range res.Trace {
		kinds = append(kinds, e.Kind.String())
	}
	if i := slices.Index(kinds, "crash"); i < 0 || kinds[i-1] != "publish" || kinds[i+1] != "restart" {
		t.Fatalf("trace kinds %v: want publish, crash, restart", kinds)
	}
}

func TestValidate(t *testing.T) {
	if _, err := Run(Params{Orders: 0}); err == nil || err.Error() != `orders: "0" is out of bounds (allowed: 1 to 5)` {
		t.Fatalf("error %v", err)
	}
	for n := 1; n <= 5; n += 2 {
		for _, b := range []bool{false, true} {
			res, err := Run(Params{Orders: n, RelayCrash: b, Inbox: !b})
			if err != nil || res.Emails < n || res.Published < n {
				t.Fatalf("orders %d: %+v, %v", n, res.Summary, err)
			}
		}
	}
}

func BenchmarkOutbox(b *testing.B) {
	p := Binding.Defaults()
	for b.Loop() {
		if _, err := Run(p); err != nil {
			b.Fatal(err)
		}
	}
}
