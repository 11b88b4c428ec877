// Package makefile finds engine launches in the recipes of a Makefile.
//
// Its own format rather than a mode of parsers/shell: a Makefile is not
// shell text. make reads the whole file (variables, rules, conditionals)
// and hands each recipe line, after expanding make's own $(VAR) references,
// to a new shell. So this package does make's part (recipe lines and
// variables) and gives each expanded line to parsers/shell with a map from
// every byte back to where it was written.
//
// What it knows (GNU make manual: 5.1 Recipe Syntax, 5.1.1 Splitting
// Recipe Lines, 5.2 Recipe Echoing, 5.5.2 Errors in Recipes, 6.2 The Two
// Flavors of Variables, 6.5 Setting Variables, 6.6 Appending More Text):
//   - A recipe line starts with a tab after a rule line; a backslash-newline
//     continues it (the backslash and newline reach the shell, the tab
//     starting the next line does not). Leading @, - and + are make's
//     prefixes, not shell text. Each line runs in its own shell, or with
//     a .ONESHELL target each rule's lines run in one.
//   - VAR = v (recursive), VAR := v / ::= v (simple, expanded where
//     defined), VAR ?= v (only if not yet defined), VAR += v, with export
//     and override in front. Recipes are expanded after the whole file is
//     read, so a recursive variable has its last value. VAR != cmd, define
//     blocks, and any assignment inside ifeq/ifdef are unknown; so is a
//     variable the file does not define (the command line or the
//     environment may).
//   - $(VAR) and ${VAR} expand; $$ is a $ for the shell; $X is the
//     one-letter variable X. Automatic variables ($@, $<, ...), function
//     calls ($(shell ...), $(subst ...)) and unknown variables reach the
//     shell as written, so the word they are in is unknown.
//
// Spans: a byte written in the recipe maps to itself; a byte a variable
// produced maps onto the $(VAR) reference (so a word's span stays on the
// recipe line), and the values the reference produced carry the
// variable's definition in their Origin.
package makefile

import (
	"bytes"
	"mvdan.cc/sh/v3/syntax"
	"slices"
	"strings"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/engine"
	"github.com/kvlint/kvlint/parsers/shell"
	"github.com/kvlint/kvlint/source"
)

// maxExpandDepth bounds nested variable expansion (A = $(B), B = $(A)).
const maxExpandDepth = 16

// maxExpanded bounds the bytes one recipe line expands to.
const maxExpanded = 1 << 20

// variable is one make variable as the file leaves it.
type variable struct {
	known     bool
	recursive bool
	// text is the value: for a recursive variable as written (expanded at
	// use), for a simple one already expanded. at holds, per byte, the
	// file offset it maps to; origin the definitions it came through.
	text []byte
	at   []int
	// src is, for a simple variable, where each byte of text was
	// written (-1: nowhere exactly).
	src    []int
	origin deploy.Origin
	// def is the value's span in its (last) definition.
	def deploy.Span
}

type parser struct {
	f     *source.File
	lines *source.Index
	vars  map[string]*variable
	errs  []*diag.Diagnostic
	// oneshell is set by a .ONESHELL target anywhere in the file: each
	// rule's recipe lines then run in one shell (GNU make manual, 5.3.1
	// Using One Shell).
	oneshell bool
	// left is how many more bytes the expansion under way may produce.
	left int
}

// recipe is one recipe line: its text for the shell and where each byte of
// it was written.
type recipe struct {
	text []byte
	at   []int
	rule int // which rule it belongs to
}

// ParseFile finds the servers a Makefile's recipes launch; images is the
// run's image table for the container runs among them (nil: the built-in
// rows).
func ParseFile(f *source.File, read engine.ReadFile, images *engine.ImageTable) ([]*deploy.Server, []*diag.Diagnostic) {
	p := &parser{f: f, lines: f.Index(source.LF), vars: map[string]*variable{}}
	recipes := p.read()
	if p.oneshell {
		recipes = joinRules(recipes)
	}
	var servers []*deploy.Server
	for _, r := range recipes {
		p.left = maxExpanded
		text, at, src, refs := p.expandSrc(r.text, r.at, r.at, 0)
		at = p.exactWords(text, at, src)
		if p.left < 0 {
			p.errs = append(p.errs, diag.Errorf(p.span(r.at[0], r.at[len(r.at)-1]+1), "recipe line expands to more than %d bytes: not analysed", maxExpanded))
			continue
		}
		found, errs := shell.Servers(shell.Source{
			File:   f.Name,
			Text:   text,
			Map:    shell.ByteMapper(shell.NewLines(text), at, p.lines, nil),
			Images: images,
		}, read)
		if len(found) > 0 || engine.NamesEngine(text) {
			// A recipe that names no engine launches none; its shell errors
			// (often make's own syntax kvlint does not model) would fail the
			// run over a line that cannot matter to it.
			p.errs = append(p.errs, errs...)
		}
		for _, s := range found {
			addOrigins(s, refs)
		}
		servers = append(servers, found...)
	}
	return servers, p.errs
}

