// Package source holds the text of the files one run reads: each file's
// bytes, read once, and its line index. Parsers put every file they read
// into a Set; the reporters, the suppression scanner and baseline
// fingerprints take bytes and lines from the same Set, so nothing reads a
// file from disk again after parsing, and a file changed in between cannot
// make an excerpt disagree with the finding it illustrates.
package source

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kvlint/kvlint/internal/confined"
)

// Syntax is the comment syntax a file is written in: what the suppression
// scanner needs to find kvlint:ignore directives. The parser that read a
// file knows it; SyntaxOf guesses it from a name for a file no parser
// classified.
type Syntax int

const (
	SyntaxOther      Syntax = iota // "#" comments, read line by line as a shell would
	SyntaxShell                    // shell scripts (mvdan.cc/sh)
	SyntaxDockerfile               // Dockerfiles and Containerfiles
	SyntaxYAML                     // Kubernetes manifests, compose files, Helm charts and values
	SyntaxHCL                      // Terraform and other HCL
)

// SyntaxOf guesses a file's syntax from its name.
func SyntaxOf(name string) Syntax {
	base := strings.ToLower(filepath.Base(name))
	switch ext := filepath.Ext(base); {
	case ext == ".yaml" || ext == ".yml" || ext == ".tpl":
		return SyntaxYAML
	case ext == ".tf" || ext == ".tfvars" || ext == ".hcl":
		return SyntaxHCL
	case ext == ".sh" || ext == ".bash":
		return SyntaxShell
	case base == "dockerfile" || base == "containerfile" || strings.HasPrefix(base, "dockerfile.") ||
		strings.HasSuffix(base, ".dockerfile") || strings.HasPrefix(base, "containerfile."):
		return SyntaxDockerfile
	}
	return SyntaxOther
}

// File is one file as kvlint read it.
type File struct {
	// Name is the path as spans name the file (relative paths stay
	// relative to the working directory).
	Name   string
	Data   []byte
	Syntax Syntax

	indexes [breakRules]atomic.Pointer[Index]
}

// NewFile holds data, the content of the file name.
func NewFile(name string, data []byte, syntax Syntax) *File {
	return &File{Name: name, Data: data, Syntax: syntax}
}

// Index is the file's line index under rule b, built on first use. Two
// callers racing to build it build the same index; one is kept.
func (f *File) Index(b Breaks) *Index {
	if ix := f.indexes[b].Load(); ix != nil {
		return ix
	}
	ix := NewIndex(f.Data, b)
	if f.indexes[b].CompareAndSwap(nil, ix) {
		return ix
	}
	return f.indexes[b].Load()
}

// ReleaseIndexes lets the file's line indexes go; the next Index call
// builds its index again. A parser needs the index of every file it
// reads, the reporters only those of the few files a finding points
// into: releasing after the parse keeps a large run's memory to the text.
func (f *File) ReleaseIndexes() {
	for b := range f.indexes {
		f.indexes[b].Store(nil)
	}
}

// Set is the files of one run by name. It is safe for concurrent use, so
// parsers running in parallel add to one Set; a nil *Set holds nothing.
type Set struct {
	wd    string // the working directory relative names resolve against
	mu    sync.Mutex
	files map[string]*File
	// passed are files a parser read and let go because nothing can be
	// reported in them (see Pass).
	passed map[string]bool
	// fs confines what Read reads from disk (nil: any path, within the
	// per-file limits; see Confine).
	fs *confined.FS
}

// Confine makes Read read from disk only what fs allows: a run confines its
// set to the paths it checks, so a file that names another (a values file,
// --config FILE) never reads outside them. It returns s.
func (s *Set) Confine(fs *confined.FS) *Set {
	if s != nil {
		s.fs = fs
	}
	return s
}

// FS is the confinement Read applies (nil when the set reads any path).
func (s *Set) FS() *confined.FS {
	if s == nil {
		return nil
	}
	return s.fs
}

// NewSet returns an empty set.
func NewSet() *Set {
	wd, _ := os.Getwd() // "" on error: relative names then stay relative
	return &Set{wd: wd, files: map[string]*File{}, passed: map[string]bool{}}
}

// key makes names that address one file equal: "./a.sh", "a.sh" and the
// absolute path of a.sh.
func (s *Set) key(name string) string {
	if s.wd != "" && !filepath.IsAbs(name) {
		return filepath.Join(s.wd, name)
	}
	return filepath.Clean(name)
}

// Add puts f in the set and returns the file the set holds under its name:
// f, or the file added before it (the first read of a file is the one every
// consumer sees).
func (s *Set) Add(f *File) *File {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := s.key(f.Name)
	if held, ok := s.files[k]; ok {
		return held
	}
	s.files[k] = f
	delete(s.passed, k)
	return f
}

// Pass records that name was read whole and let go: nothing in it can be
// reported (no server, no error, no kvlint directive), so the set does not
// keep its text for the reporters, and the suppression scanner need not
// read it again. A file the set holds stays held. A parser that needs the
// text later (a --config file a launch names) reads it with Read, which
// keeps it from then on.
func (s *Set) Pass(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if k := s.key(name); s.files[k] == nil {
		s.passed[k] = true
	}
}

// Passed reports whether name was let go with Pass and not read again.
func (s *Set) Passed(name string) bool {
	if s == nil || name == "" {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.passed[s.key(name)]
}

// File is the file the set holds under name, or nil.
func (s *Set) File(name string) *File {
	if s == nil || name == "" {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.files[s.key(name)]
}

// Read returns the file named name: the one the set holds, else the file
// read from disk (bounded by internal/limits) and added with syntax. A nil
// Set reads without keeping.
func (s *Set) Read(name string, syntax Syntax) (*File, error) {
	if s == nil || s.fs == nil {
		return s.ReadFrom(confined.Unconfined, name, syntax)
	}
	return s.ReadFrom(s.fs, name, syntax)
}

// ReadFrom is Read through fs instead of the set's confinement: for a path
// the user named (--values), which may be anywhere.
func (s *Set) ReadFrom(fs *confined.FS, name string, syntax Syntax) (*File, error) {
	if f := s.File(name); f != nil {
		return f, nil
	}
	data, err := fs.ReadFile(name)
	if err != nil {
		return nil, err
	}
	f := NewFile(name, data, syntax)
	if s == nil {
		return f, nil
	}
	return s.Add(f), nil
}

// ReleaseIndexes releases the line indexes of every file in the set
// (File.ReleaseIndexes).
func (s *Set) ReleaseIndexes() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.files {
		f.ReleaseIndexes()
	}
}

// Files lists the set's files ordered by name.
func (s *Set) Files() []*File {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	out := make([]*File, 0, len(s.files))
	for _, f := range s.files {
		out = append(out, f)
	}
	s.mu.Unlock()
	slices.SortFunc(out, func(a, b *File) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Len is the number of files in the set.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.files)
}
