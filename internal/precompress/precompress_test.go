package precompress

import (
	"bytes"
	"compress/gzip"
	"io"
	"testing"

	"github.com/andybalholm/brotli"
)

// TestCopiesDecodeToTheFile: each copy is its file, and smaller.
func TestCopiesDecodeToTheFile(t *testing.T) {
	data := bytes.Repeat([]byte("<p>A retry with the same key is replayed.</p>\n"), 200)
	for _, c := range []struct {
		name   string
		write  func(io.Writer, []byte) error
		reader func(io.Reader) (io.Reader, error)
	}{
		{"gzip", Gzip, func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) }},
		{"brotli", Brotli, func(r io.Reader) (io.Reader, error) { return brotli.NewReader(r), nil }},
	} {
		var buf bytes.Buffer
		if err := c.write(&buf, data); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if buf.Len() >= len(data)/10 {
			t.Errorf("%s: %d bytes for %d repetitive ones", c.name, buf.Len(), len(data))
		}
		r, err := c.reader(&buf)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s: decodes to %d bytes (%v), want the %d written", c.name, len(got), err, len(data))
		}
	}
}
