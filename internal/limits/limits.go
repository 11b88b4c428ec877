// Package limits holds the bounds every parser applies to one input file, so
// that one huge or odd file costs a clear error, not the whole run.
package limits

import (
	"errors"
	"io"
	"io/fs"
	"os"
)

// MaxFileSize bounds what a single file may cost: manifests, scripts and
// modules are kilobytes; a larger file is reported, not read.
const MaxFileSize = 16 << 20

// ReadFile reads a regular file, refusing a directory, anything else that is
// not a regular file (a named pipe would block the read forever) and
// anything over MaxFileSize. It opens the file once and asks the open file
// what it is: one path lookup per file, which counts on a large repository.
func ReadFile(p string) ([]byte, error) {
	f, err := Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if info.Size() > MaxFileSize {
		return nil, errors.New("file is larger than 16 MiB; not read")
	}
	// The size may change under the read: read at most one byte past the
	// limit, so a file that grew is still refused.
	data := make([]byte, 0, info.Size()+1)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
		if len(data) > MaxFileSize {
			return nil, errors.New("file is larger than 16 MiB; not read")
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}

// Open opens p for reading without blocking on a named pipe and refuses,
// before any read, what is not a regular file.
func Open(p string) (*os.File, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|openNonBlocking, 0)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err == nil {
		err = Regular(info)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Regular says what a file that is not a regular file is (nil for a
// regular file).
func Regular(info fs.FileInfo) error {
	m := info.Mode()
	switch {
	case m.IsRegular():
		return nil
	case m.IsDir():
		return errors.New("is a directory, expected a file")
	case m&fs.ModeNamedPipe != 0:
		return errors.New("is a named pipe, not a regular file; not read")
	case m&fs.ModeSocket != 0:
		return errors.New("is a socket, not a regular file; not read")
	case m&fs.ModeDevice != 0:
		return errors.New("is a device, not a regular file; not read")
	}
	return errors.New("is not a regular file; not read")
}

// Describe says what went wrong reading a file, without the path the
// diagnostic's span already names ("no such file or directory").
func Describe(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "no such file or directory"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	}
	return err.Error()
}
