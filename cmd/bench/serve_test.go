package main

import "testing"

func TestRebuiltMs(t *testing.T) {
	got, err := rebuiltMs("sitegen: rebuilt in 0.123s, reloading pages")
	if err != nil || got != 123 {
		t.Errorf("rebuiltMs = %v, %v; want 123", got, err)
	}
	if _, err := rebuiltMs("sitegen: build failed, still serving the previous site:"); err == nil {
		t.Error("a line without a time gave one")
	}
}
