//go:build unix

package limits

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A named pipe with no writer would block a plain read forever.
func TestReadFileNamedPipe(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pipe.yaml")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(p); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("ReadFile(pipe) err = %v", err)
	}
}
