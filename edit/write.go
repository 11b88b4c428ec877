package edit

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/kvlint/kvlint/internal/confined"
)

// ErrLink refuses a file whose path goes through a symbolic link: a
// checkout can commit a link to any file the user may write, and a fix is
// meant for the file the finding was read from, not where a link points.
var ErrLink = errors.New("its path goes through a symbolic link; kvlint fix writes no file through a link")

// Write replaces the file at path with data, only when path lies inside
// the trees fs confines reads to and no component of it is a symbolic
// link: through a temporary file in the same directory and a rename, so
// the file changes whole or not at all, keeping its permission bits (a
// script stays executable).
func Write(fs *confined.FS, path string, data []byte) error {
	real, info, err := writable(fs, path)
	if err != nil {
		return err
	}
	dir, base := filepath.Split(real)
	tmp, err := os.CreateTemp(dir, "."+base+".kvlint-fix-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(info.Mode().Perm())
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, real)
	}
	if err != nil {
		os.Remove(name)
	}
	return err
}

// Writable says why Write would refuse path (nil: it would write it).
func Writable(fs *confined.FS, path string) error {
	_, _, err := writable(fs, path)
	return err
}

func writable(fs *confined.FS, path string) (string, os.FileInfo, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", nil, err
	}
	real, err := fs.Resolve(path)
	if err != nil {
		return "", nil, err
	}
	if real != filepath.Clean(abs) {
		return "", nil, ErrLink
	}
	info, err := os.Lstat(real)
	if err != nil {
		return "", nil, err
	}
	if !info.Mode().IsRegular() {
		return "", nil, errors.New("it is not a regular file")
	}
	return real, info, nil
}
