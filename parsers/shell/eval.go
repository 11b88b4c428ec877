package shell

import (
	"strings"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
)

// evalText is how the text of an eval maps back to the words eval was
// given. eval joins its arguments, "separating each with a <space>
// character", and the shell reads and executes the result (POSIX, The Open
// Group Base Specifications, eval); it is a special built-in, so it runs in
// the current shell and shares the caller's variables and functions.
type evalText struct {
	root *walker // the walker whose text src offsets point into
	// src is, per byte of the text, its offset in root's text or -1; word
	// is the index in words of the argument the byte came from.
	src   []int
	word  []int
	words []deploy.Value
	// origins are the argument fields' provenance, per argument.
	origins []deploy.Origin
}

// root is the walker whose text src offsets refer to: the walker itself,
// or for an eval text the root of the walker that ran eval.
func (w *walker) root() *walker {
	if w.ev != nil {
		return w.ev.root
	}
	return w
}

// srcOf is the root-text offset where text[i] was written, or -1.
func (w *walker) srcOf(i int) int {
	if w.ev == nil {
		return i
	}
	if i < 0 || i >= len(w.ev.src) {
		return -1
	}
	return w.ev.src[i]
}

// varSrc is where each byte of a variable's value was written, in this
// walker's root text; nil when that is not known here.
func (w *walker) varSrc(v variable) []int {
	if v.root == nil || v.root != w.root() || len(v.src) != len(v.val.Raw) {
		return nil
	}
	return v.src
}

// evalOrigin is a field's provenance, plus, inside an eval text, that of
// the eval arguments its bytes came from (the assignment of "$CMD").
func (w *walker) evalOrigin(f field) deploy.Origin {
	if w.ev == nil {
		return f.origin
	}
	out := f.origin
	for _, k := range w.ev.argsOf(f.start, f.end) {
		out = append(out, w.ev.origins[k]...)
	}
	return dedupeSteps(out)
}

// argsOf lists the eval arguments the bytes text[s:e] came from.
func (ev *evalText) argsOf(s, e int) []int {
	if len(ev.word) == 0 {
		return nil
	}
	s = min(max(s, 0), len(ev.word)-1)
	e = min(max(e, s+1), len(ev.word))
	var out []int
	for k := ev.word[s]; k <= ev.word[e-1]; k++ {
		out = append(out, k)
	}
	return out
}

// exact returns the root-text range that holds the bytes with these src
// offsets as written: every byte has a place, in order, and what lies
// between two of them is only quoting. Otherwise ok is false.
func (ev *evalText) exact(src []int) (start, end int, ok bool) {
	if len(src) == 0 {
		return 0, 0, false
	}
	text := ev.root.text
	for i, p := range src {
		if p < 0 || p >= len(text) {
			return 0, 0, false
		}
		if i == 0 {
			continue
		}
		q := src[i-1]
		if p <= q {
			return 0, 0, false
		}
		for _, c := range text[q+1 : p] {
			if !strings.ContainsRune("\"'\\\n", rune(c)) {
				return 0, 0, false
			}
		}
	}
	return src[0], src[len(src)-1] + 1, true
}

// argSpan is the span of the eval arguments the text bytes [s, e) came
// from: where a word is not written anywhere as one piece, that is the
// place to look.
func (ev *evalText) argSpan(s, e int) deploy.Span {
	ks := ev.argsOf(s, e)
	if len(ks) == 0 {
		return deploy.Span{}
	}
	first, last := ev.words[ks[0]].Span, ev.words[ks[len(ks)-1]].Span
	first.EndLine, first.EndCol = last.EndLine, last.EndCol
	return first
}

// span covers the text bytes [s, e): exactly where they were written when
// they are written as one piece, else the eval arguments they came from.
func (ev *evalText) span(s, e int) deploy.Span {
	if e <= s {
		e = s + 1
	}
	var src []int
	for i := s; i < e && i < len(ev.src); i++ {
		src = append(src, ev.src[i])
	}
	if a, b, ok := ev.exact(src); ok {
		return ev.root.loc.span(a, b)
	}
	return ev.argSpan(s, e)
}

// fieldSpan is the span of a word of the eval text: exact when all its
// characters were written in one piece (in the eval string or in the
// assignment of a variable it expanded), else the eval arguments.
func (ev *evalText) fieldSpan(f field) deploy.Span {
	if f.param == nil {
		if a, b, ok := ev.exact(f.src); ok {
			return ev.root.loc.span(a, b)
		}
	}
	return ev.argSpan(f.start, f.end)
}

// pos is where the text byte at off was written, for the line:col of a
// nested sh -c script.
func (ev *evalText) pos(off int) (int, int) {
	if off >= 0 && off < len(ev.src) && ev.src[off] >= 0 {
		return ev.root.loc.pos(ev.src[off])
	}
	sp := ev.argSpan(off, off+1)
	return sp.Line, sp.Col
}

// eval runs the arguments of eval as shell text in this shell, when every
// one is known; an unknown one may hold any command, so every variable
// becomes unknown and no command is invented.
func (w *walker) eval(args []deploy.Value, fields []field, span deploy.Span, st *vars) {
	if len(args) < 2 {
		return
	}
	for _, a := range args[1:] {
		if !a.Known {
			st.forgetAll()
			return
		}
	}
	if w.depth >= maxDepth {
		w.out.errs = append(w.out.errs, diag.Errorf(span, "eval nested more than %d deep: not analysed", maxDepth))
		st.forgetAll()
		return
	}
	if !w.follow(span, "eval") {
		st.forgetAll()
		return
	}
	ev := &evalText{root: w.root(), words: args[1:]}
	var text []byte
	for k, f := range fields[1:] {
		if k > 0 {
			text = append(text, ' ')
			ev.src = append(ev.src, -1)
			ev.word = append(ev.word, k-1)
		}
		text = append(text, f.raw...)
		for i := range f.raw {
			ev.src = append(ev.src, srcAt(f.src, i, len(f.raw)))
			ev.word = append(ev.word, k)
		}
		ev.origins = append(ev.origins, args[1+k].Origin)
	}
	child := &walker{
		src:   Source{File: w.src.File, Text: text},
		text:  text,
		loc:   locator{file: w.src.File, lines: NewLines(text), ev: ev},
		depth: w.depth + 1,
		out:   w.out,
		funcs: w.funcs,
		calls: w.calls,
		ev:    ev,
		site:  w.site,
	}
	if child.site.IsZero() {
		child.site = span
	}
	child.runWith(st)
}
