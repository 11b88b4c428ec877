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
	// Color lets the text renderer colour what it chooses (Paint): the
	// escape sequences are kvlint's own, kept beside the held line and
	// never passed through Clean, so an ESC from the input is still
	// escaped while kvlint's colour reaches the terminal.
	Color bool
	line  []byte
	marks []mark
	err   error
}

// mark is one of kvlint's own escape sequences, to be written before byte
// at of the held line.
type mark struct {
	at   int
	code string
}

// Paint writes s in the colour code (an SGR parameter such as "31" or
// "1;31") when w is a SafeWriter with Color on, and plain otherwise. s is
// cleaned like anything else written through the SafeWriter.
func Paint(w io.Writer, code, s string) {
	sw, ok := w.(*SafeWriter)
	if !ok || !sw.Color || s == "" {
		io.WriteString(w, s)
		return
	}
	sw.marks = append(sw.marks, mark{len(sw.line), "\x1b[" + code + "m"})
	io.WriteString(w, s)
	sw.marks = append(sw.marks, mark{len(sw.line), "\x1b[0m"})
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
	line, marks := s.line, s.marks
	s.line, s.marks = s.line[:0], s.marks[:0]
	if (len(line) == 0 && len(marks) == 0) || s.err != nil {
		return
	}
	body, nl := line, ""
	if complete {
		body, nl = line[:len(line)-1], "\n"
	}
	// The text between marks is cleaned piece by piece; the marks are
	// written as they are. A mark never falls inside a rune, since Paint
	// places them between writes.
	var out, plain strings.Builder
	prev := 0
	for _, m := range marks {
		at := min(m.at, len(body))
		piece := Clean(string(body[prev:at]))
		out.WriteString(piece)
		plain.WriteString(piece)
		out.WriteString(m.code)
		prev = at
	}
	piece := Clean(string(body[prev:]))
	out.WriteString(piece)
	plain.WriteString(piece)
	text := out.String()
	if !s.Commands && strings.HasPrefix(plain.String(), "::") {
		text = " " + text
	}
	_, s.err = io.WriteString(s.w, text+nl)
}

// Flush writes a last line without a line break.
func (s *SafeWriter) Flush() error {
	s.flushLine(false)
	return s.err
}

// Raw flushes what s holds and returns the writer under it, for a writer
// that does its own escaping: the text format with Color on writes
// through its own SafeWriter, and a second one would escape the colour
// sequences that the first one kept.
func (s *SafeWriter) Raw() (io.Writer, error) {
	if err := s.Flush(); err != nil {
		return nil, err
	}
	return s.w, nil
}
