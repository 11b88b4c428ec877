package sarif

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// LineHashes returns the primaryLocationLineHash of every line of a file:
// hashes[i] belongs to line i+1. A file that ends with a newline has one more
// "line" after it, as GitHub counts them.
//
// It is GitHub's own fingerprint, so an upload through the REST API (which
// computes nothing) and one through github/codeql-action/upload-sarif (which
// checks a present value against its own) agree, and alerts are not
// duplicated. The algorithm is the one upload-sarif runs
// (github/codeql-action src/fingerprints.ts, function hash), re-derived here:
//
//   - the input is read as UTF-16 code units (JavaScript's charCodeAt over the
//     file decoded as UTF-8);
//   - spaces and tabs are skipped, "\r\n" and "\r" become "\n";
//   - a rolling polynomial hash (multiplier 37, wrapping 64-bit arithmetic)
//     runs over a window of 100 units; a line's hash is the window that starts
//     at its first unit, so it covers the line and what follows it, up to 100
//     non-blank units;
//   - the end of the file is the unit 65535, and the window is flushed with
//     zeros;
//   - the value is the hash in lowercase hexadecimal, then ":" and how many
//     lines of the file so far had the same hash (1 for the first).
//
// So the fingerprint follows the text of the line and the lines just after
// it, not the line number: it survives lines inserted above the finding.
func LineHashes(content []byte) []string {
	const (
		window = 100
		mod    = 37
		eof    = 65535
	)
	// firstMod is mod^window: the weight the oldest unit has when it leaves.
	firstMod := uint64(1)
	for range window {
		firstMod *= mod
	}

	var (
		units     [window]uint64
		lineAt    [window]int // line that starts at this window slot, or 0
		hash      uint64
		index     int
		line      int
		lineStart = true
		prevCR    bool
		counts    = map[uint64]int{}
		hashes    []string
	)
	emit := func() {
		counts[hash]++
		for len(hashes) < lineAt[index] {
			hashes = append(hashes, "")
		}
		hashes[lineAt[index]-1] = strconv.FormatUint(hash, 16) + ":" + strconv.Itoa(counts[hash])
		lineAt[index] = 0
	}
	push := func(u uint64) {
		oldest := units[index]
		units[index] = u
		hash = mod*hash + u - firstMod*oldest
		index = (index + 1) % window
	}
	process := func(u uint64) {
		if u == ' ' || u == '\t' || (prevCR && u == '\n') {
			prevCR = false
			return
		}
		prevCR = false
		if u == '\r' {
			u = '\n'
			prevCR = true
		}
		if lineAt[index] != 0 {
			emit()
		}
		if lineStart {
			lineStart = false
			line++
			lineAt[index] = line
		}
		if u == '\n' {
			lineStart = true
		}
		push(u)
	}

	for len(content) > 0 {
		r, size := utf8.DecodeRune(content)
		content = content[size:]
		// Invalid bytes decode to U+FFFD, as Node's UTF-8 decoder does for
		// each maximal invalid subsequence; Go replaces byte by byte, so a
		// file with broken UTF-8 may hash differently from upload-sarif's.
		if r >= 0x10000 {
			hi, lo := utf16.EncodeRune(r)
			process(uint64(hi))
			process(uint64(lo))
			continue
		}
		process(uint64(r))
	}
	process(eof)
	for range window {
		if lineAt[index] != 0 {
			emit()
		}
		push(0)
	}
	return hashes
}