// parsesAsCommand reports whether text parses as shell, as the body of the
// $(…) command substitution the shell will take an unexpanded make
// reference for ($(shell cat name) does; $(if $(X),--x) does not).
func parsesAsCommand(text string) bool {
	_, err := syntax.NewParser().Parse(strings.NewReader(text), "")
	return err == nil
}

// exactWords places the bytes of each blank-separated run of the shell
// text where they were written, when the whole run was written in one
// piece (a word of a variable's definition): its span is then the token in
// the definition. Other runs keep at, on the recipe line.
func (p *parser) exactWords(text []byte, at, src []int) []int {
	out := append([]int(nil), at...)
	data := p.f.Data
	for i := 0; i < len(text); {
		if isBlank(text[i]) {
			i++
			continue
		}
		j := i
		ok := true
		for j < len(text) && !isBlank(text[j]) {
			if src[j] < 0 {
				ok = false
			}
			if j > i && src[j] >= 0 && src[j-1] >= 0 {
				if src[j] <= src[j-1] || strings.Trim(string(data[src[j-1]+1:src[j]]), "\\\n\t ") != "" {
					ok = false
				}
			}
			j++
		}
		if ok {
			copy(out[i:j], src[i:j])
		}
		i = j
	}
	return out
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }

func (p *parser) span(s, e int) deploy.Span { return p.lines.Span(p.f.Name, s, e) }

// ref is a variable reference in a recipe: its span and what the variable
// adds to the origin of a value written there.
type ref struct {
	span   deploy.Span
	origin deploy.Origin
}

// joinRules makes each rule's recipe lines one shell text, one line each.
func joinRules(recipes []recipe) []recipe {
	var out []recipe
	for _, r := range recipes {
		if n := len(out); n > 0 && out[n-1].rule == r.rule {
			last := &out[n-1]
			last.text = append(last.text, '\n')
			last.at = append(last.at, last.at[len(last.at)-1])
			last.text = append(last.text, r.text...)
			last.at = append(last.at, r.at...)
			continue
		}
		out = append(out, recipe{text: slices.Clone(r.text), at: slices.Clone(r.at), rule: r.rule})
	}
	return out
}

// addOrigins adds, to each value of s whose span lies inside a variable
// reference or holds one, the definition the reference expanded; to a value
// placed in a definition, the reference that used it.
func addOrigins(s *deploy.Server, refs []ref) {
	for _, v := range s.Values() {
		for _, r := range refs {
			switch {
			case inside(v.Span, r.span) || inside(r.span, v.Span):
				v.Origin = append(v.Origin, r.origin...)
			case slices.ContainsFunc(r.origin, func(st deploy.Step) bool { return inside(v.Span, st.Span) }):
				// A word placed in a definition: the recipe's reference
				// is where the definition was used.
				v.Origin = append(v.Origin, deploy.At(deploy.StepReference, r.span))
			}
		}
	}
}

func inside(a, b deploy.Span) bool {
	if a.IsZero() || a.File != b.File {
		return false
	}
	start := a.Line > b.Line || a.Line == b.Line && a.Col >= b.Col
	end := a.EndLine < b.EndLine || a.EndLine == b.EndLine && a.EndCol <= b.EndCol
	return start && end
}

