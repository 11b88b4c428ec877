package main

import (
	"os"
	"testing"
)

// TestColorAuto checks --color=auto against a real terminal: the master
// side of a pseudo-terminal, which answers the terminal ioctl as a
// terminal does. The scripts cannot: their standard output is a pipe.
func TestColorAuto(t *testing.T) {
	tty, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Fatalf("opening a pseudo-terminal: %v", err)
	}
	defer tty.Close()
	pipeR, pipeW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pipeR.Close()
	defer pipeW.Close()
	for _, c := range []struct {
		mode    string
		out     *os.File
		noColor string
		want    bool
	}{
		{"auto", tty, "", true},
		{"auto", tty, "1", false},
		{"auto", tty, "0", false}, // any non-empty value
		{"auto", pipeW, "", false},
		{"always", pipeW, "1", true},
		{"never", tty, "", false},
	} {
		got, err := useColor(c.mode, c.out, c.noColor)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("useColor(%s, %s, NO_COLOR=%q) = %v, want %v", c.mode, c.out.Name(), c.noColor, got, c.want)
		}
	}
	if _, err := useColor("sometimes", pipeW, ""); err == nil {
		t.Error("useColor accepted --color=sometimes")
	}
}
