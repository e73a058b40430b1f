package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"time"
)

// siblingCache keeps the compressed siblings that builds make of the
// modules, outside any output folder, each under the SHA-256 of the bytes
// it compresses and the encoder that made it (encoderID). A build from an
// empty public/ (make site after make clean, a test binary's first build)
// then compresses only a module it has never seen: brotli's best level
// takes seconds on the page's module and most of a cold build on the
// playground's, every time, for the same bytes.
//
// An entry is written whole to a temporary name and renamed into place, so
// a reader sees all of it or none; it is decoded and compared with the
// module before it is used, so a damaged entry costs a compression, never a
// wrong sibling. A nil *siblingCache keeps nothing.
type siblingCache struct{ dir string }

// cacheEnv names the environment variable that moves the cache: a folder,
// or "off" for none.
const cacheEnv = "RETRYLAB_CACHE"

// siblingCacheKeep is how many entries the cache keeps, the most recently
// used: each module version leaves a .br and a .gz (about 3 MB together
// for the page's module, 6 MB for the playground's), so a few dozen hold
// the versions a day of edits goes through.
const siblingCacheKeep = 48

// defaultSiblingCache is the cache in $RETRYLAB_CACHE, else under the
// user's cache folder (os.UserCacheDir: $XDG_CACHE_HOME or ~/.cache on
// Linux); nil when it is "off" or there is no such folder.
func defaultSiblingCache() *siblingCache {
	dir := os.Getenv(cacheEnv)
	switch dir {
	case "off":
		return nil
	case "":
		base, err := os.UserCacheDir()
		if err != nil {
			return nil
		}
		dir = filepath.Join(base, "retrylab")
	}
	return &siblingCache{dir: filepath.Join(dir, "compressed")}
}

// encoderIDs fingerprint each encoding of encodings (by index): its suffix,
// the Go release (compress/gzip's output may change with it) and the hash
// of what it makes of a fixed sample, so that a new level or a new version
// of the encoder that writes other bytes finds none of the old entries.
var encoderIDs = sync.OnceValue(func() []string {
	sample := bytes.Repeat([]byte("POST /v1/charges Idempotency-Key: 8f14e45f replayed 201 Created\n"), 64)
	ids := make([]string, len(encodings))
	for i, e := range encodings {
		var buf bytes.Buffer
		if err := e.write(&buf, sample); err != nil {
			continue // "": nothing is cached for this encoding
		}
		sum := sha256.Sum256(append(buf.Bytes(), runtime.Version()...))
		ids[i] = e.suffix[1:] + "-" + hex.EncodeToString(sum[:6])
	}
	return ids
})

// file is where the entry of src's sibling in encoding enc lives, "" when
// the encoder has no fingerprint.
func (c *siblingCache) file(sum [sha256.Size]byte, enc int) string {
	id := encoderIDs()[enc]
	if id == "" {
		return ""
	}
	return filepath.Join(c.dir, hex.EncodeToString(sum[:])+"."+id)
}

// get returns the cached sibling of src (whose hash is sum) in encoding
// enc, when there is one that decodes to src.
func (c *siblingCache) get(sum [sha256.Size]byte, src []byte, enc int) ([]byte, bool) {
	if c == nil {
		return nil, false
	}
	file := c.file(sum, enc)
	if file == "" {
		return nil, false
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, false
	}
	r, err := encodings[enc].open(bytes.NewReader(data))
	if err != nil {
		return nil, false
	}
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, src) {
		return nil, false
	}
	now := time.Now()
	os.Chtimes(file, now, now) // used: kept longer (see trim)
	return data, true
}

// put records data as the sibling of the bytes whose hash is sum in
// encoding enc. A cache that cannot be written is no error: the build
// has its sibling, and the next one compresses again.
func (c *siblingCache) put(sum [sha256.Size]byte, enc int, data []byte) {
	if c == nil {
		return
	}
	file := c.file(sum, enc)
	if file == "" || os.MkdirAll(c.dir, 0o755) != nil {
		return
	}
	tmp, err := os.CreateTemp(c.dir, ".new-*")
	if err != nil {
		return
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return
	}
	c.trim()
}

// trim removes all but the siblingCacheKeep entries used last.
func (c *siblingCache) trim() {
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	type entry struct {
		name string
		used int64
	}
	var list []entry
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() && e.Name()[0] != '.' {
			list = append(list, entry{e.Name(), info.ModTime().UnixNano()})
		}
	}
	if len(list) <= siblingCacheKeep {
		return
	}
	sort.Slice(list, func(i, j int) bool { return list[i].used > list[j].used })
	for _, e := range list[siblingCacheKeep:] {
		os.Remove(filepath.Join(c.dir, e.name))
	}
}
