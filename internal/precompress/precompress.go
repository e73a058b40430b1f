// Package precompress is how the site's files are compressed, in one
// place: the generator's .br and .gz siblings of the modules, the copies
// the local servers make of the other files when first asked, and the
// sizes the bench reports beside the hello-world floor.
package precompress

import (
	"compress/gzip"
	"io"
	"strconv"

	"github.com/andybalholm/brotli"
)

// GzipLevel is gzip's level for every copy: 6, the default
// (gzip.DefaultCompression), not the best, 9. On the page's module
// (3,938,196 bytes) level 9 is 0.75% smaller (1,077,525 bytes against
// 1,085,685) and takes three times as long (525 ms against 173 ms); on the
// playground's (14,374,533 bytes), 0.71% smaller for 1.60 s against
// 0.60 s. A build makes both copies beside its pages, on the same two
// cores, so level 9 cost every build 1.3 s of CPU, for copies that the
// local servers send only to a client that takes no brotli.
const GzipLevel = 6

// Gzip writes data to w compressed with gzip at GzipLevel.
func Gzip(w io.Writer, data []byte) error {
	gw, err := gzip.NewWriterLevel(w, GzipLevel)
	if err != nil {
		return err
	}
	if _, err := gw.Write(data); err != nil {
		return err
	}
	return gw.Close()
}

// GzipName names the gzip copies as the bench reports them: "gzip -6".
var GzipName = "gzip -" + strconv.Itoa(GzipLevel)

// Brotli writes data to w compressed with brotli at its best level, 11:
// brotli is what browsers ask for, and the module is the larger part of
// what a reader downloads.
func Brotli(w io.Writer, data []byte) error {
	bw := brotli.NewWriterLevel(w, brotli.BestCompression)
	if _, err := bw.Write(data); err != nil {
		return err
	}
	return bw.Close()
}
