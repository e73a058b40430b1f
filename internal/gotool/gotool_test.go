package gotool

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
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

// TestWasmFlagsLeaveTheFloorAlone holds WasmFlags' no-inlining patterns
// off every package of bench/hello, the floor the page's module is
// measured against: a pattern that matched one (the whole module's
// "/...", say) would move the floor along with the module.
func TestWasmFlagsLeaveTheFloorAlone(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-deps", "./bench/hello")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./bench/hello: %v", err)
	}
	pkgs := strings.Fields(string(out))
	if !slices.Contains(pkgs, "runtime") || !slices.Contains(pkgs, "syscall/js") {
		t.Fatalf("go list -deps ./bench/hello listed %q, want runtime and syscall/js among them", pkgs)
	}
	noInline := 0
	for _, f := range WasmFlags {
		pattern, ok := strings.CutSuffix(strings.TrimPrefix(f, "-gcflags="), "=-l")
		if !ok {
			continue
		}
		noInline++
		for _, p := range pkgs {
			if matches(pattern, p) {
				t.Errorf("WasmFlags' %s turns inlining off in %s, a package of the floor (bench/hello)", f, p)
			}
		}
	}
	if noInline == 0 {
		t.Fatalf("WasmFlags %q have no -gcflags=PATTERN=-l", WasmFlags)
	}
}

// matches reports whether the go command's package pattern (a path, or a
// path ending in "/...") matches the import path p.
func matches(pattern, p string) bool {
	if prefix, ok := strings.CutSuffix(pattern, "/..."); ok {
		return p == prefix || strings.HasPrefix(p, prefix+"/")
	}
	return p == pattern
}

// TestModulePathIsGoMods keeps WasmFlags' patterns on this module: were
// go.mod's path to change, they would match nothing and inline everything.
func TestModulePathIsGoMods(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(mod), "\n")
	if want := "module " + modulePath; strings.TrimSpace(first) != want {
		t.Fatalf("go.mod begins %q, want %q", first, want)
	}
}
