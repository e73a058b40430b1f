package markdown

import (
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// fixture is a Go file with one declaration of every kind an include can
// pick. Line numbers matter: the tests name them.
const fixture = `package fixture

import "time"

// Limit is the most a call may take.
const Limit = 3 * time.Second

// The policies.
const (
	None = "none" // no wait
	Full = "full"
)

var (
	// hits counts calls.
	hits int
	_    = hits
)

type (
	// Pair is two ints.
	Pair struct{ A, B int }
	// Name is a name.
	Name string // trailing comment
)

// Box holds a value.
type Box[T any] struct {
	v T
}

// Get returns the value.
func (b *Box[T]) Get() T { return b.v }

// Len is Name's length.
func (n Name) Len() int { return len(n) }

// Wait waits.
func Wait(d time.Duration) {
	_ = d
}
`

// fixtureRoot writes the fixture as pkg/fixture.go, with a text file and
// an empty one beside it, in a new folder, and returns the folder.
func fixtureRoot(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"pkg/fixture.go":  fixture,
		"pkg/schema.sql":  "CREATE TABLE idem (\n  key text PRIMARY KEY\n);", // no final newline
		"pkg/empty.go":    "",
		"pkg/broken.go":   "package broken\n\nfunc f( {\n",
		"outside/note.md": "outside the root\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// lines returns lines first to last of s, 1-based, each with its newline.
func lines(s string, first, last int) string {
	all := strings.SplitAfter(s, "\n")
	return strings.Join(all[first-1:last], "")
}

var (
	figureRe  = regexp.MustCompile(`(?s)<figure class="include">\n<figcaption>(.*?)</figcaption>\n(.*?)</figure>\n`)
	spanTagRe = regexp.MustCompile(`<[^>]+>`)
)

// included returns the code and caption of each include figure in body,
// the code reduced to its text.
func included(t *testing.T, body string) (codes, captions []string) {
	t.Helper()
	for _, m := range figureRe.FindAllStringSubmatch(body, -1) {
		codes = append(codes, html.UnescapeString(spanTagRe.ReplaceAllString(m[2], "")))
		captions = append(captions, m[1])
	}
	return codes, captions
}

func TestInclude(t *testing.T) {
	root := fixtureRoot(t)
	c := New(WithSourceRoot(root))
	tests := []struct {
		spec        string
		text        string // the code shown
		first, last int    // its lines in the file
	}{
		{"pkg/fixture.go#Wait", lines(fixture, 38, 41), 38, 41},
		{"pkg/fixture.go#Box.Get", lines(fixture, 32, 33), 32, 33},  // pointer receiver, type parameter
		{"pkg/fixture.go#Name.Len", lines(fixture, 35, 36), 35, 36}, // value receiver
		{"pkg/fixture.go#Box", lines(fixture, 27, 30), 27, 30},
		// A type of a group comes alone, doc and trailing comment included, unindented.
		{"pkg/fixture.go#Name", "// Name is a name.\nName string // trailing comment\n", 23, 24},
		{"pkg/fixture.go#Pair", "// Pair is two ints.\nPair struct{ A, B int }\n", 21, 22},
		// A const or var name gives its whole block.
		{"pkg/fixture.go#Full", lines(fixture, 8, 12), 8, 12},
		{"pkg/fixture.go#Limit", lines(fixture, 5, 6), 5, 6},
		{"pkg/fixture.go#hits", lines(fixture, 14, 18), 14, 18},
		{"pkg/fixture.go#L3-L6", lines(fixture, 3, 6), 3, 6},
		{"pkg/fixture.go#L1", "package fixture\n", 1, 1},
		{"pkg/fixture.go", fixture, 1, 41},
		// A file without a final newline gets one; lines work in any language.
		{"pkg/schema.sql", "CREATE TABLE idem (\n  key text PRIMARY KEY\n);\n", 1, 3},
		{"pkg/schema.sql#L2-L3", "  key text PRIMARY KEY\n);\n", 2, 3},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			lang := "go"
			if strings.Contains(tt.spec, ".sql") {
				lang = "sql"
			}
			p, err := c.Convert(path, []byte(fm+"\n```"+lang+" include="+tt.spec+"\n```\n"))
			if err != nil {
				t.Fatal(err)
			}
			codes, captions := included(t, p.Body)
			if len(codes) != 1 {
				t.Fatalf("got %d include figures, want 1:\n%s", len(codes), p.Body)
			}
			if codes[0] != tt.text {
				t.Errorf("code:\n%s\nwant:\n%s", codes[0], tt.text)
			}
			file, _, _ := strings.Cut(tt.spec, "#")
			want := "<code>" + file + "</code>, lines " + strconv.Itoa(tt.first) + "–" + strconv.Itoa(tt.last)
			if tt.first == tt.last {
				want = "<code>" + file + "</code>, line " + strconv.Itoa(tt.first)
			}
			if captions[0] != want {
				t.Errorf("caption %q, want %q", captions[0], want)
			}
		})
	}
}

