//go:build unix

package limits

import "syscall"

// openNonBlocking lets the open of a named pipe return at once (with no
// writer it would wait forever), so ReadFile can see what the file is and
// refuse it. It changes nothing for a regular file.
const openNonBlocking = syscall.O_NONBLOCK
