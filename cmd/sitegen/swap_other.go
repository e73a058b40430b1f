//go:build !linux

package main

// replaceDir puts the tree at tmp in place of the one at out and returns the
// path where the previous tree now is ("" when out did not exist), for the
// caller to remove. Without an atomic exchange, out is missing for the
// moment between two renames.
func replaceDir(tmp, out string) (string, error) {
	return replaceDirAside(tmp, out)
}
