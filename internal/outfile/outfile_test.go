//go:build unix

package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// inDir runs the test from a fresh working directory: outputs are judged
// relative to it.
func inDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	return dir
}

func mustWrite(t *testing.T, p, data string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestReplaceRefusesLinks(t *testing.T) {
	dir := inDir(t)
	mustWrite(t, "target.txt", "precious")
	if err := os.Symlink("target.txt", "out.sarif"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir("elsewhere", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("elsewhere", "reports"); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll("a/b", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../elsewhere", "a/b/c"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		want string
	}{
		{"out.sarif", ErrLink.Error()},
		{filepath.Join(dir, "out.sarif"), ErrLink.Error()},
		{"reports/kvlint.sarif", "is in reports, a symbolic link"},
		{"a/b/c/kvlint.sarif", "is in a/b/c, a symbolic link"},
		{"a", ErrNotRegular.Error()},
	} {
		for name, f := range map[string]func(string) error{
			"Check":   Check,
			"Replace": func(p string) error { return Replace(p, []byte("report")) },
		} {
			err := f(tc.path)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s(%s): %v, want %q", name, tc.path, err, tc.want)
			}
		}
	}
	if got := read(t, "target.txt"); got != "precious" {
		t.Errorf("target.txt = %q", got)
	}
	if _, err := os.Stat("elsewhere/kvlint.sarif"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file was written through a link: %v", err)
	}
}

// A directory swapped for a link after the checks does not redirect the
// write: the file lands in the directory that was checked (moved aside
// here), and nothing appears where the link points.
func TestReplaceDirectorySwappedAfterCheck(t *testing.T) {
	inDir(t)
	for _, d := range []string{"out/sub", "elsewhere"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	afterCheck = func() {
		if err := os.Rename("out", "moved"); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("elsewhere", "out"); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir("elsewhere/sub", 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { afterCheck = nil })
	if err := Replace("out/sub/kvlint.sarif", []byte("report")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat("elsewhere/sub/kvlint.sarif"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the write followed the link swapped in: %v", err)
	}
	if got := read(t, "moved/sub/kvlint.sarif"); got != "report" {
		t.Errorf("moved/sub/kvlint.sarif = %q", got)
	}
}

// A link swapped in for the file itself after the checks is replaced by
// the rename, not written through.
func TestReplaceFileSwappedAfterCheck(t *testing.T) {
	inDir(t)
	mustWrite(t, "target.txt", "precious")
	mustWrite(t, "kvlint.sarif", "old")
	afterCheck = func() {
		if err := os.Remove("kvlint.sarif"); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("target.txt", "kvlint.sarif"); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { afterCheck = nil })
	if err := Replace("kvlint.sarif", []byte("report")); err != nil {
		t.Fatal(err)
	}
	if got := read(t, "target.txt"); got != "precious" {
		t.Errorf("target.txt = %q: written through the link", got)
	}
	info, err := os.Lstat("kvlint.sarif")
	if err != nil || !info.Mode().IsRegular() || info.Mode().Perm() != 0o644 {
		t.Fatalf("kvlint.sarif: %v %v", info, err)
	}
	if got := read(t, "kvlint.sarif"); got != "report" {
		t.Errorf("kvlint.sarif = %q", got)
	}
	entries, _ := os.ReadDir(".")
	if len(entries) != 2 {
		t.Errorf("left behind: %v", entries)
	}
}

// Outside the working directory, and in real directories below it, the
// file is written; a missing directory is not refused by Check (the write
// fails on its own).
func TestReplaceQuiet(t *testing.T) {
	outside := t.TempDir()
	inDir(t)
	if err := os.MkdirAll("real/dir", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"r.json", "real/dir/r.json", filepath.Join(outside, "r.json")} {
		if err := Replace(p, []byte("x")); err != nil {
			t.Errorf("Replace(%s): %v", p, err)
		}
		if got := read(t, p); got != "x" {
			t.Errorf("%s = %q", p, got)
		}
	}
	if err := Check("missing/r.json"); err != nil {
		t.Errorf("Check(missing/r.json): %v", err)
	}
	if err := Replace("missing/r.json", nil); err == nil {
		t.Error("Replace(missing/r.json) succeeded")
	}
}

// ReplaceBelow (kvlint fix --write) walks from the checked root, not the
// working directory: a directory below the root swapped for a link after
// the checks does not redirect the edit; the file keeps its permission
// bits; a file that is not there, or is outside the root, is refused.
func TestReplaceBelowRoot(t *testing.T) {
	root := t.TempDir()
	elsewhere := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "deploy", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(root, "deploy", "sub", "serve.sh")
	if err := os.WriteFile(script, []byte("old"), 0o755); err != nil {
		t.Fatal(err)
	}
	afterCheck = func() {
		if err := os.Rename(filepath.Join(root, "deploy"), filepath.Join(root, "moved")); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(filepath.Join(elsewhere, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(elsewhere, filepath.Join(root, "deploy")); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { afterCheck = nil })
	if err := ReplaceBelow(root, script, []byte("new"), 0o755); err != nil {
		t.Fatal(err)
	}
	afterCheck = nil
	if _, err := os.Stat(filepath.Join(elsewhere, "sub", "serve.sh")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the edit followed the link swapped in: %v", err)
	}
	moved := filepath.Join(root, "moved", "sub", "serve.sh")
	if got := read(t, moved); got != "new" {
		t.Errorf("%s = %q", moved, got)
	}
	if info, err := os.Stat(moved); err != nil || info.Mode().Perm() != 0o755 {
		t.Errorf("permission bits not kept: %v %v", info, err)
	}
	if err := ReplaceBelow(root, filepath.Join(root, "moved", "sub", "missing.sh"), []byte("x"), 0o644); err == nil {
		t.Error("a missing file was created")
	}
	mustWrite(t, filepath.Join(elsewhere, "x.sh"), "outside")
	if err := ReplaceBelow(filepath.Join(root, "moved"), filepath.Join(elsewhere, "x.sh"), []byte("x"), 0o644); err == nil || !strings.Contains(err.Error(), "is not inside") {
		t.Errorf("a file outside the root: %v", err)
	}
	// A link below the root, there before the checks, is refused as one
	// (the file exists where it points).
	mustWrite(t, filepath.Join(elsewhere, "sub", "serve.sh"), "outside")
	var linked *LinkedDirError
	if err := ReplaceBelow(root, filepath.Join(root, "deploy", "sub", "serve.sh"), []byte("x"), 0o644); !errors.As(err, &linked) {
		t.Errorf("through a directory link below the root: %v", err)
	}
	if got := read(t, filepath.Join(elsewhere, "sub", "serve.sh")); got != "outside" {
		t.Errorf("written through the link: %q", got)
	}
}
