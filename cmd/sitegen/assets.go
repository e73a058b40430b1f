package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/andybalholm/brotli"

	"github.com/retrylab/retrylab/internal/gotool"
	"github.com/retrylab/retrylab/internal/precompress"
)

// staticDir is where hashed assets live in the output, and their URL prefix.
const staticDir = "static"

// hashLen is how many hex digits of the SHA-256 go into a hashed name: 8 hex
// digits are 32 bits, so two versions of one file collide once in about four
// billion changes, and names stay short.
const hashLen = 8

// assets writes content-hashed files under static/ of a build and remembers
// their URLs by logical name ("style.css" -> "/static/style.3f2a9c1b.css").
type assets struct {
	dir string // the build's static/ directory
	// prev is an earlier build's static/ directory ("" for none): a file
	// it holds under the same hashed name has the same bytes, and is
	// linked rather than written again (the modules are 18 MB, which a
	// rebuild of serve after a markdown edit wrote again every time).
	prev string
	urls map[string]string // logical name -> URL
	mu   sync.Mutex
}

func newAssets(outDir, prevDir string) *assets {
	a := &assets{dir: filepath.Join(outDir, staticDir), urls: map[string]string{}}
	if prevDir != "" {
		a.prev = filepath.Join(prevDir, staticDir)
	}
	return a
}

// hashedName puts the first hashLen hex digits of data's SHA-256 before the
// last extension of name: "js/app.min.js" -> "js/app.min.0a1b2c3d.js".
func hashedName(name string, data []byte) string {
	sum := sha256.Sum256(data)
	h := hex.EncodeToString(sum[:])[:hashLen]
	dir, file := path.Split(name)
	if i := strings.LastIndexByte(file, '.'); i > 0 {
		return dir + file[:i] + "." + h + file[i:]
	}
	return dir + file + "." + h
}

// add writes data under its hashed name and records its URL for name, a
// slash-separated path relative to static/.
func (a *assets) add(name string, data []byte) error {
	return a.addHashed(name, hashedName(name, data), data)
}

// addHashed is add for data whose hashed name is known already (hashed,
// from hashedName).
//
// A name is taken before its file is written, so a second asset of the
// same name fails without touching the first one's file, which may be a
// link to the previous build's.
func (a *assets) addHashed(name, hashed string, data []byte) error {
	a.mu.Lock()
	_, dup := a.urls[name]
	if !dup {
		a.urls[name] = "/" + staticDir + "/" + hashed
	}
	a.mu.Unlock()
	if dup {
		return fmt.Errorf("asset %q written twice", name)
	}
	dst := filepath.Join(a.dir, filepath.FromSlash(hashed))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if a.linkPrev(hashed, dst, len(data)) {
		return nil
	}
	return writeNew(dst, data)
}

// linkPrev makes dst a hard link to prev's file of the same hashed name,
// when there is one of size n on the same file system, and reports whether
// it did.
func (a *assets) linkPrev(hashed, dst string, n int) bool {
	if a.prev == "" {
		return false
	}
	old := filepath.Join(a.prev, filepath.FromSlash(hashed))
	info, err := os.Lstat(old)
	if err != nil || !info.Mode().IsRegular() || info.Size() != int64(n) {
		return false
	}
	return os.Link(old, dst) == nil
}

// addDir adds every file under dir (site/static), keeping subfolders, each
// script with the shared names written in (withNames).
func (a *assets) addDir(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if strings.HasSuffix(p, ".js") {
			if data, err = withNames(p, data); err != nil {
				return err
			}
		}
		return a.add(filepath.ToSlash(rel), data)
	})
}

// url returns the hashed URL of a logical asset name; it is the templates'
// "asset" function, so an unknown name fails the build where it is used.
func (a *assets) url(name string) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	u, ok := a.urls[name]
	if !ok {
		known := make([]string, 0, len(a.urls))
		for k := range a.urls {
			known = append(known, k)
		}
		sort.Strings(known)
		return "", fmt.Errorf("asset %q does not exist (known: %s)", name, strings.Join(known, ", "))
	}
	return u, nil
}

// goTool finds the go command the build runs: the one on PATH, the same a
// developer's `go run` used.
func goTool() (string, error) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("the go command is needed to build the WebAssembly module: %w", err)
	}
	return gobin, nil
}

