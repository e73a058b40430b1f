package payment

import "testing"

// BenchmarkRun is one run at the default parameters: the double charge.
func BenchmarkRun(b *testing.B) {
	p := Binding.Defaults()
	for b.Loop() {
		if _, err := Run(p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunKeys is the same run with a key per intent, through the
// key store: fingerprint, claim, replay.
func BenchmarkRunKeys(b *testing.B) {
	p := Binding.Defaults()
	p.Keys = KeysPerIntent
	for b.Loop() {
		if _, err := Run(p); err != nil {
			b.Fatal(err)
		}
	}
}