// read walks the file's lines: it records variables and returns the recipe
// lines.
func (p *parser) read() []recipe {
	data := p.f.Data
	var out []recipe
	inRule := false   // after a rule line: tab-led lines are its recipe
	cond := 0         // depth of ifeq/ifdef blocks
	inDefine := false // inside define ... endef
	rule := 0
	off := 0
	for off < len(data) {
		start := off
		end := lineEnd(data, off)
		off = end + 1
		line := data[start:end]
		if inDefine {
			if t := strings.TrimSpace(string(line)); t == "endef" || strings.HasPrefix(t, "endef ") {
				inDefine = false
			}
			continue
		}
		if len(line) > 0 && line[0] == '\t' && inRule {
			// A recipe line, with its continuations.
			r := recipe{}
			s := start + 1
			for {
				e := lineEnd(data, s)
				for i := s; i < e; i++ {
					r.text = append(r.text, data[i])
					r.at = append(r.at, i)
				}
				if !continued(data[s:e]) || e >= len(data) {
					off = e + 1
					break
				}
				// The newline reaches the shell; the next line's leading
				// tab does not.
				r.text = append(r.text, '\n')
				r.at = append(r.at, e)
				s = e + 1
				if s < len(data) && data[s] == '\t' {
					s++
				}
			}
			r = stripPrefixes(r)
			r.rule = rule
			if len(bytes.TrimSpace(r.text)) > 0 {
				out = append(out, r)
			}
			continue
		}
		// A logical line: backslash-newline joins the next one.
		logical, at := []byte{}, []int{}
		s := start
		for {
			e := lineEnd(data, s)
			for i := s; i < e; i++ {
				logical = append(logical, data[i])
				at = append(at, i)
			}
			if !continued(data[s:e]) || e >= len(data) {
				off = e + 1
				break
			}
			logical = logical[:len(logical)-1] // the backslash
			at = at[:len(at)-1]
			logical = append(logical, ' ')
			at = append(at, e)
			s = e + 1
		}
		text := stripComment(logical)
		trim := strings.TrimSpace(string(text))
		switch {
		case trim == "":
			continue
		case hasWord(trim, "ifeq", "ifneq", "ifdef", "ifndef"):
			cond++
			continue
		case trim == "else" || strings.HasPrefix(trim, "else "):
			continue
		case trim == "endif":
			cond = max(cond-1, 0)
			continue
		case hasWord(trim, "define"):
			inDefine = true
			name := strings.Fields(strings.TrimPrefix(trim, "define"))
			if len(name) > 0 {
				p.vars[name[0]] = &variable{}
			}
			continue
		}
		if p.assignment(text, at[:len(text)], cond > 0) {
			continue
		}
		// A rule line "targets: prerequisites [; recipe]".
		if i := ruleColon(text); i >= 0 {
			inRule = true
			rule++
			if slices.Contains(strings.Fields(string(text[:i])), ".ONESHELL") {
				p.oneshell = true
			}
			if semi := bytes.IndexByte(text[i:], ';'); semi >= 0 {
				k := i + semi + 1
				r := stripPrefixes(recipe{text: append([]byte(nil), text[k:]...), at: append([]int(nil), at[k:len(text)]...)})
				r.rule = rule
				if len(bytes.TrimSpace(r.text)) > 0 {
					out = append(out, r)
				}
			}
			continue
		}
		if !hasWord(trim, "include", "-include", "sinclude", "vpath", "export", "unexport", "override", ".PHONY") {
			inRule = false
		}
	}
	return out
}

func hasWord(line string, words ...string) bool {
	for _, w := range words {
		if line == w || strings.HasPrefix(line, w+" ") || strings.HasPrefix(line, w+"\t") {
			return true
		}
	}
	return false
}

func lineEnd(data []byte, off int) int {
	if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
		return off + i
	}
	return len(data)
}

// continued reports a line ending in an odd number of backslashes.
func continued(line []byte) bool {
	n := 0
	for i := len(line) - 1; i >= 0 && line[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// stripComment cuts a make comment: an unescaped # outside a reference.
func stripComment(line []byte) []byte {
	depth := 0
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == '\\' && i+1 < len(line):
			i++
		case c == '$' && i+1 < len(line) && (line[i+1] == '(' || line[i+1] == '{'):
			depth++
			i++
		case (c == ')' || c == '}') && depth > 0:
			depth--
		case c == '#' && depth == 0:
			return line[:i]
		}
	}
	return line
}

// stripPrefixes removes the leading white space and the @, - and + make
// reads at the start of a recipe line.
func stripPrefixes(r recipe) recipe {
	i := 0
	for i < len(r.text) && (r.text[i] == ' ' || r.text[i] == '\t' || r.text[i] == '@' || r.text[i] == '-' || r.text[i] == '+') {
		i++
	}
	return recipe{text: r.text[i:], at: r.at[i:]}
}

