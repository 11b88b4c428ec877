//go:build !unix

package limits

// openNonBlocking is only needed where opening a named pipe can block.
const openNonBlocking = 0
