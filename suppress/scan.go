package suppress

import (
	"fmt"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/source"
)

// The kinds of suppression, as diag.Suppression.Kind names them.
const (
	kindInline     = "inline"
	kindFile       = "file"
	kindAnnotation = "annotation"
	kindConfig     = "config"
)

// priority orders the suppressions that match one finding: the most specific
// one is named as the finding's suppression (all of them count as used).
var priority = map[string]int{kindInline: 0, kindAnnotation: 1, kindFile: 2, kindConfig: 3}

// suppression is one suppression found in a file or in the configuration.
type suppression struct {
	kind    string
	text    string // how it was written, for messages
	where   string // what it covers, for messages
	rules   []string
	reason  string
	problem string
	span    deploy.Span // where it is written
	// file and from..to are the lines it covers (inline, annotation; a
	// file-level suppression covers every line of file).
	file     string
	from, to int
	// A configuration entry covers the files its pattern matches.
	match   func(file string) bool
	until   string
	expired bool

	used map[string]bool // rule ID → it silenced a finding of that rule
}

func (s *suppression) covers(rule string) bool {
	if s.problem != "" || s.expired {
		return false
	}
	if len(s.rules) == 0 {
		return true
	}
	for _, r := range s.rules {
		if r == rule {
			return true
		}
	}
	return false
}

// scanFile finds the suppressions written in one file.
// The text and its lines come from f, the file the run's set holds under
// the name file.
func scanFile(file string, f *source.File, syntax source.Syntax) []*suppression {
	lines := textLines(f.Index(source.LF))
	var lay *layout
	switch syntax {
	case source.SyntaxShell:
		lay = scanShell(f.Data, lines)
	case source.SyntaxDockerfile:
		lay = scanDockerfile(lines)
	case source.SyntaxYAML:
		lay = scanYAML(lines)
	case source.SyntaxHCL:
		lay = scanHCL(lines)
	default:
		lay = scanHashLines(lines)
	}
	var out []*suppression
	for _, c := range lay.comments {
		d, ok := parseDirective(c.text)
		if !ok {
			continue
		}
		s := &suppression{
			kind:    kindInline,
			text:    d.text(),
			rules:   d.rules,
			reason:  d.reason,
			problem: d.problem,
			file:    file,
			span:    deploy.Span{File: file, Line: c.line, Col: c.col, EndLine: c.endLine, EndCol: c.endCol},
		}
		switch {
		case d.file:
			s.kind, s.from, s.to, s.where = kindFile, 1, lay.lines, "in this file"
		default:
			if t := lay.target(c); t > 0 {
				s.from, s.to = t, max(t, lay.extent(t))
			}
			s.where = where(c, s.from, s.to)
		}
		out = append(out, s)
	}
	if syntax == source.SyntaxYAML {
		out = append(out, scanAnnotations(file, f, lay)...)
	}
	return out
}

// where says which lines an inline suppression covers.
func where(c comment, from, to int) string {
	switch {
	case from == 0:
		return "(there is no line below it)"
	case from == to && !c.own:
		return "on this line"
	case from == to:
		return "on the line below"
	}
	return fmt.Sprintf("in lines %d-%d", from, to)
}
