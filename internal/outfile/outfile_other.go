//go:build !unix

package outfile

import (
	"os"
	"path/filepath"
	"strings"
)

// dir is the directory that holds an output, by path: without openat the
// checks are made on paths, and a link swapped in after them is followed.
type dir struct{ path string }

func (d dir) close() {}

func openDir(root, path string) (dir, string, error) {
	parent, base, rel, below, err := locate(root, path)
	if err != nil {
		return dir{}, "", err
	}
	if !below || rel == "." {
		return dir{parent}, base, nil
	}
	p := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		p = filepath.Join(p, part)
		info, err := os.Lstat(p)
		if err != nil {
			return dir{}, "", err
		}
		if info.Mode()&os.ModeSymlink != 0 {
			r, _ := filepath.Rel(root, p)
			return dir{}, "", &LinkedDirError{Dir: r}
		}
	}
	return dir{parent}, base, nil
}

func (d dir) check(base string) error {
	info, err := os.Lstat(filepath.Join(d.path, base))
	switch {
	case os.IsNotExist(err):
		return nil
	case err != nil:
		return err
	case info.Mode()&os.ModeSymlink != 0:
		return ErrLink
	case !info.Mode().IsRegular():
		return ErrNotRegular
	}
	return nil
}

func (d dir) replace(base string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(d.path, "."+base+".kvlint-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, filepath.Join(d.path, base))
	}
	if err != nil {
		os.Remove(name)
	}
	return err
}

func (d dir) exists(base string) error {
	_, err := os.Lstat(filepath.Join(d.path, base))
	return err
}
