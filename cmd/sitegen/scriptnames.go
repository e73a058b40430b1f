package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/retrylab/retrylab/site/widget"
)

// namesMark is where a script of the site takes the names it shares with
// the page and the module: `const names = /*names*/{};`. The build writes
// site/widget's ScriptNames, as a JSON object, in place of the empty one.
const namesMark = "/*names*/{}"

// nameRef is a script's use of a shared name: names.attr.params.
var nameRef = regexp.MustCompile(`\bnames\.(\w+)\.(\w+)`)

// scriptNames is the JSON object written in place of namesMark.
var scriptNames = func() []byte {
	b, err := json.Marshal(widget.ScriptNames()) // a map's keys are sorted
	if err != nil {
		panic(err)
	}
	return b
}()

// withNames is the script src, from file, with the shared names written
// in: a script that uses names must hold namesMark once, and every name it
// uses must be one site/widget/names.go declares, or the build fails at
// the line that names it. A script that uses none is returned as it is.
func withNames(file string, src []byte) ([]byte, error) {
	refs := nameRef.FindAllSubmatchIndex(src, -1)
	marks := bytes.Count(src, []byte(namesMark))
	if len(refs) == 0 && marks == 0 {
		return src, nil
	}
	if marks != 1 {
		return nil, fmt.Errorf("%s: %d places for the shared names (%s), want one", file, marks, namesMark)
	}
	declared := widget.ScriptNames()
	var errs []string
	for _, r := range refs {
		group, key := string(src[r[2]:r[3]]), string(src[r[4]:r[5]])
		if _, ok := declared[group][key]; ok {
			continue
		}
		line := 1 + bytes.Count(src[:r[0]], []byte("\n"))
		if _, ok := declared[group]; !ok {
			errs = append(errs, fmt.Sprintf("%s:%d: names.%s: no such group of names (site/widget/names.go, ScriptNames: %s)", file, line, group, strings.Join(slices.Sorted(maps.Keys(declared)), ", ")))
		} else {
			errs = append(errs, fmt.Sprintf("%s:%d: names.%s.%s is not declared (site/widget/names.go, ScriptNames: %s)", file, line, group, key, strings.Join(slices.Sorted(maps.Keys(declared[group])), ", ")))
		}
	}
	if len(errs) > 0 {
		return nil, errors.New(strings.Join(errs, "\n"))
	}
	return bytes.Replace(src, []byte(namesMark), scriptNames, 1), nil
}
