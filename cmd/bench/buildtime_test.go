package main

import (
	"os/exec"
	"testing"
	"time"
)

// A build's CPU time counts the processes it waited for, as sitegen waits
// for Pagefind: here a shell that counts to 100,000 inside another, which
// takes well over 20 ms of CPU on any machine (about 0.4 s on the 2-core
// build machine), while the outer shell itself only waits.
func TestRunTimedCountsWaitedForProcesses(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Fatal("no sh:", err)
	}
	cmd := exec.Command("sh", "-c", `sh -c 'i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done'; true`)
	took, err := runTimed(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if took.CPU < 20*time.Millisecond {
		t.Errorf("CPU %v for the inner shell's count, want at least 20ms", took.CPU)
	}
	if took.Wall <= 0 {
		t.Errorf("wall time %v", took.Wall)
	}
}
