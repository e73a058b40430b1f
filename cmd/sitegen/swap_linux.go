package main

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// replaceDir puts the tree at tmp in place of the one at out and returns the
// path where the previous tree now is ("" when out did not exist), for the
// caller to remove. On Linux the two are exchanged by one renameat2 call with
// RENAME_EXCHANGE: a reader of out sees the old tree or the new one, never a
// missing folder.
func replaceDir(tmp, out string) (string, error) {
	err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, out, unix.RENAME_EXCHANGE)
	switch {
	case err == nil:
		return tmp, nil
	case errors.Is(err, unix.ENOENT):
		// No previous tree: a plain rename is atomic already.
		return "", os.Rename(tmp, out)
	case errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EINVAL), errors.Is(err, unix.EOPNOTSUPP):
		// A kernel or file system without RENAME_EXCHANGE.
		return replaceDirAside(tmp, out)
	}
	return "", &os.LinkError{Op: "renameat2 RENAME_EXCHANGE", Old: tmp, New: out, Err: err}
}
