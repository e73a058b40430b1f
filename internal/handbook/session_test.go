package handbook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// handbookFiles are the markdown files a reader can meet: the chapters
// and the site's own pages.
func handbookFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pattern := range []string{"../../content/*.md", "../../site/*.md"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 20 {
		t.Fatalf("%d markdown files found; is the test run from internal/handbook?", len(files))
	}
	return files
}

// name is a file's path as an author knows it: content/x.md.
func name(path string) string {
	return strings.TrimPrefix(filepath.ToSlash(path), "../../")
}

// Every curl session of the handbook runs as printed against the
// sandbox API, and the API answers with the status lines and headers
// the page shows.
func TestCurlSessionsRunAsPrinted(t *testing.T) {
	curls := 0
	for _, path := range handbookFiles(t) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		sessions, err := Sessions(src)
		if err != nil {
			t.Errorf("%s:%v", name(path), err)
		}
		if len(sessions) == 0 {
			continue
		}
		r := NewRunner()
		for _, s := range sessions {
			if skip, err := s.Placeholder(); skip || err != nil {
				if err != nil {
					t.Errorf("%s:%v", name(path), err)
				}
				continue
			}
			if err := r.Run(s); err != nil {
				for _, e := range strings.Split(err.Error(), "\n") {
					t.Errorf("%s:%s", name(path), e)
				}
			}
		}
		curls += r.Curls
		r.Close()
	}
	// api.md alone runs more than 20; fewer means sessions went unseen.
	if curls < 20 {
		t.Errorf("%d curls ran; the sessions' form may have changed", curls)
	}
}

// runChapter runs every session of a markdown source and returns the
// errors, one a line.
func runChapter(t *testing.T, src string) string {
	t.Helper()
	sessions, err := Sessions([]byte(src))
	if err != nil {
		return err.Error()
	}
	r := NewRunner()
	defer r.Close()
	var out []string
	for _, s := range sessions {
		if skip, err := s.Placeholder(); skip || err != nil {
			if err != nil {
				out = append(out, err.Error())
			}
			continue
		}
		if err := r.Run(s); err != nil {
			out = append(out, err.Error())
		}
	}
	return strings.Join(out, "\n")
}

// The runner sends what curl sends and reports, by line, each way in
// which the page's output differs from the API's answers.
func TestRunnerComparesWhatThePageShows(t *testing.T) {
	const pay = "curl -i localhost:8787/v1/payments \\\n  -H 'Authorization: Bearer t' \\\n  -H 'Idempotency-Key: k1' \\\n"
	const json = "  -H 'Content-Type: application/json' \\\n"
	const body = "  -d '{\"amount\": 2500, \"currency\": \"usd\"}'\n"
	const created = "HTTP/1.1 201 Created\nCache-Control: no-store\nContent-Length: 1\nContent-Type: application/json\nIdempotency-Key: k1\nLocation: /v1/payments/pay_aaaaaaaaaaaaaaaa\nDate: Mon, 30 Nov 2026 01:59:21 GMT\n\n{}\n"
	for _, c := range []struct {
		name, src string
		want      []string // substrings of the errors, in order; none for a clean run
	}{
		{"as printed", "```sh\n" + pay + json + body + "```\n\n```text\n" + created + "```\n", nil},
		{"-d without a Content-Type is a form",
			"```sh\n" + pay + body + "```\n\n```text\n" + created + "```\n",
			[]string{"12: curl localhost:8787/v1/payments: the page shows HTTP/1.1 201 Created, the API answers HTTP/1.1 415 Unsupported Media Type"}},
		{"a header the page leaves out",
			"```sh\n" + pay + json + body + "```\n\n```text\n" + strings.Replace(created, "Cache-Control: no-store\n", "", 1) + "```\n",
			[]string{`the API also sends Cache-Control: no-store; show it, or end the headers with a line "..."`}},
		{"an abridged answer shows some headers",
			"```sh\n" + pay + json + body + "```\n\n```text\nHTTP/1.1 201 Created\nIdempotency-Key: k1\n...\n```\n", nil},
		{"a header the API sends otherwise",
			"```sh\n" + pay + json + body + "```\n\n```text\nHTTP/1.1 201 Created\nIdempotency-Key: k2\n...\n```\n",
			[]string{"14: curl localhost:8787/v1/payments: the page shows Idempotency-Key: k2, the API sends Idempotency-Key: k1"}},
		{"a transcript, and the replay",
			"```sh\n$ " + pay + json + body + "HTTP/1.1 201 Created\n...\n$ " + pay + json + body + "HTTP/1.1 201 Created\nIdempotent-Replayed: true\n...\n```\n", nil},
		{"a lost answer, and a sleep into a lease",
			"```sh\n" + pay + "  -H 'Retrylab-Fault: crash-after-charge' \\\n" + json + body + pay + json + body + "sleep 20\n" + pay + json + body + "```\n\n```text\n" +
				"curl: (52) Empty reply from server\nHTTP/1.1 409 Conflict\nRetry-After: 60\n...\nHTTP/1.1 409 Conflict\nRetry-After: 40\n...\n```\n", nil},
		{"the output of a curl left out",
			"```sh\n" + pay + json + body + pay + json + body + "```\n\n```text\nHTTP/1.1 201 Created\n...\n```\n",
			[]string{"10: curl localhost:8787/v1/payments: the page shows no output for it"}},
		{"an error with no output to show it",
			"```live\n" + pay + body + "```\n",
			[]string{"the API answers HTTP/1.1 415 Unsupported Media Type", "and the page shows no output to say so"}},
		{"another host",
			"```sh\ncurl -i localhost:9999/v1/charges -H 'Authorization: Bearer t'\n```\n",
			[]string{"the curl goes to localhost:9999; the sandbox listens on localhost:8787 (retrylab api) or localhost:8080 (make serve)"}},
		{"a placeholder host is not run",
			"```sh\nKEY=$(uuidgen)\ncurl -i https://payments.example.com/v1/charges -H \"Idempotency-Key: $KEY\" -d x\n```\n", nil},
		{"a shell pipe", "```sh\ncurl localhost:8787/v1/charges | jq .\n```\n",
			[]string{`5: "curl localhost:8787/v1/charges | jq .": a session's command line runs one command (no "|")`}},
		{"a lease from the command line",
			"```sh\ngo run ./cmd/retrylab api --lease 10s\n```\n\n```sh\n" + pay + "  -H 'Retrylab-Fault: crash-after-charge' \\\n" + json + body + pay + json + body + "```\n\n```text\n" +
				"curl: (52) Empty reply from server\nHTTP/1.1 409 Conflict\nRetry-After: 10\n...\n```\n", nil},
	} {
		got := runChapter(t, "---\ntitle: T\n---\n"+c.src)
		if len(c.want) == 0 && got != "" {
			t.Errorf("%s: %s", c.name, got)
		}
		rest := got
		for _, w := range c.want {
			i := strings.Index(rest, w)
			if i < 0 {
				t.Errorf("%s: errors\n%s\nlack %q", c.name, got, w)
				break
			}
			rest = rest[i+len(w):]
		}
	}
}
