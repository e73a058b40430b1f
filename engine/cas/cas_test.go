package cas

import (
	"slices"
	"testing"
)

// ship(order, version 7) twice: the first ships and bumps the version to 8,
// the second changes nothing (the package documentation). Without the
// compare, each call ships and bumps again.
func TestFigures(t *testing.T) {
	res, err := Run(Binding.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	if res.Shipments != 1 || res.Version != 8 || !slices.Equal(res.Updated, []int{1, 0}) {
		t.Fatalf("%+v; want 1 shipment, version 8, rows [1 0]", res.Summary)
	}
	res, _ = Run(Params{Calls: 2, CAS: false})
	if res.Shipments != 2 || res.Version != 9 {
		t.Fatalf("without CAS: %+v; want 2 shipments, version 9", res.Summary)
	}
}

func TestAnyNumberOfCalls(t *testing.T) {
	for n := 1; n <= 10; n++ {
		on, _ := Run(Params{Calls: n, CAS: true})
		off, _ := Run(Params{Calls: n, CAS: false})
		if on.Shipments != 1 || on.Version != Read+1 || off.Shipments != n || off.Version != Read+n || len(on.Trace) != 2*n {
			t.Fatalf("%d calls: with CAS %+v, without %+v", n, on.Summary, off.Summary)
		}
	}
	if _, err := Run(Params{Calls: 0}); err == nil || err.Error() != `calls: "0" is out of bounds (allowed: 1 to 10)` {
		t.Fatalf("error %v", err)
	}
}

func BenchmarkCAS(b *testing.B) {
	p := Binding.Defaults()
	for b.Loop() {
		if _, err := Run(p); err != nil {
			b.Fatal(err)
		}
	}
}