// modules are the WebAssembly modules the site ships, by asset name and
// package: the handbook's, which every page with a widget loads, and the
// playground's, which only /playground/ loads.
var modules = []struct{ asset, pkg string }{
	{"retrylab.wasm", "./wasm"},
	{"playground.wasm", "./cmd/playground"},
}

// buildModules compiles every module of the module at root, at once,
// with the flags of every module the site ships, each into a file of dir
// (removed once read), and returns their bytes by asset name.
func buildModules(ctx context.Context, root, dir string) (map[string][]byte, error) {
	out := make(map[string][]byte, len(modules))
	errs := make([]error, len(modules))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i, m := range modules {
		wg.Go(func() {
			file := filepath.Join(dir, "."+m.asset)
			err := gotool.BuildWasm(ctx, root, m.pkg, file)
			var data []byte
			if err == nil {
				data, err = os.ReadFile(file)
			}
			if err == nil {
				err = os.Remove(file)
			}
			errs[i] = err
			mu.Lock()
			out[m.asset] = data
			mu.Unlock()
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// wasmExec reads the wasm_exec.js of the go toolchain that builds the
// module: the JavaScript half of the module's runtime, which must come from
// the same release.
func wasmExec(ctx context.Context) ([]byte, error) {
	gobin, err := goTool()
	if err != nil {
		return nil, err
	}
	out, err := exec.CommandContext(ctx, gobin, "env", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOROOT: %w", err)
	}
	goroot := strings.TrimSpace(string(out))
	// Go 1.24 moved the file from misc/wasm to lib/wasm.
	for _, dir := range []string{"lib/wasm", "misc/wasm"} {
		data, err := os.ReadFile(filepath.Join(goroot, filepath.FromSlash(dir), "wasm_exec.js"))
		if err == nil {
			return data, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("wasm_exec.js not found in %s/lib/wasm", goroot)
}

// compressible are the extensions served compressed when the request
// accepts it: text formats, and the module (Go's wasm shrinks to about a
// fifth with brotli: 3,938,196 bytes to 799,556).
var compressible = map[string]bool{
	".wasm": true, ".js": true, ".css": true, ".html": true, ".svg": true, ".json": true,
}

// precompressed are the extensions a build writes .br and .gz siblings
// for: the module alone. The local servers compress the other files when
// first asked (compressCache), as a CDN does on the fly. The module
// is the exception: brotli's best level takes seconds on it, too long for
// a first request, and the module's budget test and the bench read its
// compressed sizes from the siblings.
var precompressed = map[string]bool{".wasm": true}

// encodings are the siblings written for each precompressed file, by
// suffix, and the copies the local servers make of the others, at the
// levels of internal/precompress. current reports whether an existing
// copy, by its first bytes, was made at the level used now, so that a
// build reuses the previous build's copy only then: brotli records no
// level (its level has always been 11), gzip the class of its level.
// open decodes a copy (siblingCache checks its entries with it).
var encodings = []struct {
	suffix  string
	write   func(w io.Writer, data []byte) error
	current func(head []byte) bool
	open    func(r io.Reader) (io.Reader, error)
}{
	{".br", precompress.Brotli, func([]byte) bool { return true },
		func(r io.Reader) (io.Reader, error) { return brotli.NewReader(r), nil }},
	{".gz", precompress.Gzip, precompress.GzipCurrent,
		func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) }},
}

// compressStats counts what compressTree wrote.
type compressStats struct {
	Files  int   // siblings written
	Reused int   // of which taken from the previous build
	Bytes  int64 // their total size
}

// quickLimit is the size over which a quick build writes no brotli sibling
// unless the previous build has one to reuse. The page's module (3.8 MiB)
// takes 12.8 s at brotli's best level on a two-core machine, and the
// playground's (13.7 MiB) most of a cold build's 46 to 60 s, where gzip
// takes 0.2 and 0.6 s; every other file is under 64 KiB and takes
// milliseconds.
const quickLimit = 1 << 20

// compressTree writes a .br and a .gz sibling next to every precompressed
// file under dir's static/ (the module), on all cores. A file under static/ has
// its hash in its name, so when prev (the previous build's output, possibly
// absent) already has a sibling of that name it is reused instead of
// compressed again; else the one cache holds for the same bytes is (a nil
// cache holds none), and a sibling made anew is put in cache. quick skips
// new brotli siblings of files over quickLimit, though it takes cache's;
// reuseOnly makes no sibling at all, only reuses the previous build's (a
// build whose finish is left for later: see buildCache).
func compressTree(ctx context.Context, dir, prev string, cache *siblingCache, quick, reuseOnly bool) (compressStats, error) {
	type job struct {
		rel  string // slash path relative to dir
		size int64
		enc  int // index into encodings
	}
	var jobs []job
	// The module is under static/: the build walks no page, which it may
	// be writing meanwhile.
	err := filepath.WalkDir(filepath.Join(dir, staticDir), func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == filepath.Join(dir, staticDir) {
			return filepath.SkipAll
		}
		if err != nil || d.IsDir() || !precompressed[filepath.Ext(p)] {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		for i := range encodings {
			jobs = append(jobs, job{filepath.ToSlash(rel), info.Size(), i})
		}
		return nil
	})
	if err != nil {
		return compressStats{}, err
	}
	sort.SliceStable(jobs, func(a, b int) bool { return jobs[a].size > jobs[b].size })

	if reuseOnly {
		cache = nil // the previous build's siblings or none: reading cache takes longer
	}
	var (
		mu    sync.Mutex
		stats compressStats
		errs  []error
	)
	forEach(len(jobs), 0, func(i int) {
		if ctx.Err() != nil {
			return // cancelled: the jobs left are skipped
		}
		j := jobs[i]
		create := !reuseOnly && !(quick && j.size > quickLimit && encodings[j.enc].suffix == ".br")
		n, reused, err := compressFile(dir, prev, cache, j.rel, j.enc, create)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			errs = append(errs, err)
		} else if n > 0 {
			stats.Files++
			stats.Bytes += n
			if reused {
				stats.Reused++
			}
		}
	})
	if err := ctx.Err(); err != nil {
		return stats, err
	}
	return stats, errors.Join(errs...)
}

// compressFile writes one sibling of dir/rel and returns its size (0 when
// it wrote none) and whether it was reused from prev or cache (see
// compressTree). Without create, a sibling is only reused, never made.
func compressFile(dir, prev string, cache *siblingCache, rel string, enc int, create bool) (int64, bool, error) {
	e := encodings[enc]
	src := filepath.Join(dir, filepath.FromSlash(rel))
	dst := src + e.suffix
	// A file under static/ has its hash in its name: the same name is the
	// same bytes.
	if prev != "" && strings.HasPrefix(rel, staticDir+"/") {
		old := filepath.Join(prev, filepath.FromSlash(rel)) + e.suffix
		if head, err := readHead(old, 16); err == nil && e.current(head) {
			if n, err := reuse(old, dst); err == nil {
				return n, true, nil
			}
		}
	}
	if cache == nil && !create {
		return 0, false, nil
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return 0, false, err
	}
	sum := sha256.Sum256(data)
	if packed, ok := cache.get(sum, data, enc); ok {
		return int64(len(packed)), true, writeNew(dst, packed)
	}
	if !create {
		return 0, false, nil
	}
	var buf bytes.Buffer
	if err := e.write(&buf, data); err != nil {
		return 0, false, fmt.Errorf("compressing %s: %w", rel, err)
	}
	if err := writeNew(dst, buf.Bytes()); err != nil {
		return 0, false, err
	}
	cache.put(sum, enc, buf.Bytes())
	return int64(buf.Len()), false, nil
}

// readHead returns the first n bytes of file, or fewer if it is shorter.
func readHead(file string, n int) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, n)
	k, err := io.ReadFull(f, head)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil
	}
	return head[:k], err
}

// writeNew writes data to dst, which must not exist yet. A build writes
// only new files into its folder, some of which are hard links to the
// previous build's (the site being served): writing through a path that
// is already there could change that site, so it is an error instead.
func writeNew(dst string, data []byte) error {
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(dst)
	}
	return err
}

// reuse makes dst a copy of old: a hard link when both are on one file
// system (the build folder sits next to the output, so they normally are),
// else a byte copy.
func reuse(old, dst string) (int64, error) {
	info, err := os.Stat(old)
	if err != nil || !info.Mode().IsRegular() {
		return 0, fs.ErrNotExist
	}
	if err := os.Link(old, dst); err == nil {
		return info.Size(), nil
	}
	data, err := os.ReadFile(old)
	if err != nil {
		return 0, err
	}
	return int64(len(data)), writeNew(dst, data)
}
