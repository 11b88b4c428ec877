package sarif

import (
	"github.com/kvlint/kvlint/source"
)

// sources gives each file a result points into its GitHub line hashes and
// UTF-16 columns, from the run's file set: a file the run did not read is
// never read here, so a log describes the text the findings were made on.
type sources struct {
	files  *source.Set
	byName map[string]*fileLines
}

func newSources(files *source.Set) sources {
	return sources{files: files, byName: map[string]*fileLines{}}
}

// fileLines is one file as SARIF counts its lines: "\n", "\r\n" and a lone
// "\r" end a line (source.Newlines), as on GitHub.
type fileLines struct {
	lines  *source.Index // nil when the run did not read the file
	hashes []string      // LineHashes of the file
}

func (s sources) get(file string) *fileLines {
	if fl, ok := s.byName[file]; ok {
		return fl
	}
	fl := &fileLines{}
	if f := s.files.File(file); f != nil {
		fl.lines = f.Index(source.Newlines)
		fl.hashes = LineHashes(f.Data)
	}
	s.byName[file] = fl
	return fl
}

// lineHash returns the fingerprint of a 1-based line, or "" when the run
// did not read the file or it has no such line.
func (fl *fileLines) lineHash(line int) string {
	if line < 1 || line > len(fl.hashes) {
		return ""
	}
	return fl.hashes[line-1]
}

// utf16Column converts a 1-based byte column on a 1-based line into the
// 1-based UTF-16 column SARIF counts by default (run.columnKind
// utf16CodeUnits). A line that is not known keeps the byte column.
func (fl *fileLines) utf16Column(line, col int) int {
	if fl.lines == nil {
		return col
	}
	return fl.lines.UTF16Col(line, col)
}

// lineEnd is the UTF-16 column just past the last character of a line, or 0
// when unknown.
func (fl *fileLines) lineEnd(line int) int {
	if fl.lines == nil {
		return 0
	}
	return fl.lines.UTF16End(line)
}
