//go:build !unix

package main

import "github.com/rogpeppe/go-internal/testscript"

// mkfifo skips the script where there are no named pipes.
func mkfifo(ts *testscript.TestScript, neg bool, args []string) {
	ts.Skip("no named pipes on this platform")
}
