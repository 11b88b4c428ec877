//go:build unix

package confined

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A named pipe, directly or through a link, is refused before it is opened:
// with no writer a read would wait forever.
func TestNamedPipe(t *testing.T) {
	tree := t.TempDir()
	p := filepath.Join(tree, "pipe")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	link(t, "pipe", filepath.Join(tree, "tool"))
	c := New([]string{tree})
	for _, name := range []string{"pipe", "tool"} {
		if _, err := c.ReadFile(filepath.Join(tree, name)); err == nil || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("ReadFile(%s) err = %v", name, err)
		}
		if _, err := c.ReadHead(filepath.Join(tree, name), 128); err == nil || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("ReadHead(%s) err = %v", name, err)
		}
	}
}
