package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kvlint/kvlint/internal/limits"
)

// stdinName is the name standard input is known by when --stdin-filename
// does not give one, as actionlint names it (rhysd/actionlint@011a6d15
// linter.go NewLinter: "<stdin>" unless -stdin-filename): positions read
// "<stdin>:3:7" and the format is decided from the content alone.
const stdinName = "<stdin>"

// maxStdinParents bounds the "../" a --stdin-filename may start with.
const maxStdinParents = 32

// stdinInput is `kvlint check -`: the text read from standard input and the
// name it is checked under.
type stdinInput struct {
	name  string // as positions show it: relative to the working directory
	named bool   // --stdin-filename gave it
	data  []byte
	// tooBig is input over limits.MaxFileSize, refused like such a file.
	tooBig bool
	// parents is how many "../" name starts with; rest is name without them.
	parents int
	rest    string
}

// readStdin reads standard input within the size limit of any input file
// and settles the name it is checked under. The name is never opened: it
// decides the format (as a file's name does) and is what positions say.
func readStdin(r io.Reader, name string) (*stdinInput, error) {
	in := &stdinInput{name: name, named: name != ""}
	if !in.named {
		in.name = stdinName
	}
	if filepath.IsAbs(in.name) {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("--stdin-filename %s: %w", name, err)
		}
		rel, err := filepath.Rel(wd, in.name)
		if err != nil {
			return nil, usagef("--stdin-filename %s: cannot be named from the working directory (%v)", name, err)
		}
		in.name = rel
	}
	in.name = filepath.Clean(in.name)
	in.rest = in.name
	for in.rest == ".." || strings.HasPrefix(in.rest, ".."+string(filepath.Separator)) {
		in.parents++
		in.rest = strings.TrimPrefix(strings.TrimPrefix(in.rest, ".."), string(filepath.Separator))
	}
	if in.rest == "" || in.rest == "." || !filepath.IsLocal(in.rest) || in.parents > maxStdinParents {
		return nil, usagef("--stdin-filename %q does not name a file", name)
	}
	if r == nil {
		return nil, errors.New("no standard input")
	}
	data, err := io.ReadAll(io.LimitReader(r, limits.MaxFileSize+1))
	if err != nil {
		return nil, inputError{fmt.Errorf("reading standard input: %w", err)}
	}
	if len(data) > limits.MaxFileSize {
		in.tooBig = true
		data = nil
	}
	in.data = data
	return in, nil
}

// spool writes the input under a new private directory, at its name seen
// from a stand-in working directory, so that the run reads it, detects its
// format and names it exactly as it would the file the name names, while
// nothing outside that directory is read or written. It returns the stand-in
// working directory and a function that removes everything.
func (in *stdinInput) spool() (wd string, remove func(), err error) {
	root, err := os.MkdirTemp("", "kvlint-stdin-")
	if err != nil {
		return "", nil, err
	}
	remove = func() { os.RemoveAll(root) }
	wd = root
	for range in.parents {
		// A name that starts with "../" is outside the working directory:
		// the stand-in sits that many levels below the file's tree.
		wd = filepath.Join(wd, ".kvlint-wd")
	}
	p := filepath.Join(root, in.rest)
	err = os.MkdirAll(wd, 0o700)
	if err == nil {
		err = os.MkdirAll(filepath.Dir(p), 0o700)
	}
	if err == nil && !in.tooBig {
		err = os.WriteFile(p, in.data, 0o600)
	}
	if err != nil {
		remove()
		return "", nil, err
	}
	return wd, remove, nil
}

// absPaths makes the paths a flag named relative to the working directory
// absolute, before a run over standard input moves to its stand-in.
func absPaths(paths []string) ([]string, error) {
	out := make([]string, len(paths))
	for i, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		out[i] = abs
	}
	return out, nil
}
