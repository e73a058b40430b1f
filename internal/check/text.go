package check

import (
	"encoding/json"
	"fmt"
	"io"
)

// WriteText prints the report as the command does: a line naming what
// was checked, one line per check (result, name, the sentence of what it
// sent and saw, and in brackets what it stands on), then a summary.
func (r Report) WriteText(w io.Writer) error {
	if _, err := fmt.Fprintf(w, "retrylab check: POST %s, every check with new keys\n\n", r.URL); err != nil {
		return err
	}
	for _, f := range r.Checks {
		fmt.Fprintf(w, "%-4s  %-11s  %s [%s]\n", f.Result, f.Name, f.Detail, f.Reference)
	}
	fmt.Fprintf(w, "\n%d checks: %d pass, %d warn, %d fail; %d requests to %s in %.1fs\n",
		len(r.Checks), r.Count(Pass), r.Count(Warn), r.Count(Fail), r.Requests, r.Host, r.Took.Seconds())
	if !r.Expiry {
		fmt.Fprintln(w, "expiry was not checked: give --ttl the time your API says it remembers a key")
	}
	return nil
}

// WriteJSON prints the report as one JSON object:
// {"url": ..., "checks": [{"name", "result", "detail", "reference"}...]}.
func (r Report) WriteJSON(w io.Writer) error {
	if r.Checks == nil {
		r.Checks = []Finding{}
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}
