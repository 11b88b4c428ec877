package limits

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.yaml")
	want := bytes.Repeat([]byte("kind: Pod\n"), 1000)
	if err := os.WriteFile(small, want, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadFile(small); err != nil || !bytes.Equal(got, want) {
		t.Errorf("ReadFile(small) = %d bytes, %v; want %d bytes", len(got), err, len(want))
	}
	empty := filepath.Join(dir, "empty.yaml")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadFile(empty); err != nil || len(got) != 0 {
		t.Errorf("ReadFile(empty) = %q, %v", got, err)
	}
	// At the limit is read; one byte over is refused (sparse files: no disk).
	for size, wantErr := range map[int64]string{MaxFileSize: "", MaxFileSize + 1: "larger than 16 MiB"} {
		p := filepath.Join(dir, "big.yaml")
		if err := os.WriteFile(p, nil, 0o644); err != nil || os.Truncate(p, size) != nil {
			t.Fatal("cannot make a sparse file")
		}
		got, err := ReadFile(p)
		switch {
		case wantErr == "" && (err != nil || int64(len(got)) != size):
			t.Errorf("size %d: got %d bytes, %v", size, len(got), err)
		case wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr)):
			t.Errorf("size %d: err %v, want %q", size, err, wantErr)
		}
	}
	if _, err := ReadFile(dir); err == nil || err.Error() != "is a directory, expected a file" {
		t.Errorf("ReadFile(dir) err = %v", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing.yaml")); !os.IsNotExist(err) {
		t.Errorf("ReadFile(missing) err = %v, want not exist", err)
	}
}
