package suppress

import (
	"bytes"

	"mvdan.cc/sh/v3/syntax"
)

// scanShell finds the comments of a shell script with the shell parser, so
// a "#" inside quotes or a word is not one. A line's extent is the longest
// statement starting on it: a command with its continuation lines, or a
// whole if, loop or function. A script the parser rejects (parsers reports
// it) falls back to the line scanner.
func scanShell(data []byte, lines []string) *layout {
	f, err := syntax.NewParser(syntax.KeepComments(true), syntax.Variant(syntax.LangBash)).Parse(bytes.NewReader(data), "")
	if err != nil {
		return scanHashLines(lines)
	}
	lay := newLayout(len(lines))
	ends := map[int]int{}
	syntax.Walk(f, func(node syntax.Node) bool {
		switch x := node.(type) {
		case *syntax.Comment:
			line, col := int(x.Hash.Line()), int(x.Hash.Col())
			own := line <= len(lines) && col-1 <= len(lines[line-1]) && isBlank(lines[line-1][:col-1])
			lay.add(comment{line: line, col: col, endCol: col + 1 + len(x.Text), text: x.Text, own: own})
		case *syntax.Stmt:
			start, end := int(x.Pos().Line()), int(x.End().Line())
			if end > ends[start] {
				ends[start] = end
			}
		}
		return true
	})
	lay.extent = func(line int) int { return max(line, ends[line]) }
	return lay
}
