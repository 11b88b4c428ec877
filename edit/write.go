package edit

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/kvlint/kvlint/internal/confined"
	"github.com/kvlint/kvlint/internal/outfile"
)

// ErrLink refuses a file whose path goes through a symbolic link: a
// checkout can commit a link to any file the user may write, and a fix is
// meant for the file the finding was read from, not where a link points.
var ErrLink = errors.New("its path goes through a symbolic link; kvlint fix writes no file through a link")

// Tree is where kvlint fix may write: the files below the paths the user
// checked, reached without a symbolic link below those paths (the paths
// themselves are the user's choice, wherever they point).
type Tree struct {
	roots []string // absolute, clean, as named
	fs    *confined.FS
}

// NewTree is the tree of the checked paths.
func NewTree(paths []string) *Tree {
	t := &Tree{fs: confined.New(paths)}
	for _, p := range paths {
		if abs, err := filepath.Abs(p); err == nil {
			t.roots = append(t.roots, abs)
		}
	}
	return t
}

// Write replaces the file at path with data when the tree lets it
// (Writable): through a temporary file in the same directory and a
// rename, so the file changes whole or not at all, keeping its permission
// bits (a script stays executable). The checks are made again as it
// writes, on directories opened one at a time from the checked path
// without following a link (outfile.ReplaceBelow): on unix, a link
// swapped in after Writable said yes is refused, never written through.
func (t *Tree) Write(path string, data []byte) error {
	root, real, info, err := t.writable(path)
	if err != nil {
		return err
	}
	err = outfile.ReplaceBelow(root, real, data, info.Mode().Perm())
	var linked *outfile.LinkedDirError
	if errors.Is(err, outfile.ErrLink) || errors.As(err, &linked) {
		return ErrLink
	}
	return err
}

// Writable says why Write would refuse path (nil: it would write it).
func (t *Tree) Writable(path string) error {
	_, _, _, err := t.writable(path)
	return err
}

// writable checks that path is a regular file inside a checked path,
// that no component below that path is a symbolic link, and that it
// resolves inside the checked trees; it returns the checked path it is
// under and the path to write.
func (t *Tree) writable(path string) (root, abs string, info os.FileInfo, err error) {
	abs, err = filepath.Abs(path)
	if err != nil {
		return "", "", nil, err
	}
	for _, r := range t.roots {
		if confined.Within(r, abs) && len(r) > len(root) {
			root = r
		}
	}
	if root == "" {
		return "", "", nil, confined.ErrOutside
	}
	// Every component below the checked path, and the file itself even
	// when it is the checked path: the file written is never a link.
	for p := abs; ; p = filepath.Dir(p) {
		if p != root || p == abs {
			info, err := os.Lstat(p)
			if err != nil {
				return "", "", nil, err
			}
			if info.Mode()&os.ModeSymlink != 0 {
				return "", "", nil, ErrLink
			}
		}
		if p == root || filepath.Dir(p) == p {
			break
		}
	}
	if _, err := t.fs.Resolve(path); err != nil {
		return "", "", nil, err
	}
	info, err = os.Lstat(abs)
	if err != nil {
		return "", "", nil, err
	}
	if !info.Mode().IsRegular() {
		return "", "", nil, errors.New("it is not a regular file")
	}
	// A checked path that names the file itself: its directory is where
	// the rename happens, the user's choice like the path.
	if root == abs {
		root = filepath.Dir(abs)
	}
	return root, abs, info, nil
}
