//go:build unix

package outfile

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// dir is an open directory that outputs are created in.
type dir struct{ fd int }

func (d dir) close() { unix.Close(d.fd) }

// openDir opens the directory that holds path and returns it with the
// file's base name. Below root (an absolute, clean directory: the working
// directory for outputs) each component is opened relative to the one
// before with O_NOFOLLOW (open(2): "If the trailing component ... is a
// symbolic link, then the open fails, with the error ELOOP"), so no link
// is followed between the check and the write.
func openDir(root, path string) (dir, string, error) {
	parent, base, rel, below, err := locate(root, path)
	if err != nil {
		return dir{}, "", err
	}
	if base == "" {
		return dir{}, "", ErrNotRegular
	}
	if !below {
		fd, err := openDirAt(unix.AT_FDCWD, parent, false)
		return dir{fd}, base, err
	}
	fd, err := openDirAt(unix.AT_FDCWD, root, false)
	if err != nil || rel == "." {
		return dir{fd}, base, err
	}
	parts := strings.Split(rel, string(filepath.Separator))
	for i, part := range parts {
		next, err := openDirAt(fd, part, true)
		if err != nil {
			// Linux answers ENOTDIR, not ELOOP, when O_DIRECTORY meets
			// a link: what is there says which it was.
			var st unix.Stat_t
			if errors.Is(err, unix.ELOOP) || unix.Fstatat(fd, part, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
				err = nil
			}
			unix.Close(fd)
			if err == nil {
				return dir{}, "", &LinkedDirError{Dir: filepath.Join(parts[:i+1]...)}
			}
			return dir{}, "", &os.PathError{Op: "open", Path: filepath.Join(parts[:i+1]...), Err: err}
		}
		unix.Close(fd)
		fd = next
	}
	return dir{fd}, base, nil
}

func openDirAt(at int, name string, nofollow bool) (int, error) {
	flags := unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC
	if nofollow {
		flags |= unix.O_NOFOLLOW
	}
	for {
		fd, err := unix.Openat(at, name, flags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// check refuses a base name that is a link or not a regular file; a
// missing one is created.
func (d dir) check(base string) error {
	var st unix.Stat_t
	err := unix.Fstatat(d.fd, base, &st, unix.AT_SYMLINK_NOFOLLOW)
	switch {
	case errors.Is(err, unix.ENOENT):
		return nil
	case err != nil:
		return err
	case st.Mode&unix.S_IFMT == unix.S_IFLNK:
		return ErrLink
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		return ErrNotRegular
	}
	return nil
}

// replace creates a temporary file in d (O_EXCL|O_NOFOLLOW: never an
// existing file or a link), writes data, gives it perm and renames it over
// base, all relative to d.
func (d dir) replace(base string, data []byte, perm os.FileMode) error {
	var name string
	var fd int
	for range 100 {
		name = "." + base + ".kvlint-" + strconv.FormatUint(rand.Uint64(), 36)
		var err error
		fd, err = unix.Openat(d.fd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if err == nil {
			break
		}
		if !errors.Is(err, unix.EEXIST) && !errors.Is(err, unix.EINTR) {
			return &os.PathError{Op: "create", Path: name, Err: err}
		}
		fd = -1
	}
	if fd < 0 {
		return &os.PathError{Op: "create", Path: name, Err: unix.EEXIST}
	}
	f := os.NewFile(uintptr(fd), name)
	_, err := f.Write(data)
	if err == nil {
		// The file is made 0600 and widened: the umask must not decide
		// whether a report others read can be read.
		err = f.Chmod(perm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = unix.Renameat(d.fd, name, d.fd, base)
	}
	if err != nil {
		unix.Unlinkat(d.fd, name, 0)
	}
	return err
}

// exists says whether base is in d (check has already refused a link or
// another kind of file).
func (d dir) exists(base string) error {
	var st unix.Stat_t
	if err := unix.Fstatat(d.fd, base, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return &os.PathError{Op: "stat", Path: base, Err: err}
	}
	return nil
}
