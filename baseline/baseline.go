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
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/parsers/k8s/yamlsrc"
	"github.com/kvlint/kvlint/parsers/limits"
	"github.com/kvlint/kvlint/rules"
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
func Build(findings []rules.Finding, servers []*deploy.Server) *File {
	f := &File{Version: Version, Tool: "kvlint", Findings: []Entry{}}
	fp := newFingerprinter(servers)
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

// Load reads a baseline file. Errors are *deploy.Error at the place in the
// file that is wrong, or at the file when it cannot be read.
func Load(path string) (*File, error) {
	data, err := limits.ReadFile(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, deploy.Errorf(deploy.Span{File: path}, "%v", err)
	}
	return Parse(path, data)
}

// Parse decodes a baseline's text; name is the file it came from. Errors
// are *deploy.Error at the place in the text that is wrong.
func Parse(name string, data []byte) (*File, error) {
	src := yamlsrc.NewSource(name, data) // line and column of a byte offset
	at := func(off int64) deploy.Span {
		o := int(min(max(off, 0), int64(len(data))))
		return src.Span(o, min(o+1, len(data)))
	}
	key := func(name string) deploy.Span {
		return at(int64(max(bytes.Index(data, []byte(`"`+name+`"`)), 0)))
	}
	var f File
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		span := at(dec.InputOffset())
		msg := strings.TrimPrefix(err.Error(), "json: ")
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			span = at(se.Offset - 1) // the byte that was not expected
		case errors.As(err, &te):
			span = at(valueStart(data, te.Offset))
			msg = fmt.Sprintf("%s must be %s, not a JSON %s", te.Field, jsonKind(te.Type), te.Value)
		case errors.Is(err, io.ErrUnexpectedEOF):
			span = at(int64(len(data)) - 1) // the text stops short
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			name, _ := strconv.Unquote(strings.TrimPrefix(err.Error(), "json: unknown field "))
			span = key(name)
		}
		return nil, deploy.Errorf(span, "not a kvlint baseline: %s", msg)
	}
	if f.Tool != "kvlint" || f.Version != Version {
		return nil, deploy.Errorf(key("version"), "tool %q version %d, want a kvlint baseline of version %d (write it with kvlint baseline)", f.Tool, f.Version, Version)
	}
	for i, e := range f.Findings {
		if e.Fingerprint == "" || e.Occurrence < 1 {
			return nil, deploy.Errorf(key("findings"), "finding %d has no fingerprint or occurrence", i)
		}
	}
	return &f, nil
}

// valueStart finds where the scalar that ends at offset end begins (a
// type error gives the end); for an object or array it gives the end.
func valueStart(data []byte, end int64) int64 {
	if len(data) == 0 {
		return 0
	}
	i := min(max(end, 1), int64(len(data))) - 1
	if data[i] == '"' {
		for j := i - 1; j >= 0; j-- {
			if data[j] == '"' && (j == 0 || data[j-1] != '\\') {
				return j
			}
		}
		return i
	}
	for i > 0 && !bytes.ContainsRune([]byte(" \t\r\n,:[{"), rune(data[i-1])) {
		i--
	}
	return i
}

// jsonKind names what JSON value decodes into t.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "a number"
	}
	return t.String()
}

// Apply marks the findings the baseline holds as suppressed (kind
// "baseline"; path names the file in the suppression) and returns how many
// it marked. Findings suppressed otherwise are passed over, as Build passes
// over them, so occurrences count the same population.
func (b *File) Apply(findings []rules.Finding, servers []*deploy.Server, path string) int {
	known := map[key]bool{}
	for _, e := range b.Findings {
		known[key{e.Fingerprint, e.Occurrence}] = true
	}
	fp := newFingerprinter(servers)
	n := 0
	for i := range findings {
		f := &findings[i]
		if f.Suppression != nil {
			continue
		}
		if known[fp.key(f)] {
			f.Suppression = &rules.Suppression{
				Kind:   "baseline",
				Reason: "accepted in the baseline " + path,
				Span:   deploy.Span{File: path},
			}
			n++
		}
	}
	return n
}

// fingerprinter computes keys, counting occurrences, and caches file lines.
type fingerprinter struct {
	servers []*deploy.Server
	seen    map[string]int
	lines   map[string][]string
}

func newFingerprinter(servers []*deploy.Server) *fingerprinter {
	return &fingerprinter{servers: servers, seen: map[string]int{}, lines: map[string][]string{}}
}

func (p *fingerprinter) key(f *rules.Finding) key {
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

// line is the trimmed text of a line of a file, "" when it can't be read.
func (p *fingerprinter) line(file string, n int) string {
	lines, ok := p.lines[file]
	if !ok {
		if data, err := os.ReadFile(file); err == nil {
			lines = strings.Split(string(data), "\n")
		}
		p.lines[file] = lines
	}
	if n < 1 || n > len(lines) {
		return ""
	}
	return strings.TrimSpace(lines[n-1])
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