// ruleColon returns the index of the colon that makes a rule line, outside
// references, or -1. A ":=" or "::=" is an assignment, handled before.
func ruleColon(line []byte) int {
	depth := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '$':
			if i+1 < len(line) && (line[i+1] == '(' || line[i+1] == '{') {
				depth++
				i++
			}
		case ')', '}':
			if depth > 0 {
				depth--
			}
		case ':':
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// assignment records a variable assignment and reports whether the line was
// one.
func (p *parser) assignment(line []byte, at []int, conditional bool) bool {
	// The operator is the first =, :=, ::=, ?=, +=, != outside references,
	// before any rule colon that is not part of it.
	depth := 0
	opAt, opLen := -1, 0
	for i := 0; i < len(line) && opAt < 0; i++ {
		switch c := line[i]; c {
		case '$':
			if i+1 < len(line) && (line[i+1] == '(' || line[i+1] == '{') {
				depth++
				i++
			}
		case ')', '}':
			if depth > 0 {
				depth--
			}
		case '=':
			if depth == 0 {
				opAt, opLen = i, 1
				if i > 0 && strings.IndexByte("?+!:", line[i-1]) >= 0 {
					opAt, opLen = i-1, 2
					if line[i-1] == ':' && i > 1 && line[i-2] == ':' {
						opAt, opLen = i-2, 3
					}
				}
			}
		case ':':
			if depth == 0 && !(i+1 < len(line) && line[i+1] == '=') && !(i+2 < len(line) && line[i+1] == ':' && line[i+2] == '=') {
				return false // a rule (a target-specific variable is left alone)
			}
		}
	}
	if opAt < 0 {
		return false
	}
	op := string(line[opAt : opAt+opLen])
	fields := strings.Fields(string(line[:opAt]))
	for len(fields) > 1 && (fields[0] == "export" || fields[0] == "override" || fields[0] == "private") {
		fields = fields[1:]
	}
	if len(fields) != 1 {
		return false
	}
	name := fields[0]
	// The value: white space after the operator is dropped, trailing kept
	// (GNU make strips leading white space only).
	vs := opAt + opLen
	for vs < len(line) && (line[vs] == ' ' || line[vs] == '\t') {
		vs++
	}
	value, vat := line[vs:], at[vs:]
	def := p.span(at[0], at[len(at)-1]+1)
	if len(vat) > 0 {
		def = p.span(vat[0], vat[len(vat)-1]+1)
	}
	old, had := p.vars[name]
	if conditional || op == "!=" {
		p.vars[name] = &variable{def: def}
		return true
	}
	switch op {
	case "?=":
		if had {
			return true
		}
		p.vars[name] = &variable{known: true, recursive: true, text: value, at: vat, def: def}
	case "+=":
		if !had {
			p.vars[name] = &variable{known: true, recursive: true, text: value, at: vat, def: def}
			return true
		}
		if !old.known {
			return true
		}
		nv := *old
		add, addAt, addSrc := value, vat, vat
		if !old.recursive {
			p.left = maxExpanded
			if add, addAt, addSrc, _ = p.expandSrc(value, vat, vat, 0); p.left < 0 {
				p.vars[name] = &variable{def: def}
				return true
			}
		}
		if len(nv.text) > 0 {
			nv.text = append(append([]byte(nil), nv.text...), ' ')
			nv.at = append(append([]int(nil), nv.at...), vat0(vat, def, p))
			nv.src = append(append([]int(nil), nv.src...), -1)
		}
		nv.text = append(nv.text, add...)
		nv.at = append(nv.at, addAt...)
		if !old.recursive {
			nv.src = append(nv.src, addSrc...)
		}
		nv.origin = append(append(deploy.Origin(nil), old.origin...), deploy.At(deploy.StepAssignment, old.def))
		nv.def = def
		p.vars[name] = &nv
	case ":=", "::=":
		p.left = maxExpanded
		text, tat, tsrc, refs := p.expandSrc(value, vat, vat, 0)
		if p.left < 0 {
			p.vars[name] = &variable{def: def}
			return true
		}
		v := &variable{known: true, text: text, at: tat, src: tsrc, def: def}
		for _, r := range refs {
			v.origin = append(v.origin, r.origin...)
		}
		p.vars[name] = v
	default: // =
		p.vars[name] = &variable{known: true, recursive: true, text: value, at: vat, def: def}
	}
	return true
}

// vat0 is where the space joining an appended value maps: its first byte.
func vat0(vat []int, def deploy.Span, p *parser) int {
	if len(vat) > 0 {
		return vat[0]
	}
	return p.lines.Offset(def.Line, def.Col)
}

// expandSrc replaces make references in text (each byte at at[i] of the
// file) and returns the shell text, where each byte maps to (bytes a
// variable produced map onto its reference), where each was written (src[i]
// for text's own bytes, the definition's bytes for a variable's, -1 where
// nowhere exactly), and the references it expanded.
func (p *parser) expandSrc(text []byte, at, src []int, depth int) ([]byte, []int, []int, []ref) {
	var out []byte
	var outAt, outSrc []int
	var refs []ref
	emit := func(b []byte, pos func(int) int, from []int) {
		p.left -= len(b)
		if p.left < 0 {
			return
		}
		for i, c := range b {
			out = append(out, c)
			outAt = append(outAt, pos(i))
			if len(from) == len(b) {
				outSrc = append(outSrc, from[i])
			} else {
				outSrc = append(outSrc, -1)
			}
		}
	}
	for i := 0; i < len(text) && p.left >= 0; i++ {
		c := text[i]
		if c != '$' || i+1 >= len(text) {
			out = append(out, c)
			outAt = append(outAt, at[i])
			outSrc = append(outSrc, src[i])
			continue
		}
		n := text[i+1]
		if n == '$' {
			out = append(out, '$')
			outAt = append(outAt, at[i])
			outSrc = append(outSrc, src[i])
			i++
			continue
		}
		var name string
		end := i + 2 // one past the reference
		if n == '(' || n == '{' {
			close := byte(')')
			if n == '{' {
				close = '}'
			}
			k := matching(text, i+2, n, close)
			if k < 0 {
				// Unterminated: make reports it; the shell sees it as written.
				out = append(out, text[i:]...)
				outAt = append(outAt, at[i:]...)
				outSrc = append(outSrc, src[i:]...)
				break
			}
			name, end = string(text[i+2:k]), k+1
		} else {
			name = string(n)
		}
		s, e := at[i], at[end-1]+1
		clamp := func(k int) int { return min(s+k, e-1) }
		v, ok := p.vars[name]
		if !ok || !v.known || depth >= maxExpandDepth || !isVarName(name) {
			// Unknown: the reference reaches the shell as an unknown
			// word. $(...) and ${...} stay as written; a one-character
			// automatic variable becomes $(X), which the shell cannot
			// know either.
			ref := text[i:end]
			if n == '(' && !isVarName(name) && !parsesAsCommand(name) {
				// A make function whose text is no shell command ($(if a,b),
				// $(foreach …)) would not parse as the command substitution
				// the shell takes it for: one unknown word stands for it,
				// spanning the whole reference.
				ref = []byte("$(:)")
				clamp = func(k int) int {
					if k == len(ref)-1 {
						return e - 1
					}
					return min(s+k, e-1)
				}
			}
			if n != '(' && n != '{' {
				switch n {
				case '<', '|', '(', ')', ';', '&', '>', ' ', '\t', '\n', '"', '\'', '`', '\\':
					ref = []byte("$(:)")
				default:
					ref = []byte("$(" + string(n) + ")")
				}
			}
			emit(ref, clamp, nil)
			i = end - 1
			continue
		}
		val, valSrc := v.text, v.src
		var inner []ref
		if v.recursive {
			val, _, valSrc, inner = p.expandSrc(v.text, v.at, v.at, depth+1)
		}
		emit(val, clamp, valSrc)
		origin := append(deploy.Origin(nil), v.origin...)
		for _, r := range inner {
			origin = append(origin, r.origin...)
		}
		origin = append(origin, deploy.At(deploy.StepAssignment, v.def))
		refs = append(refs, ref{span: p.span(s, e), origin: origin})
		i = end - 1
	}
	return out, outAt, outSrc, refs
}

// matching finds the close of a reference opened before text[from],
// counting nested pairs of the same kind.
func matching(text []byte, from int, open, close byte) int {
	depth := 1
	for k := from; k < len(text); k++ {
		switch text[k] {
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				return k
			}
		}
	}
	return -1
}

// isVarName reports a reference that names a variable, not a function call
// ($(shell ...), $(subst a,b,c)) or a substitution reference ($(VAR:a=b)).
func isVarName(name string) bool {
	return name != "" && !strings.ContainsAny(name, " \t,:$()={}#")
}
