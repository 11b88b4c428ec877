package edit

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"
)

// context is how many unchanged lines a hunk shows around a change, as
// diff -u does.
const context = 3

// Diff writes the unified diff that edits make to data, the text of the
// file name: "--- a/name", "+++ b/name", then one hunk per group of
// changes less than 2×context lines apart. The hunks are computed from the
// edits themselves, not by comparing texts, so they show exactly the
// lines the edits touch. Nothing is written when edits change nothing.
func Diff(w io.Writer, name string, data []byte, edits []Edit) error {
	after, err := Apply(data, edits)
	if err != nil {
		return err
	}
	if bytes.Equal(after, data) {
		return nil
	}
	lines := splitLines(data)
	starts := make([]int, len(lines)+1)
	for i, l := range lines {
		starts[i+1] = starts[i] + len(l)
	}
	lineOf := func(off int) int { // index of the line holding offset off
		if off == len(data) && len(lines) > 0 && data[len(data)-1] != '\n' {
			return len(lines) - 1 // the end of a last line without a break
		}
		return sort.Search(len(lines), func(i int) bool { return starts[i+1] > off })
	}
	// Each change covers whole lines [first, last) of the old text and
	// replaces them with new lines.
	type change struct {
		first, last int
		edits       []Edit
	}
	var changes []change
	for _, e := range sorted(edits) {
		first := lineOf(e.Start)
		last := first + 1
		if e.End > e.Start {
			last = lineOf(e.End-1) + 1
		}
		if first >= len(lines) || e.Start == e.End && e.Start == starts[first] && strings.HasSuffix(e.Text, "\n") {
			// Whole lines inserted before a line, or at the end of a text
			// ending in a break: no old line changes.
			last = first
		}
		if n := len(changes); n > 0 && first < changes[n-1].last {
			c := &changes[n-1]
			c.last = max(c.last, last)
			c.edits = append(c.edits, e)
			continue
		}
		changes = append(changes, change{first, last, []Edit{e}})
	}
	if _, err := fmt.Fprintf(w, "--- a/%s\n+++ b/%s\n", name, name); err != nil {
		return err
	}
	for i := 0; i < len(changes); {
		j := i + 1
		for j < len(changes) && changes[j].first-changes[j-1].last <= 2*context {
			j++
		}
		from := max(0, changes[i].first-context)
		to := min(len(lines), changes[j-1].last+context)
		var body bytes.Buffer
		oldN, newN := 0, 0
		at := from
		for _, c := range changes[i:j] {
			for ; at < c.first; at++ {
				writeLine(&body, ' ', lines[at])
				oldN++
				newN++
			}
			region := data[starts[c.first]:starts[c.last]]
			shifted := make([]Edit, len(c.edits))
			for k, e := range c.edits {
				shifted[k] = Edit{Start: e.Start - starts[c.first], End: e.End - starts[c.first], Text: e.Text}
			}
			replaced, err := Apply(region, shifted)
			if err != nil {
				return err
			}
			for _, l := range lines[c.first:c.last] {
				writeLine(&body, '-', l)
				oldN++
			}
			for _, l := range splitLines(replaced) {
				writeLine(&body, '+', l)
				newN++
			}
			at = c.last
		}
		for ; at < to; at++ {
			writeLine(&body, ' ', lines[at])
			oldN++
			newN++
		}
		newFrom := from + 1
		for _, c := range changes[:i] {
			newFrom += delta(data, starts, c.first, c.last, c.edits)
		}
		if _, err := fmt.Fprintf(w, "@@ -%s +%s @@\n%s", hunkRange(from+1, oldN), hunkRange(newFrom, newN), body.Bytes()); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// delta is how many lines a change adds (negative: removes).
func delta(data []byte, starts []int, first, last int, edits []Edit) int {
	region := data[starts[first]:starts[last]]
	shifted := make([]Edit, len(edits))
	for k, e := range edits {
		shifted[k] = Edit{Start: e.Start - starts[first], End: e.End - starts[first], Text: e.Text}
	}
	replaced, err := Apply(region, shifted)
	if err != nil {
		return 0
	}
	return len(splitLines(replaced)) - (last - first)
}

// hunkRange is a unified diff range: "start,count", where an empty range
// starts at the line before it (diff -u's convention).
func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start-1)
	}
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// splitLines splits text after each "\n"; the last line may lack one.
func splitLines(data []byte) [][]byte {
	var out [][]byte
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			out = append(out, data)
			break
		}
		out = append(out, data[:i+1])
		data = data[i+1:]
	}
	return out
}

func writeLine(w *bytes.Buffer, mark byte, line []byte) {
	w.WriteByte(mark)
	w.Write(line)
	if !bytes.HasSuffix(line, []byte("\n")) {
		w.WriteString("\n\\ No newline at end of file\n")
	}
}
