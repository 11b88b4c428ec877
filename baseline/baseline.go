// Package baseline records the findings a project has accepted for now, so
// `kvlint check --baseline FILE` reports only new ones.
//
// A finding is matched by a fingerprint that survives edits elsewhere in the
// file: the SHA-256 of its rule, its file (slash-separated, relative to the
// working directory), its server's name (without a ":line" suffix, which
// scripts and Dockerfiles use as the name), the flag it is about, and the
// text of the line it points at with surrounding blanks trimmed. Line and
// column numbers are not part of it, so inserting lines above a finding
// keeps it matched; changing the line itself (the value of the flag) makes
// it a new finding, which is the point. Findings with equal fingerprints are
// told apart by their order in the file (occurrence 1, 2, …): a baseline with
// two such findings silences two, and a third one is new.
package baseline

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/internal/limits"
	"github.com/kvlint/kvlint/source"
	"github.com/kvlint/kvlint/source/jsonpos"
)

// Version is the version of the file format this package writes and reads.
const Version = 1

// File is a baseline: the findings accepted when it was written.
type File struct {
	Version  int     `json:"version"`
	Tool     string  `json:"tool"`
	Findings []Entry `json:"findings"`
}

// Entry is one accepted finding. Only Fingerprint and Occurrence are
// matched; the rest is there for people reading the file.
type Entry struct {
	Fingerprint string `json:"fingerprint"`
	Occurrence  int    `json:"occurrence"`
	Rule        string `json:"rule"`
	File        string `json:"file"`
	Line        int    `json:"line"`
	Server      string `json:"server,omitempty"`
	Arg         string `json:"arg,omitempty"`
	Message     string `json:"message"`
}

// key identifies a finding across runs.
type key struct {
	fingerprint string
	occurrence  int
}

// Build records the findings that are not suppressed otherwise. servers are
// the run's servers, which findings name by index.
func Build(findings []diag.Diagnostic, servers []*deploy.Server, files *source.Set) *File {
	f := &File{Version: Version, Tool: "kvlint", Findings: []Entry{}}
	fp := newFingerprinter(servers, files)
	for i := range findings {
		fd := &findings[i]
		if fd.Suppression != nil {
			continue
		}
		k := fp.key(fd)
		f.Findings = append(f.Findings, Entry{
			Fingerprint: k.fingerprint, Occurrence: k.occurrence,
			Rule: fd.Rule, File: normalizePath(fd.Span.File), Line: fd.Span.Line,
			Server: fp.server(fd.Server), Arg: fd.Arg, Message: fd.Message,
		})
	}
	return f
}

// Write writes the baseline as indented JSON.
func Write(w io.Writer, f *File) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(f)
}

// Load reads a baseline file. Errors are *diag.Diagnostic at the place in the
// file that is wrong, or at the file when it cannot be read.
func Load(path string) (*File, error) {
	data, err := limits.ReadFile(path)
	if err != nil {
		return nil, diag.Errorf(deploy.Span{File: path}, "%s", limits.Describe(err))
	}
	return Parse(path, data)
}

// Parse decodes a baseline's text; name is the file it came from. Errors
// are *diag.Diagnostic at the place in the text that is wrong.
func Parse(name string, data []byte) (*File, error) {
	var f File
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		e := jsonpos.DecodeError(name, data, err)
		e.Message = "not a kvlint baseline: " + e.Message
		return nil, e
	}
	at := jsonpos.NewIndex(name, data)
	if f.Tool != "kvlint" {
		return nil, at.Errorf("tool", "tool %q, want a kvlint baseline (write it with kvlint baseline)", f.Tool)
	}
	if f.Version != Version {
		return nil, at.Errorf("version", "version %d, want a kvlint baseline of version %d (write it with kvlint baseline)", f.Version, Version)
	}
	for i, e := range f.Findings {
		if e.Fingerprint == "" || e.Occurrence < 1 {
			return nil, at.Errorf(fmt.Sprintf("findings[%d]", i), "finding %d has no fingerprint or occurrence", i)
		}
	}
	return &f, nil
}

// Apply marks the findings the baseline holds as suppressed (kind
// "baseline"; path names the file in the suppression) and returns how many
// it marked. Findings suppressed otherwise are passed over, as Build passes
// over them, so occurrences count the same population.
func (b *File) Apply(findings []diag.Diagnostic, servers []*deploy.Server, files *source.Set, path string) int {
	known := map[key]bool{}
	for _, e := range b.Findings {
		known[key{e.Fingerprint, e.Occurrence}] = true
	}
	fp := newFingerprinter(servers, files)
	n := 0
	for i := range findings {
		f := &findings[i]
		if f.Suppression != nil {
			continue
		}
		if known[fp.key(f)] {
			f.Suppression = &diag.Suppression{
				Kind:   "baseline",
				Reason: "accepted in the baseline " + path,
				Span:   deploy.Span{File: path},
			}
			n++
		}
	}
	return n
}

// fingerprinter computes keys, counting occurrences; the lines come from
// the run's file set.
type fingerprinter struct {
	servers []*deploy.Server
	files   *source.Set
	seen    map[string]int
}

func newFingerprinter(servers []*deploy.Server, files *source.Set) *fingerprinter {
	return &fingerprinter{servers: servers, files: files, seen: map[string]int{}}
}

func (p *fingerprinter) key(f *diag.Diagnostic) key {
	h := sha256.New()
	for _, part := range []string{f.Rule, normalizePath(f.Span.File), p.server(f.Server), f.Arg, p.line(f.Span.File, f.Span.Line)} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	fp := hex.EncodeToString(h.Sum(nil)[:16])
	p.seen[fp]++
	return key{fp, p.seen[fp]}
}

// server is the name of a finding's server without the ":line" that names
// the servers of scripts and Dockerfiles.
func (p *fingerprinter) server(i int) string {
	if i < 0 || i >= len(p.servers) || p.servers[i] == nil {
		return ""
	}
	s := p.servers[i]
	return strings.TrimSuffix(s.Name, fmt.Sprintf(":%d", s.Span.Line))
}

// line is the text of a line of a file, blanks around it (a CRLF file's
// "\r" too) trimmed: "" when the run did not read the file or it has no
// such line. Lines end at "\n" (source.LF), so a fingerprint does not
// change with how the file was read.
func (p *fingerprinter) line(file string, n int) string {
	f := p.files.File(file)
	if f == nil {
		return ""
	}
	text, _ := f.Index(source.LF).Line(n)
	return strings.TrimSpace(string(text))
}

// normalizePath makes paths comparable between runs and systems:
// slash-separated, cleaned, relative to the working directory when inside it.
func normalizePath(path string) string {
	if path == "" {
		return ""
	}
	if filepath.IsAbs(path) {
		if wd, err := os.Getwd(); err == nil {
			if rel, err := filepath.Rel(wd, path); err == nil && !strings.HasPrefix(rel, "..") {
				path = rel
			}
		}
	}
	return filepath.ToSlash(filepath.Clean(path))
}
