package handbook

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// A Session is one shell block of the handbook that runs curl: its
// commands, in order, and the output the page shows for them.
//
// The page shows the output in one of two ways:
//
//   - a block of commands (info string sh, shell, bash or live) followed
//     at once by a text block with what the commands print, one answer
//     after the other;
//   - a transcript (sh or console), where each command follows a "$ "
//     prompt and what it prints follows it.
//
// A curl -i answer is shown as curl prints it: the status line, the
// header lines, a blank line and the body. A line "..." in place of the
// rest says that only some of it is shown. A dropped connection is
// curl's own line, "curl: (52) Empty reply from server". A curl without
// -i prints the body alone.
type Session struct {
	Line     int       // the line of the block's first command
	Commands []Command // in order
	// Output is what the page shows the commands print, in order of the
	// commands that print; nil when the page shows none.
	Output []Shown
}

// A Command is one command line of a session, continuation lines joined.
type Command struct {
	Line  int
	Words []string // as the shell splits them, quotes removed
	// Background is a trailing &, Redirect the file of a > FILE: what the
	// command prints goes there, not to the page.
	Background bool
	Redirect   string
	// Expands says the line has a $ outside single quotes: the shell would
	// put something of its own there.
	Expands bool
}

// Curl reports whether the command runs curl.
func (c Command) Curl() bool { return len(c.Words) > 0 && c.Words[0] == "curl" }

// String names the command in a message: curl and its URL, or the
// whole command line.
func (c Command) String() string {
	if u := curlURL(c.Words); u != "" {
		return "curl " + u
	}
	return strings.Join(c.Words, " ")
}

// curlValued are the curl options the handbook uses that take a value.
var curlValued = map[string]bool{"-H": true, "--header": true, "-d": true, "--data": true,
	"--data-raw": true, "--data-binary": true, "-X": true, "--request": true}

// curlURL is the URL of a curl command's words: the first that is
// neither an option nor an option's value; "" if it is not curl or has
// none.
func curlURL(words []string) string {
	if len(words) == 0 || words[0] != "curl" {
		return ""
	}
	for i := 1; i < len(words); i++ {
		switch w := words[i]; {
		case curlValued[w]:
			i++
		case !strings.HasPrefix(w, "-"):
			return w
		}
	}
	return ""
}

// Placeholder reports whether the session's curls go to a placeholder
// of the reader's own API, a host under a name reserved for examples
// (example.com, example.net, example.org or .example, RFC 2606): such a
// session shows what to send, and is not run. It is an error for a
// session to mix those with curls to the sandbox.
func (s Session) Placeholder() (bool, error) {
	placeholders, others := 0, 0
	for _, c := range s.Commands {
		if !c.Curl() {
			continue
		}
		if placeholderHost(c) {
			placeholders++
		} else {
			others++
		}
	}
	if placeholders > 0 && others > 0 {
		return false, fmt.Errorf("%d: the session sends curls both to a placeholder host and to the sandbox", s.Line)
	}
	return placeholders > 0, nil
}

// placeholderHost reports whether a curl's URL names a host reserved for
// examples.
func placeholderHost(c Command) bool {
	u, err := url.Parse(curlURL(c.Words))
	if err != nil {
		return false
	}
	h := u.Hostname()
	for _, base := range []string{"example.com", "example.net", "example.org"} {
		if h == base || strings.HasSuffix(h, "."+base) {
			return true
		}
	}
	return strings.HasSuffix(h, ".example")
}

// A Shown is what the page shows one command print.
type Shown struct {
	Line int
	// Status is the status line of a curl -i answer ("HTTP/1.1 201
	// Created"), or curl's own error line ("curl: (52) Empty reply from
	// server"); "" for a body printed without -i.
	Status  string
	Headers []Header
	// Abridged says a "..." line ends what is shown of the answer: the
	// headers shown are some of the answer's, not all of them.
	Abridged bool
	Body     string
}

