// Package limits holds the bounds every parser applies to one input file, so
// that one huge or odd file costs a clear error, not the whole run.
package limits

import (
	"errors"
	"os"
)

// MaxFileSize bounds what a single file may cost: manifests, scripts and
// modules are kilobytes; a larger file is reported, not read.
const MaxFileSize = 16 << 20

// ReadFile reads a file, refusing a directory and anything over MaxFileSize.
func ReadFile(p string) ([]byte, error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		return nil, errors.New("is a directory, expected a file")
	}
	if info.Size() > MaxFileSize {
		return nil, errors.New("file is larger than 16 MiB; not read")
	}
	return os.ReadFile(p)
}
