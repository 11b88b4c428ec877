package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// FindFor finds the .kvlint.yaml that governs the checked paths: the first
// one in the deepest directory holding all of them or its parents, else the
// first one in dir (the working directory) or its parents. So
// `kvlint check examples/healthy` run from the repository root reads
// examples/healthy/.kvlint.yaml, and a configuration next to the working
// directory still applies to the paths below it. No file is not an error.
func FindFor(dir string, paths []string) (*Config, error) {
	if common, ok := commonDir(paths); ok {
		p, err := lookUp(common)
		if err != nil {
			return nil, err
		}
		if p != "" {
			return loadFound(p)
		}
	}
	return Find(dir)
}

// InDir returns the path of the .kvlint.yaml in dir itself, or "" when
// there is none (or it cannot be seen).
func InDir(dir string) (string, error) {
	p := filepath.Join(dir, FileName)
	if _, err := os.Lstat(p); err == nil {
		return p, nil
	} else if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission) {
		return "", err
	}
	return "", nil
}

// lookUp returns the first .kvlint.yaml in dir and its parents, or "".
func lookUp(dir string) (string, error) {
	for {
		if p, err := InDir(dir); p != "" || err != nil {
			return p, err
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil
		}
		dir = parent
	}
}

// commonDir is the deepest directory that holds every path that exists (a
// file counts as its directory); false when none exists.
func commonDir(paths []string) (string, bool) {
	common, found := "", false
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		fi, err := os.Stat(abs)
		if err != nil {
			continue
		}
		if !fi.IsDir() {
			abs = filepath.Dir(abs)
		}
		if !found {
			common, found = abs, true
			continue
		}
		for !within(abs, common) {
			parent := filepath.Dir(common)
			if parent == common {
				break
			}
			common = parent
		}
	}
	return common, found
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	if path == dir {
		return true
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