// Failed reports whether the shown output is curl's own error line:
// no answer came.
func (s Shown) Failed() bool { return strings.HasPrefix(s.Status, "curl: ") }

// A Header is one header line of a shown answer.
type Header struct {
	Line        int
	Name, Value string
}

// shellLangs are the info strings of blocks whose lines are commands.
var shellLangs = map[string]bool{"sh": true, "shell": true, "bash": true, "console": true, "live": true}

// Sessions returns the curl sessions of a markdown file, in order. Shell
// blocks that run no curl are returned too when they start the sandbox
// API (`retrylab api`), since the sessions after them run against the
// server it starts; others are left out.
func Sessions(src []byte) ([]Session, error) {
	body, skipped := stripFrontMatter(src)
	doc := goldmark.New().Parser().Parse(text.NewReader(body))
	var out []Session
	var errs []error
	lineOf := func(off int) int { return skipped + 1 + bytes.Count(body[:off], []byte("\n")) }
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		fc, ok := n.(*ast.FencedCodeBlock)
		if !ok || !shellLangs[string(fc.Language(body))] || fc.Lines().Len() == 0 {
			continue
		}
		first := lineOf(fc.Lines().At(0).Start)
		s, err := parseBlock(blockText(fc, body), first)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !s.runsCurl() && !s.startsAPI() {
			continue
		}
		if next, ok := fc.NextSibling().(*ast.FencedCodeBlock); ok && s.Output == nil && s.runsCurl() &&
			string(next.Language(body)) == "text" && next.Lines().Len() > 0 {
			s.Output = parseOutput(strings.Split(strings.TrimRight(blockText(next, body), "\n"), "\n"), lineOf(next.Lines().At(0).Start))
		}
		out = append(out, s)
	}
	return out, errors.Join(errs...)
}

// blockText is the content of a code block.
func blockText(fc *ast.FencedCodeBlock, src []byte) string {
	var b strings.Builder
	for i := 0; i < fc.Lines().Len(); i++ {
		seg := fc.Lines().At(i)
		b.Write(seg.Value(src))
	}
	return b.String()
}

func (s Session) runsCurl() bool {
	for _, c := range s.Commands {
		if c.Curl() {
			return true
		}
	}
	return false
}

func (s Session) startsAPI() bool {
	for _, c := range s.Commands {
		if _, ok := apiArgs(c); ok {
			return true
		}
	}
	return false
}

// apiArgs returns the flags of a command that starts the sandbox API:
// `go run ./cmd/retrylab api ...` or `retrylab api ...`.
func apiArgs(c Command) ([]string, bool) {
	w := c.Words
	switch {
	case len(w) >= 4 && w[0] == "go" && w[1] == "run" && w[2] == "./cmd/retrylab" && w[3] == "api":
		return w[4:], true
	case len(w) >= 2 && w[0] == "retrylab" && w[1] == "api":
		return w[2:], true
	}
	return nil, false
}

