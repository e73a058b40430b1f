package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"
)

// compressCache holds the compressed copies that the local servers make
// of the files a build writes no sibling for (all but the module: see
// precompressed), as a CDN would on the fly: each is made at
// the first request that accepts its encoding, at the level the module's
// siblings use, and kept in memory while the file keeps its size and
// modification time. The zero value is ready to use.
type compressCache struct {
	mu      sync.Mutex
	entries map[compressKey]*compressedCopy
	bytes   int64 // the size of the copies made
}

type compressKey struct{ file, suffix string }

// compressedCopy is one file compressed one way, once made (done closed).
type compressedCopy struct {
	size int64
	mod  time.Time
	done chan struct{}
	data []byte
	err  error
}

// compressCacheLimit bounds the copies kept: the handbook's pages and
// assets (1.5 MB, the module aside) compress to about 0.7 MB in both
// encodings together, so this holds every one many times over, and a long
// `serve` whose rebuilds keep renaming the hashed assets drops the copies
// of old names once they add up past it.
const compressCacheLimit = 64 << 20

// get returns file, whose stat is info, compressed with the encoding of
// suffix (".br" or ".gz"). Requests for the same copy while it is being
// made wait for it.
func (c *compressCache) get(file string, info fs.FileInfo, suffix string) ([]byte, error) {
	key := compressKey{file, suffix}
	c.mu.Lock()
	if e := c.entries[key]; e != nil && e.size == info.Size() && e.mod.Equal(info.ModTime()) {
		c.mu.Unlock()
		<-e.done
		return e.data, e.err
	}
	e := &compressedCopy{size: info.Size(), mod: info.ModTime(), done: make(chan struct{})}
	if c.entries == nil {
		c.entries = map[compressKey]*compressedCopy{}
	}
	c.entries[key] = e
	c.mu.Unlock()

	e.data, e.err = compressAs(file, suffix)
	close(e.done)

	c.mu.Lock()
	defer c.mu.Unlock()
	if e.err != nil {
		if c.entries[key] == e {
			delete(c.entries, key)
		}
		return nil, e.err
	}
	c.bytes += int64(len(e.data))
	if c.bytes > compressCacheLimit {
		c.entries = map[compressKey]*compressedCopy{key: e}
		c.bytes = int64(len(e.data))
	}
	return e.data, nil
}

// compressAs reads file and compresses it as encodings' suffix does.
func compressAs(file, suffix string) ([]byte, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	for _, e := range encodings {
		if e.suffix == suffix {
			var buf bytes.Buffer
			if err := e.write(&buf, data); err != nil {
				return nil, fmt.Errorf("compressing %s: %w", file, err)
			}
			return buf.Bytes(), nil
		}
	}
	return nil, fmt.Errorf("compressing %s: no encoding %q", file, suffix)
}
