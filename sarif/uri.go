package sarif

import (
	"net/url"
	"path/filepath"
	"strings"

	gosarif "github.com/owenrumney/go-sarif/v2/sarif"
)

// SrcRoot is the uriBaseId of every relative URI: the working directory of
// the run, which is the repository root when kvlint runs in CI.
const SrcRoot = "%SRCROOT%"

// locator turns the paths in spans (as written on the command line, relative
// to the process's working directory) into SARIF artifact locations.
type locator struct {
	root string // absolute, symlinks resolved, what %SRCROOT% stands for
}

// newLocator anchors relative URIs at root (an absolute directory).
func newLocator(root string) locator {
	return locator{root: resolve(root)}
}

// resolve makes p absolute and resolves symlinks where the path exists, so a
// file reached through a link is named where it really is (GitHub resolves
// its checkout the same way).
func resolve(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		abs = filepath.Clean(p)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	// The file may be gone (or never existed: an error about a missing path);
	// resolve its directory at least.
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(dir, filepath.Base(abs))
	}
	return abs
}

// artifact returns the location of a file: a URI relative to %SRCROOT% when
// the file is inside the working directory, else an absolute file:// URI
// (GitHub drops results outside the checkout, but the log stays valid and
// other SARIF viewers can open it).
func (l locator) artifact(file string) *gosarif.ArtifactLocation {
	abs := resolve(file)
	if rel, err := filepath.Rel(l.root, abs); err == nil && filepath.IsLocal(rel) {
		u := relativeURI(filepath.ToSlash(rel))
		base := SrcRoot
		return &gosarif.ArtifactLocation{URI: &u, URIBaseId: &base}
	}
	u := fileURI(abs, false)
	return &gosarif.ArtifactLocation{URI: &u}
}

// rootURI is the absolute file:// URI of %SRCROOT%, ending in "/" as SARIF
// requires of a base URI.
func (l locator) rootURI() string { return fileURI(l.root, true) }

// relativeURI percent-encodes a slash-separated relative path as an RFC 3986
// relative reference ("deploy/my chart/values.yaml" →
// "deploy/my%20chart/values.yaml"). A first segment with a colon gets "./"
// so it is not read as a scheme.
func relativeURI(p string) string {
	return (&url.URL{Path: p}).String()
}

// fileURI is the file:// URI of an absolute path; Windows drive paths
// become file:///C:/….
func fileURI(abs string, dir bool) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	if dir && !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}