// parseBlock reads a shell block whose first line is line: commands only,
// or a transcript of "$ " prompts and their output.
func parseBlock(block string, line int) (Session, error) {
	lines := strings.Split(strings.TrimRight(block, "\n"), "\n")
	transcript := false
	for _, l := range lines {
		if strings.HasPrefix(l, "$ ") {
			transcript = true
			break
		}
	}
	s := Session{Line: line}
	var outLines []string
	outStart := 0
	flush := func() {
		if len(outLines) > 0 {
			s.Output = append(s.Output, parseOutput(outLines, outStart)...)
			outLines = nil
		}
	}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if transcript && !strings.HasPrefix(l, "$ ") {
			if len(outLines) == 0 {
				outStart = line + i
			}
			outLines = append(outLines, l)
			continue
		}
		flush()
		l = strings.TrimPrefix(l, "$ ")
		start := i
		for strings.HasSuffix(l, `\`) && i+1 < len(lines) {
			i++
			l = strings.TrimSuffix(l, `\`) + " " + lines[i]
		}
		if strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		c, err := parseCommand(l, line+start)
		if err != nil {
			return Session{}, err
		}
		s.Commands = append(s.Commands, c)
	}
	flush()
	if transcript && s.Output == nil {
		s.Output = []Shown{} // a transcript that shows no output still shows it
	}
	return s, nil
}

// parseCommand splits one command line as the shell would: words
// separated by blanks, '...' and "..." quoting, a trailing & and a
// > FILE redirect. Anything else the shell would treat specially (|, ;,
// &&, <) is an error, so that a session never means more than it shows.
func parseCommand(l string, line int) (Command, error) {
	c := Command{Line: line}
	var word strings.Builder
	inWord, redirect := false, false
	end := func() {
		if !inWord {
			return
		}
		if redirect {
			c.Redirect, redirect = word.String(), false
		} else {
			c.Words = append(c.Words, word.String())
		}
		word.Reset()
		inWord = false
	}
	for i := 0; i < len(l); i++ {
		ch := l[i]
		switch {
		case ch == ' ' || ch == '\t':
			end()
		case ch == '\'':
			j := strings.IndexByte(l[i+1:], '\'')
			if j < 0 {
				return c, fmt.Errorf("%d: a quote ' is never closed", line)
			}
			word.WriteString(l[i+1 : i+1+j])
			inWord = true
			i += 1 + j
		case ch == '"':
			j := strings.IndexByte(l[i+1:], '"')
			if j < 0 {
				return c, fmt.Errorf("%d: a quote \" is never closed", line)
			}
			q := l[i+1 : i+1+j]
			if strings.Contains(q, "$") {
				c.Expands = true
			}
			word.WriteString(q)
			inWord = true
			i += 1 + j
		case ch == '$':
			c.Expands = true
			word.WriteByte(ch)
			inWord = true
		case ch == '>':
			end()
			redirect = true
		case ch == '&' && strings.TrimSpace(l[i+1:]) == "":
			end()
			c.Background = true
			i = len(l)
		case ch == '|' || ch == ';' || ch == '&' || ch == '<':
			return c, fmt.Errorf("%d: %q: a session's command line runs one command (no %q)", line, l, string(ch))
		default:
			word.WriteByte(ch)
			inWord = true
		}
	}
	end()
	if redirect {
		return c, fmt.Errorf("%d: %q: > names no file", line, l)
	}
	return c, nil
}

// parseOutput reads what a page shows commands print, its first line
// being line: answers and curl's error lines, one after the other.
func parseOutput(lines []string, line int) []Shown {
	var out []Shown
	var cur *Shown
	inHeaders := false
	var body []string
	finish := func() {
		if cur != nil {
			cur.Body = strings.TrimSpace(strings.Join(body, "\n"))
			out = append(out, *cur)
		}
		cur, body = nil, nil
	}
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "HTTP/"), strings.HasPrefix(l, "curl: ("):
			finish()
			cur = &Shown{Line: line + i, Status: strings.TrimSpace(l)}
			inHeaders = strings.HasPrefix(l, "HTTP/")
		case cur == nil:
			if strings.TrimSpace(l) == "" {
				continue
			}
			cur = &Shown{Line: line + i}
			body = append(body, l)
		case inHeaders && strings.TrimSpace(l) == "":
			inHeaders = false
		case inHeaders && strings.TrimSpace(l) == "...":
			cur.Abridged = true
			inHeaders = false
		case inHeaders:
			name, value, _ := strings.Cut(l, ":")
			cur.Headers = append(cur.Headers, Header{Line: line + i, Name: strings.TrimSpace(name), Value: strings.TrimSpace(value)})
		default:
			if strings.TrimSpace(l) == "..." {
				cur.Abridged = true
				continue
			}
			body = append(body, l)
		}
	}
	finish()
	return out
}
