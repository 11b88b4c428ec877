package engine

import (
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

// line splits a one-line command on spaces into words of file "run.sh",
// line 1, each with its byte columns. A word with "$" or "{{" is a
// placeholder (Known=false), as the shell and template parsers produce.
func line(cmd string) []deploy.Value {
	var out []deploy.Value
	col := 1
	for _, w := range strings.Split(cmd, " ") {
		if w != "" {
			known := !strings.Contains(w, "$") && !strings.Contains(w, "{{")
			out = append(out, deploy.Value{Raw: w, Known: known,
				Span: deploy.Span{File: "run.sh", Line: 1, Col: col, EndLine: 1, EndCol: col + len(w)}})
		}
		col += len(w) + 1
	}
	return out
}

// colOf returns the 1-based column of the n-th (0-based) occurrence of word
// in cmd, for asserting spans.
func colOf(t *testing.T, cmd, word string, n int) int {
	t.Helper()
	col := 1
	for _, w := range strings.Split(cmd, " ") {
		if w == word {
			if n == 0 {
				return col
			}
			n--
		}
		col += len(w) + 1
	}
	t.Fatalf("%q not in %q", word, cmd)
	return 0
}

// issuesOf returns the issues of one kind.
func issuesOf(res Result, kind deploy.FlagIssueKind) []deploy.FlagIssue {
	var out []deploy.FlagIssue
	for _, is := range res.Issues {
		if is.Kind == kind {
			out = append(out, is)
		}
	}
	return out
}

func parseServer(cmd string) Result {
	return Lookup(SGLangServer).Parse(line(cmd), nil)
}

// files is a ReadFile over in-memory files.
func files(m map[string]string) ReadFile {
	return func(path string) (string, []byte, error) {
		data, ok := m[path]
		if !ok {
			return "", nil, errNotFound(path)
		}
		return "cfg/" + path, []byte(data), nil
	}
}

type errNotFound string

func (e errNotFound) Error() string { return "open " + string(e) + ": no such file or directory" }
