package main

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// forEach calls do(i) for every i from 0 to n-1, on up to workers
// goroutines at once (GOMAXPROCS when workers is 0 or less; 1 calls them
// in order, one at a time). Each call must write only its own results
// (the i-th of a slice), so that what a build writes does not depend on
// the order in which the calls ran.
func forEach(n, workers int, do func(i int)) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if workers = min(workers, n); workers <= 1 {
		for i := range n {
			do(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				do(i)
			}
		})
	}
	wg.Wait()
}