// TestIncludeHighlight checks that included code is highlighted exactly as
// the same code written in a fenced block.
func TestIncludeHighlight(t *testing.T) {
	root := fixtureRoot(t)
	c := New(WithSourceRoot(root))
	for _, tt := range []struct{ lang, spec, text string }{
		{"go", "pkg/fixture.go#Wait", lines(fixture, 38, 41)},
		{"sql", "pkg/schema.sql", "CREATE TABLE idem (\n  key text PRIMARY KEY\n);\n"},
		{"nosuchlang", "pkg/schema.sql#L3", ");\n"},
	} {
		inc, err := c.Convert(path, []byte(fm+"```"+tt.lang+" include="+tt.spec+"\n```\n"))
		if err != nil {
			t.Fatal(err)
		}
		lit, err := c.Convert(path, []byte(fm+"```"+tt.lang+"\n"+tt.text+"```\n"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(inc.Body, lit.Body) {
			t.Errorf("%s: include renders\n%s\nwant it to hold the fenced block's\n%s", tt.spec, inc.Body, lit.Body)
		}
		if tt.lang == "go" && !strings.Contains(inc.Body, `<pre tabindex="0" class="chroma"><code>`) {
			t.Errorf("%s: not highlighted:\n%s", tt.spec, inc.Body)
		}
	}
}

// TestIncludeEngine includes a declaration of the module itself, the way
// the articles do.
func TestIncludeEngine(t *testing.T) {
	root := filepath.Join("..", "..") // site/markdown is two levels below the module root
	src, err := os.ReadFile(filepath.Join(root, "engine", "idem", "keeper.go"))
	if err != nil {
		t.Fatal(err)
	}
	// The method's doc comment starts the declaration; its body ends at the
	// first line that is "}" alone after its signature.
	text := string(src)
	start := strings.Index(text, "// Do answers one request")
	sig := strings.Index(text, "func (k *Keeper) Do(")
	end := sig + strings.Index(text[sig:], "\n}\n") + len("\n}\n")
	if start < 0 || sig < start {
		t.Fatal("engine/idem/keeper.go has no documented Keeper.Do")
	}
	first := strings.Count(text[:start], "\n") + 1
	last := strings.Count(text[:end], "\n")

	p, err := New(WithSourceRoot(root)).Convert(path, []byte(fm+"```go include=engine/idem/keeper.go#Keeper.Do\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	codes, captions := included(t, p.Body)
	if len(codes) != 1 || codes[0] != text[start:end] {
		t.Fatalf("code:\n%s\nwant:\n%s", codes, text[start:end])
	}
	if want := "<code>engine/idem/keeper.go</code>, lines " + strconv.Itoa(first) + "–" + strconv.Itoa(last); captions[0] != want {
		t.Errorf("caption %q, want %q", captions[0], want)
	}
	if !strings.Contains(p.Body, `<span class="kd">func</span>`) {
		t.Errorf("not highlighted as Go:\n%s", p.Body)
	}
}

func TestIncludeLink(t *testing.T) {
	root := fixtureRoot(t)
	link := func(path string, first, last int) string {
		if strings.HasSuffix(path, ".sql") {
			return "" // no link for this one
		}
		return "https://example.com/src/" + path + "?from=" + strconv.Itoa(first) + "&to=" + strconv.Itoa(last)
	}
	c := New(WithSourceRoot(root), WithIncludeOptions(IncludeLink(link)))
	p, err := c.Convert(path, []byte(fm+"```go include=pkg/fixture.go#Wait\n```\n\n```sql include=pkg/schema.sql#L1\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, captions := included(t, p.Body)
	want := []string{
		`<a href="https://example.com/src/pkg/fixture.go?from=38&amp;to=41"><code>pkg/fixture.go</code></a>, lines 38–41`,
		`<code>pkg/schema.sql</code>, line 1`,
	}
	if strings.Join(captions, "\n") != strings.Join(want, "\n") {
		t.Errorf("captions:\n%s\nwant:\n%s", strings.Join(captions, "\n"), strings.Join(want, "\n"))
	}
}

func TestIncludeErrors(t *testing.T) {
	root := fixtureRoot(t)
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	c := New(WithSourceRoot(root))
	tests := []struct {
		name string
		src  string // after the front matter: the block's fence is on line 4
		want string // the error, after "path:line: "
	}{
		// 10 declarations: the 8 listed, Name.Len and Wait.
		{"no such declaration, the likeliest listed first",
			"```go include=pkg/fixture.go#Box.Put\n```\n",
			`include pkg/fixture.go#Box.Put: no such declaration (declarations: Box, Box.Get, Limit, None, Full, hits, Pair, Name and 2 more)`},
		{"the same name in another case",
			"```go include=pkg/fixture.go#wait\n```\n",
			`include pkg/fixture.go#wait: no such declaration (declarations: Wait, Limit, None, Full, hits, Pair, Name, Box and 2 more)`},
		{"a file without declarations",
			"```go include=pkg/empty.go#F\n```\n",
			`include pkg/empty.go#F: pkg/empty.go:1:1: expected 'package', found 'EOF'`},
		{"a file that does not parse",
			"```go include=pkg/broken.go#f\n```\n",
			`include pkg/broken.go#f: pkg/broken.go:3:9: expected ')', found '{'`},
		{"no such file",
			"```go include=pkg/nope.go#Wait\n```\n",
			`include pkg/nope.go#Wait: no such file in ` + abs},
		{"a folder",
			"```go include=pkg\n```\n",
			`include pkg: is a directory`},
		{"an empty file, whole",
			"```go include=pkg/empty.go\n```\n",
			`include pkg/empty.go: the file is empty`},
		{"a path out of the root",
			"```go include=../secret.go\n```\n",
			`include ../secret.go: the path must be relative to the source root and stay inside it`},
		{"an absolute path",
			"```go include=/etc/passwd\n```\n",
			`include /etc/passwd: the path must be relative to the source root and stay inside it`},
		{"no path",
			"```go include=#Wait\n```\n",
			`include #Wait: missing the file's path`},
		{"lines past the end",
			"```go include=pkg/fixture.go#L40-L42\n```\n",
			`include pkg/fixture.go#L40-L42: the file has 41 lines`},
		{"lines backwards",
			"```go include=pkg/fixture.go#L9-L3\n```\n",
			`include pkg/fixture.go#L9-L3: line range "L9-L3" ends before it starts`},
		{"a bad range",
			"```go include=pkg/fixture.go#L0-L3\n```\n",
			`include pkg/fixture.go#L0-L3: bad line range "L0-L3" (want L10-L40, or L10 for one line)`},
		{"a range without L",
			"```go include=pkg/fixture.go#L3-9\n```\n",
			`include pkg/fixture.go#L3-9: bad line range "L3-9" (want L10-L40, or L10 for one line)`},
		{"a declaration from a file that is not Go",
			"```sql include=pkg/schema.sql#idem\n```\n",
			`include pkg/schema.sql#idem: a declaration can be picked only from a .go file; use #L10-L40 for lines`},
		{"text in the block",
			"```go include=pkg/fixture.go#Wait\nfunc Wait() {}\n```\n",
			`include pkg/fixture.go#Wait: the block must be empty: its text comes from the file`},
		{"more in the info string",
			"```go include=pkg/fixture.go#Wait {linenos=true}\n```\n",
			`include pkg/fixture.go#Wait: unexpected "{linenos=true}" in the info string (want "go include=PATH[#SYMBOL]")`},
		{"no language",
			"```include=pkg/fixture.go#Wait\n```\n",
			`include: the info string starts with the language ("go include=PATH"), not with include=`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := c.Convert(path, []byte(fm+tt.src))
			if err == nil {
				t.Fatalf("no error; body:\n%s", p.Body)
			}
			if want := path + ":4: " + tt.want; err.Error() != want {
				t.Errorf("error:\n%s\nwant:\n%s", err, want)
			}
		})
	}

	// Every failing include of a file is reported, in line order, with the
	// other problems of the file.
	src := fm + "\n```go include=pkg/fixture.go#Nope\n```\n\n```widget payment\nkeys: maybe\n```\n\n```go include=pkg/nope.go\n```\n"
	_, err = c.Convert(path, []byte(src))
	want := path + `:5: include pkg/fixture.go#Nope: no such declaration (declarations: Limit, None, Full, hits, Pair, Name, Box, Box.Get and 2 more)` + "\n" +
		path + `:9: widget payment: keys: "maybe" is not allowed (allowed: off, per-intent, per-attempt)` + "\n" +
		path + `:12: include pkg/nope.go: no such file in ` + abs
	if err == nil || err.Error() != want {
		t.Errorf("error:\n%v\nwant:\n%s", err, want)
	}
}

// TestIncludeNotAnInclude checks that blocks that merely mention include
// are left alone.
func TestIncludeNotAnInclude(t *testing.T) {
	p, err := conv.Convert(path, []byte(fm+"```go includes=x\n// include=x\n```\n\n```text\ninclude=x\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(p.Body, "<figure") || !strings.Contains(p.Body, "include=x") {
		t.Errorf("a plain block was taken for an include:\n%s", p.Body)
	}
}

// FuzzInclude feeds the include's spec arbitrary text: a page or an error,
// never both, never a panic, and never a file outside the root.
func FuzzInclude(f *testing.F) {
	for _, s := range []string{
		"pkg/fixture.go#Box.Get", "pkg/fixture.go#L1-L41", "pkg/fixture.go#L", "pkg/fixture.go#L1-",
		"pkg/../pkg/fixture.go", "../x", "pkg/broken.go#f", "pkg/fixture.go#", "#", "pkg/fixture.go#L99999999999999999999",
	} {
		f.Add(s)
	}
	root := fixtureRoot(f)
	c := New(WithSourceRoot(filepath.Join(root, "pkg")))
	f.Fuzz(func(t *testing.T, spec string) {
		p, err := c.Convert(path, []byte(fm+"```go include="+spec+"\n```\n"))
		if err == nil && p == nil {
			t.Fatal("neither a page nor an error")
		}
		if err != nil && p != nil && p.Body != "" {
			t.Fatalf("a body along with the error %v", err)
		}
		if p != nil && strings.Contains(p.Body, "outside") {
			t.Fatalf("spec %q read outside the root", spec)
		}
	})
}

// TestIncludeSymlink checks that a link inside the root cannot lead out of
// it.
func TestIncludeSymlink(t *testing.T) {
	root := fixtureRoot(t)
	if err := os.Symlink(filepath.Join(root, "outside", "note.md"), filepath.Join(root, "pkg", "link.md")); err != nil {
		t.Fatal(err)
	}
	_, err := New(WithSourceRoot(filepath.Join(root, "pkg"))).Convert(path, []byte(fm+"```text include=link.md\n```\n"))
	if want := path + ":4: include link.md: path escapes from parent"; err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
}
