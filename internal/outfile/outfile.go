// Package outfile writes kvlint's own outputs (reports, generated files)
// without ever writing through a symbolic link a checkout may commit.
//
// A path below the working directory (the checkout, in CI) is opened one
// directory at a time, each refused if it is a link, and the file is
// created and renamed relative to the directory so opened: a link swapped
// in for any of those directories after the check changes nothing, since
// the directory in hand is the one that was checked. Directories above
// the working directory, and a path outside it, are the user's own.
package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrLink refuses an output path that is a symbolic link: a checkout can
// commit kvlint.sarif as a link to any file the CI user may write.
var ErrLink = errors.New("is a symbolic link; kvlint does not write through links (remove it or name another file)")

// ErrNotRegular refuses to replace what is not a regular file.
var ErrNotRegular = errors.New("is not a regular file")

// LinkedDirError is a path whose directory, below the working directory,
// is a symbolic link.
type LinkedDirError struct {
	Dir string // relative to the working directory
}

func (e *LinkedDirError) Error() string {
	return fmt.Sprintf("is in %s, a symbolic link; kvlint does not write through links (remove it or name another file)", e.Dir)
}

// Check says why path may not be replaced by an output (nil: it may), so
// that a run can refuse before it starts. Replace checks again as it
// writes: Check alone protects nothing.
func Check(path string) error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	d, base, err := openDir(wd, path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // a missing directory: the write fails on its own
	}
	if err != nil {
		return err
	}
	defer d.close()
	return d.check(base)
}

// Replace writes data to path through a temporary file in the same
// directory and a rename over path: the output appears whole or not at
// all. A symbolic link at path or in its directories below the working
// directory is refused; one put at path after that check is replaced by
// the rename, never written through, since rename(2) acts on the link
// itself.
func Replace(path string, data []byte) error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	return replaceBelow(wd, path, data, 0o644, false)
}

// ReplaceBelow replaces the existing regular file at path, inside the
// directory root, as Replace does an output: every directory from root
// down to the file's is opened without following a link, the file is
// refused if it is a link or not a regular file, and data goes through a
// temporary file renamed over it, with permission bits perm. On unix
// (openat), a link swapped in for any of those directories, or for the
// file, after the checks is never written through; elsewhere the checks
// are made on paths and that race stays open. root is the user's choice,
// wherever it points; a path outside it is refused.
func ReplaceBelow(root, path string, data []byte, perm fs.FileMode) error {
	root, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	if _, _, _, below, err := locate(root, path); err != nil || !below {
		return fmt.Errorf("%s is not inside %s", path, root)
	}
	return replaceBelow(root, path, data, perm, true)
}

// locate splits path into its absolute, clean directory and its base name,
// and says where the directory lies against root (absolute and clean):
// below is set when it is root or inside it, rel then being the way down
// from root ("." for root itself).
func locate(root, path string) (parent, base, rel string, below bool, err error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", "", "", false, err
	}
	parent, base = filepath.Split(abs)
	parent = filepath.Clean(parent)
	rel, rerr := filepath.Rel(root, parent)
	below = rerr == nil && !filepath.IsAbs(rel) && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
	return parent, base, rel, below, nil
}

// replaceBelow opens path's directory below root and replaces its base
// name; mustExist refuses to create a file that is not there.
func replaceBelow(root, path string, data []byte, perm fs.FileMode, mustExist bool) error {
	d, base, err := openDir(root, path)
	if err != nil {
		return err
	}
	defer d.close()
	if err := d.check(base); err != nil {
		return err
	}
	if mustExist {
		if err := d.exists(base); err != nil {
			return err
		}
	}
	if afterCheck != nil {
		afterCheck()
	}
	return d.replace(base, data, perm)
}

// afterCheck, when set by a test, runs between the checks and the write:
// where an attacker racing kvlint would swap a link in.
var afterCheck func()
