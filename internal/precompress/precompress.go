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
// (gzip.DefaultCompression), not the best, 9. On the modules level 9 is
// under 1% smaller and takes about three times as long, and every build
// makes their copies beside its pages, for copies that the local servers
// send only to a client that takes no brotli.
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

// GzipCurrent reports whether head, the first bytes of a gzip file, says
// it was made at GzipLevel, as far as gzip records a level: the XFL byte
// of its header (RFC 1952, section 2.3.1) is 2 for the best compression
// and 4 for the fastest, and compress/gzip writes 0 for every level
// between. A build reuses the previous build's copy of an unchanged
// module only if it was made at GzipLevel; another is made again.
func GzipCurrent(head []byte) bool {
	const magic1, magic2, xfl = 0x1f, 0x8b, 8
	if len(head) <= xfl || head[0] != magic1 || head[1] != magic2 {
		return false
	}
	want := byte(0)
	switch GzipLevel {
	case gzip.BestCompression:
		want = 2
	case gzip.BestSpeed:
		want = 4
	}
	return head[xfl] == want
}

// GzipName names the gzip copies as the bench reports them: "gzip -6".
var GzipName = "gzip -" + strconv.Itoa(GzipLevel)

// BrotliLevel is brotli's level for every copy: its best, 11. Brotli is
// what browsers ask for, and the module is the larger part of what a
// reader downloads: level 10 makes the page's module 4% larger (831,104
// bytes against 799,556) in 7.1 s against 12.8, level 9 13% larger in
// 0.8 s.
const BrotliLevel = brotli.BestCompression

// BrotliName names the brotli copies as the bench reports them:
// "brotli 11".
var BrotliName = "brotli " + strconv.Itoa(BrotliLevel)

// Brotli writes data to w compressed with brotli at BrotliLevel.
func Brotli(w io.Writer, data []byte) error {
	bw := brotli.NewWriterLevel(w, BrotliLevel)
	if _, err := bw.Write(data); err != nil {
		return err
	}
	return bw.Close()
}
