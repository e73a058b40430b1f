package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/internal/check"
	"github.com/retrylab/retrylab/internal/check/flawed"
)

// chapter is the handbook's chapter on retrylab check.
const chapter = "../../content/test-your-own-api.md"

// A fence is one fenced code block of a markdown file.
type fence struct {
	lang  string
	line  int // the line of its first line of content
	lines []string
}

func fences(src string) []fence {
	var out []fence
	var cur *fence
	for i, l := range strings.Split(src, "\n") {
		switch {
		case cur == nil && strings.HasPrefix(l, "```"):
			cur = &fence{lang: strings.TrimPrefix(l, "```"), line: i + 2}
		case cur != nil && l == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, l)
		}
	}
	return out
}

// shellWords splits a command as the shell would, for the chapter's
// commands: blanks between words, '...' quoting, and a backslash at the
// end of a line to continue it.
func shellWords(lines []string) ([]string, error) {
	cmd := strings.ReplaceAll(strings.Join(lines, "\n"), "\\\n", " ")
	var words []string
	var w strings.Builder
	in := false
	for i := 0; i < len(cmd); i++ {
		switch c := cmd[i]; {
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				words, in = append(words, w.String()), false
				w.Reset()
			}
		case c == '\'':
			j := strings.IndexByte(cmd[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("an unclosed ' in %q", cmd)
			}
			w.WriteString(cmd[i+1 : i+1+j])
			i, in = i+1+j, true
		case strings.IndexByte(`"$|;&<>*?`, c) >= 0:
			return nil, fmt.Errorf("%q in %q: the test reads plain words and '...' only", c, cmd)
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words, nil
}

// shown matches a line the page shows to the line the command printed:
// the words must be the same; numbers and quoted strings (the ids, the
// counts, the time taken) may differ from run to run.
func shown(line string) *regexp.Regexp {
	var re strings.Builder
	re.WriteString("^")
	for rest := line; rest != ""; {
		switch loc := regexp.MustCompile(`"[^"]*"|[0-9]+`).FindStringIndex(rest); {
		case loc == nil:
			re.WriteString(regexp.QuoteMeta(rest))
			rest = ""
		default:
			re.WriteString(regexp.QuoteMeta(rest[:loc[0]]))
			if rest[loc[0]] == '"' {
				re.WriteString(`"[^"]*"`)
			} else {
				re.WriteString(`[0-9]+`)
			}
			rest = rest[loc[1]:]
		}
	}
	re.WriteString("$")
	return regexp.MustCompile(re.String())
}

// compareShown checks that the page's lines are the printed ones, in
// order; a line "..." stands for any number of printed lines.
func compareShown(page, printed []string) error {
	pos, gap := 0, false
	for _, l := range page {
		if l == "..." {
			gap = true
			continue
		}
		re := shown(l)
		at := -1
		for i := pos; i < len(printed) && (gap || i == pos); i++ {
			if re.MatchString(printed[i]) {
				at = i
				break
			}
		}
		switch {
		case at < 0 && gap:
			return fmt.Errorf("the page shows %q, and no line the command printed after its line %d matches", l, pos)
		case at < 0 && pos < len(printed):
			return fmt.Errorf("the page shows %q, where the command printed %q", l, printed[pos])
		case at < 0:
			return fmt.Errorf("the page shows %q, where the command printed nothing more", l)
		}
		pos, gap = at+1, false
	}
	if !gap && pos < len(printed) {
		return fmt.Errorf("the command printed more than the page shows: %q", printed[pos])
	}
	return nil
}

// The chapter uses the command's own words: a section per check, in the
// order the command makes them, each quoting the check's description and
// the reference it prints; every retrylab check command it shows is a
// valid one; and each shown output is what that command prints, run
// against the server it names (the sandbox API, with the flags of the
// chapter's last `retrylab api` command before it, or the flawed servers
// of internal/check/flawed/serve), ids, counts and times aside.
func TestChapterShowsTheCommandsWords(t *testing.T) {
	b, err := os.ReadFile(chapter)
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)

	var order []string
	for _, m := range regexp.MustCompile("(?m)^### `([a-z-]+)`$").FindAllStringSubmatch(src, -1) {
		order = append(order, m[1])
	}
	var names []string
	for _, c := range check.Checks {
		names = append(names, c.Name)
		start := strings.Index(src, "### `"+c.Name+"`\n")
		if start < 0 {
			continue
		}
		section := src[start:]
		if end := strings.Index(section[1:], "\n#"); end >= 0 {
			section = section[:end+1]
		}
		if !strings.Contains(section, "\n> "+c.What+"\n") {
			t.Errorf("the section on %s does not quote its description, %q", c.Name, c.What)
		}
		if !strings.Contains(section, "\n> *Stands on:* "+c.Reference+"\n") {
			t.Errorf("the section on %s does not quote its reference, %q", c.Name, c.Reference)
		}
	}
	if strings.Join(order, " ") != strings.Join(names, " ") {
		t.Errorf("the chapter's sections on the checks are %q, want %q", order, names)
	}

	fs := fences(src)
	var api []string // the flags of the last `retrylab api` shown
	runs := 0
	for i, f := range fs {
		if f.lang != "sh" {
			continue
		}
		words, err := shellWords(f.lines)
		if err != nil {
			t.Errorf("%s:%d: %v", chapter, f.line, err)
			continue
		}
		if len(words) < 4 || strings.Join(words[:3], " ") != "go run ./cmd/retrylab" {
			continue
		}
		switch words[3] {
		case "api":
			api = words[4:]
			continue
		case "check":
		default:
			continue
		}
		args := words[4:]
		if _, code := parseCheck(args, io.Discard); code != exitOK {
			var msg bytes.Buffer
			parseCheck(args, &msg)
			t.Errorf("%s:%d: %q is not a valid command: %s", chapter, f.line, words, msg.String())
			continue
		}
		if i+1 == len(fs) || fs[i+1].lang != "text" {
			continue // a command shown without its output
		}
		runs++
		t.Run(fmt.Sprint(f.line), func(t *testing.T) {
			if err := runShown(t, args, api, fs[i+1].lines); err != nil {
				t.Errorf("%s:%d: %v", chapter, fs[i+1].line, err)
			}
		})
	}
	// The sandbox's run and the six flawed servers'.
	if runs != 1+len(flawed.Flaws) {
		t.Errorf("%d outputs of retrylab check shown, want %d", runs, 1+len(flawed.Flaws))
	}
}

// runShown runs retrylab check with args against a server of the kind
// its URL names, on a port of the test's own, and compares what it
// prints with what the page shows.
func runShown(t *testing.T, args, apiArgs, page []string) error {
	f, _ := parseCheck(args, io.Discard)
	u, err := url.Parse(f.url)
	if err != nil {
		return err
	}
	var base string
	switch {
	case u.Host == "localhost:8787" && u.Path == "/v1/payments":
		fs := flag.NewFlagSet("retrylab api", flag.ContinueOnError)
		cfg := apiFlags(fs)
		if err := fs.Parse(apiArgs); err != nil {
			return fmt.Errorf("the chapter's retrylab api %q: %v", apiArgs, err)
		}
		cfg.addr = "127.0.0.1:0"
		base, _, _, _ = startAPIWith(t, *cfg)
	case u.Host == "localhost:8788":
		srv := httptest.NewServer(flawed.Handler(flawed.DefaultWork))
		t.Cleanup(srv.Close)
		base = srv.URL
	default:
		return fmt.Errorf("%s: neither the sandbox API (localhost:8787/v1/payments) nor the flawed servers (localhost:8788)", f.url)
	}
	here := strings.TrimPrefix(base, "http://")
	for i, a := range args {
		args[i] = strings.Replace(a, u.Host, here, 1)
	}
	var out, errOut bytes.Buffer
	run(append([]string{"check"}, args...), &out, &errOut)
	if errOut.Len() > 0 {
		return fmt.Errorf("retrylab check said on stderr: %s", errOut.String())
	}
	printed := strings.Split(strings.TrimSuffix(strings.ReplaceAll(out.String(), here, u.Host), "\n"), "\n")
	if err := compareShown(page, printed); err != nil {
		return fmt.Errorf("%v\nthe command printed:\n%s", err, strings.Join(printed, "\n"))
	}
	return nil
}

// The comparison itself: it tells a changed word from a changed number.
func TestCompareShown(t *testing.T) {
	printed := []string{"a: 201 with id \"pay_7\"", "b", "8 checks: 7 pass"}
	for _, c := range []struct {
		page []string
		ok   bool
	}{
		{[]string{"a: 200 with id \"x\"", "b", "8 checks: 8 pass"}, true},
		{[]string{"a: 201 with ID \"pay_7\"", "b", "8 checks: 7 pass"}, false},
		{[]string{"a: 201 with id \"pay_7\"", "...", "8 checks: 7 pass"}, true},
		{[]string{"a: 201 with id \"pay_7\"", "8 checks: 7 pass"}, false},
		{[]string{"a: 201 with id \"pay_7\"", "b"}, false},
		{[]string{"...", "b", "..."}, true},
	} {
		if err := compareShown(c.page, printed); (err == nil) != c.ok {
			t.Errorf("%q: %v, want ok %v", c.page, err, c.ok)
		}
	}
}
