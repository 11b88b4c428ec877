package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Text from the input (messages quoting values, file names, excerpts) may
// hold what a terminal or a CI runner would act on: ESC sequences that
// rewrite the screen or the clipboard, C1 controls, bidirectional overrides
// that reorder what a reviewer reads, and line breaks that start a line of
// kvlint's output with a GitHub workflow command (::error, ::stop-commands,
// ::add-mask; "Workflow commands for GitHub Actions": a command is a line
// that starts with "::"). kvlint escapes them: Clean for one field,
// SafeWriter for a whole stream.

// unsafeRune reports a rune written as an escape: C0 controls but tab, DEL,
// C1 controls, and the Unicode bidirectional embeddings, overrides and
// isolates (U+202A–U+202E, U+2066–U+2069).
func unsafeRune(r rune) bool {
	switch {
	case r < 0x20 && r != '\t':
		return true
	case r >= 0x7f && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// escapeRune writes r as \u00XX: readable in text, and a valid escape in
// JSON, so a JSON or SARIF stream passed through SafeWriter stays JSON.
func escapeRune(b *strings.Builder, r rune) {
	fmt.Fprintf(b, `\u%04x`, r)
}

// Clean escapes the unsafe runes of one field, line breaks included, so the
// field stays on its line. Invalid UTF-8 bytes are escaped as \xNN.
func Clean(s string) string {
	clean := true
	for _, r := range s {
		if unsafeRune(r) || r == utf8.RuneError {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unsafeRune(r):
			escapeRune(&b, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// SafeWriter escapes, in everything written through it, the unsafe runes
// but the line break, and with Commands off, breaks any line that would
// start with "::" (a workflow command kvlint did not mean to write) by
// starting it with a space. It holds one line at a time: call Flush at the
// end.
type SafeWriter struct {
	w io.Writer
	// Commands lets lines start with "::": the github format's own
	// annotations, whose fields are escaped where they are written.
	Commands bool
	line     []byte
	err      error
}

// NewSafeWriter wraps w.
func NewSafeWriter(w io.Writer, commands bool) *SafeWriter {
	return &SafeWriter{w: w, Commands: commands}
}

// maxHeld bounds the line held: a longer line is written in pieces (its
// start was checked already).
const maxHeld = 64 << 10

func (s *SafeWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.line = append(s.line, p...)
			if len(s.line) > maxHeld {
				s.flushLine(false)
			}
			break
		}
		s.line = append(s.line, p[:i+1]...)
		p = p[i+1:]
		s.flushLine(true)
	}
	return n, s.err
}

// started is set while a long line is written in pieces.
func (s *SafeWriter) flushLine(complete bool) {
	line := s.line
	s.line = s.line[:0]
	if len(line) == 0 || s.err != nil {
		return
	}
	body, nl := line, ""
	if complete {
		body, nl = line[:len(line)-1], "\n"
	}
	out := Clean(string(body))
	if !s.Commands && strings.HasPrefix(out, "::") {
		out = " " + out
	}
	_, s.err = io.WriteString(s.w, out+nl)
}

// Flush writes a last line without a line break.
func (s *SafeWriter) Flush() error {
	s.flushLine(false)
	return s.err
}
