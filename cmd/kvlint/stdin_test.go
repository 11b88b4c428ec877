package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/internal/limits"
)

// zeros reads as an endless stream of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// Standard input is bounded like any input file: one byte past the limit
// is refused, not read whole; at the limit it is read.
func TestReadStdinLimit(t *testing.T) {
	in, err := readStdin(io.LimitReader(zeros{}, limits.MaxFileSize+1), "big.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !in.tooBig || in.data != nil {
		t.Errorf("input of MaxFileSize+1 bytes: tooBig %v, %d bytes kept; want refused", in.tooBig, len(in.data))
	}
	// An endless input is cut at the limit too.
	if in, err = readStdin(zeros{}, "big.yaml"); err != nil || !in.tooBig {
		t.Errorf("endless input: tooBig %v, err %v", in != nil && in.tooBig, err)
	}
	in, err = readStdin(io.LimitReader(zeros{}, limits.MaxFileSize), "")
	if err != nil || in.tooBig || len(in.data) != limits.MaxFileSize || in.name != stdinName || in.named {
		t.Errorf("input of MaxFileSize bytes without a name: %+v, %v", in, err)
	}
}

func TestReadStdinNames(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, want string
		parents    int
	}{
		{"deploy/pod.yaml", "deploy/pod.yaml", 0},
		{"./deploy/../Dockerfile", "Dockerfile", 0},
		{filepath.Join(wd, "k8s", "pod.yaml"), "k8s/pod.yaml", 0},
		{"../../other/serve.sh", "../../other/serve.sh", 2},
	} {
		in, err := readStdin(strings.NewReader("x"), c.name)
		if err != nil {
			t.Errorf("%q: %v", c.name, err)
			continue
		}
		if in.name != c.want || in.parents != c.parents {
			t.Errorf("%q: name %q, %d parents; want %q, %d", c.name, in.name, in.parents, c.want, c.parents)
		}
		// Spooled, the file sits at its name seen from the stand-in
		// working directory, and nowhere outside the private directory.
		dir, remove, err := in.spool()
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dir, in.name))
		remove()
		if err != nil || string(data) != "x" {
			t.Errorf("%q spooled: %q, %v", c.name, data, err)
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%q: the private directory outlives the run: %v", c.name, err)
		}
	}
	for _, bad := range []string{"..", ".", "../..", "/"} {
		if _, err := readStdin(strings.NewReader("x"), bad); err == nil {
			t.Errorf("--stdin-filename %q was accepted", bad)
		}
	}
}
