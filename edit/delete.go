package edit

import "bytes"

// Deletion is the range to delete so that the words, each a byte range
// [start, end) in order, leave the text as if they had never been written, in
// the syntax around them:
//
//   - items of a YAML block sequence, each on its own line ("- --flag",
//     "- value"): their whole lines;
//   - items of a flow sequence or JSON array ("--flag", "1",): the items
//     and the comma that joined them to the rest;
//   - words of a command line that fill their own line(s), the last one
//     continued ("  --flag 1 \"): those lines, so the continuation of
//     the line before stays intact;
//   - other words: the words and the blanks (and line continuations)
//     that separate them from the word before, or, first in the text,
//     from the word after.
//
// ok is false when the words are not laid out in one of these ways (a
// word alone in a flow sequence with nothing around it to keep valid, a
// mapping key): the caller refuses the deletion.
func Deletion(data []byte, words [][2]int) (from, to int, ok bool) {
	if len(words) == 0 {
		return 0, 0, false
	}
	start, end := words[0][0], words[len(words)-1][1]
	if start < 0 || end > len(data) || start >= end {
		return 0, 0, false
	}
	// Words given by their contents ("--flag" of "\"--flag\""): the
	// quotes go with them.
	if s, e := words[0][0], words[0][1]; s > 0 && e < len(data) && (data[s-1] == '"' || data[s-1] == '\'') && data[e] == data[s-1] {
		start--
	}
	if s, e := words[len(words)-1][0], words[len(words)-1][1]; s > 0 && e < len(data) && (data[s-1] == '"' || data[s-1] == '\'') && data[e] == data[s-1] {
		end++
	}
	lineStart := bytes.LastIndexByte(data[:start], '\n') + 1
	lineEnd := len(data)
	if i := bytes.IndexByte(data[end:], '\n'); i >= 0 {
		lineEnd = end + i
	}
	before := data[lineStart:start]
	after := bytes.TrimRight(data[end:lineEnd], " \t\r")
	nextLine := min(len(data), lineEnd+1)

	// A YAML block sequence item: "  - word" with nothing after the word
	// but a comment.
	if lead := bytes.TrimLeft(before, " \t"); len(lead) >= 2 && lead[0] == '-' && isBlank(lead[1:]) {
		if len(after) == 0 || after[0] == '#' || bytes.HasPrefix(bytes.TrimLeft(after, " \t"), []byte("#")) {
			if blockItems(data[lineStart:lineEnd]) {
				return lineStart, nextLine, true
			}
		}
	}
	// A flow sequence or JSON array: look at what precedes the first word
	// and follows the last, past blanks and line breaks.
	p := skipBack(data, start, " \t\r\n")
	n := skipFwd(data, end, " \t\r\n")
	if p > 0 && data[p-1] == ',' {
		return p - 1, end, true // ", item, item" after an earlier item
	}
	if p > 0 && data[p-1] == '[' {
		if n < len(data) && data[n] == ',' {
			return start, skipFwd(data, n+1, " \t"), true // "[item, item, " before later items
		}
		if n < len(data) && data[n] == ']' {
			return start, end, true // the only items: "[]" stays
		}
		return 0, 0, false
	}
	// Words of a command line.
	if isBlank(before) && (bytes.Equal(after, []byte("\\")) || bytes.HasSuffix(after, []byte(" \\")) && isBlank(after[:len(after)-1])) {
		return lineStart, nextLine, true
	}
	from = start
	for from > 0 {
		switch {
		case data[from-1] == ' ' || data[from-1] == '\t':
			from--
		case data[from-1] == '\n' && from >= 2 && data[from-2] == '\\':
			from -= 2
		case data[from-1] == '\n' && from >= 3 && data[from-2] == '\r' && data[from-3] == '\\':
			from -= 3
		case data[from-1] == '\n' && bytes.IndexByte([]byte(" \t"), firstNonBlank(data[from:start])) < 0 && isBlank(data[from:start]):
			// A line break inside a YAML block or flow scalar folds to a
			// space: the words on this line join the previous one.
			from--
		default:
			if from == start {
				return 0, 0, false // glued to the word before
			}
			return from, end, true
		}
	}
	// Nothing before the words: they go with the blanks after them.
	return start, skipFwd(data, end, " \t"), true
}

// blockItems reports whether the lines are all block sequence items.
func blockItems(lines []byte) bool {
	for l := range bytes.SplitSeq(lines, []byte("\n")) {
		l = bytes.TrimLeft(l, " \t")
		if len(l) < 2 || l[0] != '-' || (l[1] != ' ' && l[1] != '\t') {
			return false
		}
	}
	return true
}

func isBlank(b []byte) bool { return len(bytes.Trim(b, " \t")) == 0 }

func firstNonBlank(b []byte) byte {
	b = bytes.TrimLeft(b, " \t")
	if len(b) == 0 {
		return 0
	}
	return b[0]
}

func skipBack(data []byte, i int, set string) int {
	for i > 0 && bytes.IndexByte([]byte(set), data[i-1]) >= 0 {
		i--
	}
	return i
}

func skipFwd(data []byte, i int, set string) int {
	for i < len(data) && bytes.IndexByte([]byte(set), data[i]) >= 0 {
		i++
	}
	return i
}
