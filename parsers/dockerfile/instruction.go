package dockerfile

import (
	"regexp"
	"strings"
	"unicode"
)

// instruction is one Dockerfile instruction split the way BuildKit's
// splitCommand does (frontend/dockerfile/parser/split_command.go): the
// keyword, the leading --flags, and the rest as its arguments.
type instruction struct {
	line    logical
	keyword string // upper case
	kw      text   // the keyword as written
	flags   []text // builder flags, --name=value, as written
	args    text   // the rest, trimmed
}

func splitInstruction(l logical, escape byte) instruction {
	t := l.text.trimSpace()
	i := 0
	for i < len(t.b) && !isDockerSpace(t.b[i]) {
		i++
	}
	ins := instruction{line: l, kw: t.slice(0, i), keyword: strings.ToUpper(string(t.b[:i]))}
	rest := t.slice(i, len(t.b))
	ins.args, ins.flags = builderFlags(rest, escape)
	ins.args = ins.args.trimSpace()
	return ins
}

// isDockerSpace matches BuildKit's reWhitespace class [\t\v\f\r ].
func isDockerSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\v' || b == '\f' || b == '\r'
}

// builderFlags takes the leading words that start with "--" off an
// instruction's arguments. BuildKit does this for every instruction, so a
// shell-form CMD whose first word is --model-path fails the build with
// "unknown flag" (extractBuilderFlags in split_command.go). A "--" word ends
// the flags and is dropped.
func builderFlags(t text, escape byte) (text, []text) {
	var flags []text
	pos := 0
	for {
		for pos < len(t.b) && unicode.IsSpace(rune(t.b[pos])) {
			pos++
		}
		if pos+1 >= len(t.b) || t.b[pos] != '-' || t.b[pos+1] != '-' {
			return t.slice(pos, len(t.b)), flags
		}
		start := pos
		var quote byte
		for pos < len(t.b) {
			c := t.b[pos]
			if quote == 0 && unicode.IsSpace(rune(c)) {
				break
			}
			switch {
			case c == escape && quote != '\'' && pos+1 < len(t.b):
				pos++
			case quote == 0 && (c == '\'' || c == '"'):
				quote = c
			case c == quote:
				quote = 0
			}
			pos++
		}
		word := t.slice(start, pos)
		if string(word.b) == "--" {
			return t.slice(pos, len(t.b)), flags
		}
		flags = append(flags, word)
	}
}

// instructions BuildKit accepts (frontend/dockerfile/command/command.go).
var known = map[string]bool{
	"ADD": true, "ARG": true, "CMD": true, "COPY": true, "ENTRYPOINT": true, "ENV": true,
	"EXPOSE": true, "FROM": true, "HEALTHCHECK": true, "LABEL": true, "MAINTAINER": true,
	"ONBUILD": true, "RUN": true, "SHELL": true, "STOPSIGNAL": true, "USER": true,
	"VOLUME": true, "WORKDIR": true,
}

var heredocRe = regexp.MustCompile(`^(\d*)<<(-?)\s*([^<]*)$`)

// heredocs returns the heredocs a RUN, COPY or ADD line opens (<<EOF,
// <<-"EOF"), in order. Exec-form lines have none. (BuildKit parser.go,
// heredocsFromLine and canContainHeredoc.)
func heredocs(ins instruction, escape byte) []heredoc {
	args := ins.args
	kw := ins.keyword
	if kw == "ONBUILD" {
		sub := splitInstruction(logical{text: args}, escape)
		kw, args = sub.keyword, sub.args
	}
	if kw != "RUN" && kw != "COPY" && kw != "ADD" {
		return nil
	}
	if _, isExec, _ := execForm(args); isExec || !strings.Contains(string(args.b), "<<") {
		return nil
	}
	var out []heredoc
	for _, w := range rawWords(string(args.b), escape) {
		m := heredocRe.FindStringSubmatch(w)
		if m == nil || m[3] == "" {
			continue
		}
		name := strings.NewReplacer(`"`, "", `'`, "").Replace(m[3])
		if name == "" {
			continue
		}
		out = append(out, heredoc{name: name, chomp: m[2] == "-"})
	}
	return out
}

type heredoc struct {
	name  string
	chomp bool // <<- strips leading tabs, also from the terminator line
}

// rawWords splits at white space outside quotes, keeping quotes and escapes.
func rawWords(s string, escape byte) []string {
	var words []string
	var cur strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if quote == 0 && unicode.IsSpace(rune(c)) {
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
			continue
		}
		in = true
		switch {
		case c == escape && quote != '\'' && i+1 < len(s):
			cur.WriteByte(c)
			i++
			c = s[i]
		case quote == 0 && (c == '\'' || c == '"'):
			quote = c
		case c == quote:
			quote = 0
		}
		cur.WriteByte(c)
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

// skipHeredocs returns how many of the lines after an instruction are the
// bodies of its heredocs (terminator lines included).
func skipHeredocs(docs []heredoc, after []physical) (int, bool) {
	n := 0
	for _, d := range docs {
		found := false
		for n < len(after) {
			line := string(after[n].b)
			n++
			if d.chomp {
				line = strings.TrimLeft(line, "\t")
			}
			if line == d.name {
				found = true
				break
			}
		}
		if !found {
			return n, false
		}
	}
	return n, true
}
