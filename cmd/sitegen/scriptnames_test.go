package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/site/widget"
)

// A script gets the declared names in place of its mark, as a JSON object
// of the names site/widget declares; a name it uses that is not declared
// fails the build at its line, and so does a script that uses names
// without the mark, or holds two.
func TestWithNames(t *testing.T) {
	src := []byte("const names = /*names*/{};\nel.setAttribute(names.attr.busy, names.busy.loading);\n")
	got, err := withNames("a.js", src)
	if err != nil {
		t.Fatal(err)
	}
	obj, ok := bytes.CutPrefix(got, []byte("const names = "))
	obj, _, _ = bytes.Cut(obj, []byte(";\n"))
	var names map[string]map[string]string
	if err := json.Unmarshal(obj, &names); !ok || err != nil {
		t.Fatalf("withNames wrote %s: %v", got, err)
	}
	if names["attr"]["busy"] != string(widget.AttrBusy) || names["busy"]["loading"] != widget.BusyLoading {
		t.Errorf("the names written are %v", names)
	}
	if plain := []byte("let x = 1;\n"); !bytes.Equal(must(withNames("b.js", plain)), plain) {
		t.Error("a script that uses no names was changed")
	}
	for _, c := range []struct{ src, want string }{
		{"const names = /*names*/{};\n\nx(names.attr.parms);\n", "c.js:3: names.attr.parms is not declared (site/widget/names.go, ScriptNames: busy, embed, error,"},
		{"const names = /*names*/{};\nx(names.atr.params);\n", "c.js:2: names.atr: no such group of names"},
		{"x(names.attr.params);\n", "c.js: 0 places for the shared names (/*names*/{}), want one"},
		{"const names = /*names*/{};\nconst again = /*names*/{};\n", "c.js: 2 places for the shared names"},
	} {
		_, err := withNames("c.js", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("withNames(%q) = %v, want an error with %q", c.src, err, c.want)
		}
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// Every script of the site that names what the page and the module share
// takes the names from site/widget/names.go: none spells one of them out.
func TestScriptsSpellNoSharedName(t *testing.T) {
	root := repoRoot(t)
	files, _ := filepath.Glob(filepath.Join(root, "site", "static", "*.js"))
	files = append(files, filepath.Join(root, "site", "root", "embed.js"))
	var shared []string
	for _, group := range widget.ScriptNames() {
		for _, v := range group {
			if len(v) > 7 { // "replay", "loading": words a script may say in prose
				shared = append(shared, v)
			}
		}
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := withNames(f, src); err != nil {
			t.Error(err)
		}
		for _, v := range shared {
			if strings.Contains(string(src), `"`+v+`"`) {
				t.Errorf("%s spells out %q: use its name from site/widget/names.go (names.…)", filepath.Base(f), v)
			}
		}
	}
}
