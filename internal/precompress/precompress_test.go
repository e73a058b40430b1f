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

// TestGzipCurrent: a copy made by Gzip is current; one made at gzip's
// best or fastest level, or bytes that are not gzip, are not.
func TestGzipCurrent(t *testing.T) {
	data := []byte("the same key, the same answer")
	var now bytes.Buffer
	if err := Gzip(&now, data); err != nil {
		t.Fatal(err)
	}
	if !GzipCurrent(now.Bytes()) {
		t.Error("Gzip's own copy is not current")
	}
	for _, level := range []int{gzip.BestCompression, gzip.BestSpeed} {
		var b bytes.Buffer
		w, _ := gzip.NewWriterLevel(&b, level)
		w.Write(data)
		w.Close()
		if GzipCurrent(b.Bytes()) {
			t.Errorf("a copy made at level %d is current (GzipLevel %d)", level, GzipLevel)
		}
	}
	for _, head := range [][]byte{nil, []byte("previous"), now.Bytes()[:8]} {
		if GzipCurrent(head) {
			t.Errorf("%q is current", head)
		}
	}
}
