package gotool

import (
	"os"
	"path/filepath"
	"testing"
)

func TestModuleRootFindsGoModAbove(t *testing.T) {
	root, err := ModuleRoot() // the test runs in internal/gotool
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("ModuleRoot = %s, which holds no go.mod", root)
	}
	if wd, _ := os.Getwd(); filepath.Join(root, "internal", "gotool") != wd {
		t.Fatalf("ModuleRoot = %s from %s, want two levels up", root, wd)
	}
}
