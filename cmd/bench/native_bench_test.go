package main

import "testing"

// BenchmarkModelCases runs each case the bench times, as it times it, for
// profiling: go test -run '^$' -bench 'ModelCases/ordering' -cpuprofile
// cpu.out ./cmd/bench/.
func BenchmarkModelCases(b *testing.B) {
	for _, mc := range modelCases {
		b.Run(mc.Model+"/"+mc.Case, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := mc.Time(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
