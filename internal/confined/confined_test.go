package confined

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, p, s string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func link(t *testing.T, target, p string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	return p
}

func TestReadFile(t *testing.T) {
	base := t.TempDir()
	tree := filepath.Join(base, "tree")
	secret := write(t, filepath.Join(base, "outside", "secret"), "secret")
	write(t, filepath.Join(tree, "a.sh"), "inside")
	write(t, filepath.Join(tree, ".git", "config"), "token")
	write(t, filepath.Join(tree, "sub", "b.sh"), "b")
	link(t, "a.sh", filepath.Join(tree, "in.sh"))
	link(t, "../sub", filepath.Join(tree, "dir", "up"))
	link(t, secret, filepath.Join(tree, "abs.sh"))
	link(t, "../outside/secret", filepath.Join(tree, "rel.sh"))
	link(t, "../outside/missing", filepath.Join(tree, "dangling.sh"))
	link(t, ".git/config", filepath.Join(tree, "git.sh"))
	link(t, "/proc/self/environ", filepath.Join(tree, "environ"))

	c := New([]string{tree})
	for name, want := range map[string]string{"a.sh": "inside", "in.sh": "inside", "dir/up/b.sh": "b"} {
		got, err := c.ReadFile(filepath.Join(tree, name))
		if err != nil || string(got) != want {
			t.Errorf("ReadFile(%s) = %q, %v; want %q", name, got, err, want)
		}
	}
	for _, name := range []string{"abs.sh", "rel.sh", "dangling.sh", "git.sh", "environ", ".git/config"} {
		got, err := c.ReadFile(filepath.Join(tree, name))
		if !errors.Is(err, ErrOutside) {
			t.Errorf("ReadFile(%s) = %q, %v; want ErrOutside", name, got, err)
		}
	}
	if _, err := c.ReadFile(filepath.Join(tree, "missing.sh")); !os.IsNotExist(err) {
		t.Errorf("ReadFile(missing) err = %v, want not exist", err)
	}
	// A root the user named is read wherever it points.
	if got, err := New([]string{filepath.Join(tree, "abs.sh")}).ReadFile(filepath.Join(tree, "abs.sh")); err != nil || string(got) != "secret" {
		t.Errorf("named root: %q, %v", got, err)
	}
	// A file root brings its directory, not its parent.
	fc := New([]string{filepath.Join(tree, "sub", "b.sh")})
	if _, err := fc.ReadFile(filepath.Join(tree, "a.sh")); !errors.Is(err, ErrOutside) {
		t.Errorf("beside a file root's directory: err = %v", err)
	}
	if got, err := Unconfined.ReadFile(secret); err != nil || string(got) != "secret" {
		t.Errorf("Unconfined: %q, %v", got, err)
	}
	var none *FS
	if _, err := none.ReadFile(filepath.Join(tree, "a.sh")); !errors.Is(err, ErrOutside) {
		t.Errorf("nil FS: err = %v", err)
	}
	if _, err := c.ReadFile(tree); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Errorf("ReadFile(dir) err = %v", err)
	}
}
