// Package confined is the one way kvlint reads its input: every file a
// parser, the chart loader, a policy directory or a configuration reads
// because the tree asked for it goes through an FS, which follows a
// symbolic link only when it resolves inside the trees the run checks,
// opens only regular files (never a device, a named pipe or a socket) and
// bounds their size (internal/limits). Paths the user names on the command
// line are the roots: they are read wherever they point.
package confined

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/kvlint/kvlint/internal/limits"
)

// ErrOutside is the refusal of a path that resolves outside every root, or
// into a .git directory below one: git's own files (.git/config holds the
// checkout's credentials in CI) are never input, and discovery never
// enters them.
var ErrOutside = errors.New("resolves outside the checked paths; not read")

// FS confines reads to its roots. The zero FS and a nil *FS have no roots
// and refuse every path; Unconfined reads any path (for a path the user
// named).
type FS struct {
	// roots are absolute paths with symbolic links resolved: the
	// directories checked, and for a file checked, the file itself and
	// its directory (a chart or module named by one of its files).
	roots []string
	open  bool
	// dirs caches each directory's resolved path (filepath.EvalSymlinks),
	// so reading the files of one directory resolves it once, not once per
	// file and path component.
	dirs sync.Map // absolute dir → real dir
}

// Unconfined reads any path, with the same regular-file and size rules: for
// paths the user named on the command line (--values, --policy, --config).
var Unconfined = &FS{open: true}

// New confines reads to roots, the paths the user named. A root that is a
// symbolic link is followed wherever it points: the user chose it.
func New(roots []string) *FS {
	c := &FS{}
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			continue
		}
		real := abs
		if ev, err := filepath.EvalSymlinks(abs); err == nil {
			real = ev
		}
		c.roots = append(c.roots, real)
		if info, err := os.Stat(real); err == nil && !info.IsDir() {
			c.roots = append(c.roots, filepath.Dir(real))
			// The directory as named, too: ./x.sh resolved elsewhere still
			// names the tree it sits in.
			if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
				c.roots = append(c.roots, dir)
			}
		}
	}
	return c
}

// Within reports whether path is dir or inside it (both absolute, clean).
func Within(dir, path string) bool {
	r, err := filepath.Rel(dir, path)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && !filepath.IsAbs(r)
}

// Resolve returns p's absolute path with every symbolic link resolved, or
// ErrOutside (wrapped in a *fs.PathError naming p) when that path is
// outside every root. A path that does not exist is resolved as far as it
// exists, so "no such file" is still the error a reader sees.
func (c *FS) Resolve(p string) (string, error) {
	real, _, err := c.resolve(p)
	return real, err
}

// resolve is Resolve that also returns the file's Lstat information when
// p itself is no symbolic link (nil otherwise): then p's real path is its
// directory's, which is resolved once per directory, joined with its name.
func (c *FS) resolve(p string) (string, fs.FileInfo, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", nil, &fs.PathError{Op: "resolve", Path: p, Err: err}
	}
	if info, lerr := os.Lstat(abs); lerr == nil && info.Mode()&fs.ModeSymlink == 0 {
		if dir, derr := c.realDir(filepath.Dir(abs)); derr == nil {
			real := filepath.Join(dir, filepath.Base(abs))
			if !c.inside(real) {
				return "", nil, &fs.PathError{Op: "open", Path: p, Err: ErrOutside}
			}
			return real, info, nil
		}
	}
	real, err := c.resolveWhole(p, abs)
	return real, nil, err
}

// realDir is dir with its symbolic links resolved, cached.
func (c *FS) realDir(dir string) (string, error) {
	if c == nil {
		return filepath.EvalSymlinks(dir)
	}
	if r, ok := c.dirs.Load(dir); ok {
		return r.(string), nil
	}
	r, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	c.dirs.Store(dir, r)
	return r, nil
}

// resolveWhole resolves abs, a symbolic link or a path whose directory
// does not resolve, through filepath.EvalSymlinks.
func (c *FS) resolveWhole(p, abs string) (string, error) {
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		// Missing, a loop, or unreadable: Lstat says which; a dangling
		// link is refused as its target would be.
		if _, lerr := os.Lstat(abs); lerr != nil {
			return "", lerr
		}
		if target, rerr := os.Readlink(abs); rerr == nil {
			t := target
			if !filepath.IsAbs(t) {
				t = filepath.Join(filepath.Dir(abs), t)
			}
			if !c.inside(filepath.Clean(t)) {
				return "", &fs.PathError{Op: "open", Path: p, Err: ErrOutside}
			}
		}
		// The system's own word for it (a loop, a missing target).
		if _, serr := os.Stat(abs); serr != nil {
			return "", pathErr(p, serr)
		}
		return "", &fs.PathError{Op: "open", Path: p, Err: err}
	}
	if !c.inside(real) {
		return "", &fs.PathError{Op: "open", Path: p, Err: ErrOutside}
	}
	return real, nil
}

func (c *FS) inside(real string) bool {
	if c == nil {
		return false
	}
	if c.open {
		return true
	}
	for _, r := range c.roots {
		if Within(r, real) && !inGitDir(r, real) {
			return true
		}
	}
	return false
}

// inGitDir reports whether real, inside root, is in a .git directory below
// it.
func inGitDir(root, real string) bool {
	rel, err := filepath.Rel(root, real)
	if err != nil {
		return false
	}
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if part == ".git" {
			return true
		}
	}
	return false
}

// Stat is os.Stat of p, refused when p resolves outside the roots.
func (c *FS) Stat(p string) (fs.FileInfo, error) {
	real, err := c.Resolve(p)
	if err != nil {
		return nil, err
	}
	return os.Stat(real)
}

// ReadDir lists directory p, refused when p resolves outside the roots.
// Its entries are not vetted: read them through c.
func (c *FS) ReadDir(p string) ([]fs.DirEntry, error) {
	real, err := c.Resolve(p)
	if err != nil {
		return nil, err
	}
	return os.ReadDir(real)
}

// ReadFile reads regular file p within limits.MaxFileSize, refused when p
// resolves outside the roots. The file's kind is checked before it is
// opened, and the open does not block (a named pipe swapped in between is
// still refused by limits.ReadFile).
func (c *FS) ReadFile(p string) ([]byte, error) {
	real, err := c.regular(p)
	if err != nil {
		return nil, err
	}
	data, err := limits.ReadFile(real)
	if err != nil {
		return nil, pathErr(p, err)
	}
	return data, nil
}

// ReadHead reads at most n bytes from the start of regular file p.
func (c *FS) ReadHead(p string, n int) ([]byte, error) {
	real, err := c.regular(p)
	if err != nil {
		return nil, err
	}
	f, err := limits.Open(real)
	if err != nil {
		return nil, pathErr(p, err)
	}
	defer f.Close()
	buf := make([]byte, n)
	k, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, pathErr(p, err)
	}
	return buf[:k], nil
}

// regular resolves p and checks, before any open, that it is a regular
// file.
func (c *FS) regular(p string) (string, error) {
	real, info, err := c.resolve(p)
	if err != nil {
		return "", err
	}
	if info == nil { // a link: the kind of what it names
		if info, err = os.Stat(real); err != nil {
			return "", pathErr(p, err)
		}
	}
	if err := limits.Regular(info); err != nil {
		return "", pathErr(p, err)
	}
	return real, nil
}

func pathErr(p string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: p, Err: pe.Err}
	}
	return &fs.PathError{Op: "read", Path: p, Err: err}
}

// Describe says why a read failed, without the path (limits.Describe).
func Describe(err error) string { return limits.Describe(err) }
