package shell

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/engine"
	"mvdan.cc/sh/v3/syntax"
)

// field is one word after expansion, with where each of its bytes came from.
type field struct {
	raw []byte
	at  []int // offset in the text of each byte of raw
	// src is, for each byte of raw, the offset in the root text (see
	// walker.root) where that very character was written, or -1: a byte
	// an escape or a positional parameter produced. Unlike at, a byte a
	// $variable produced has the offset of the byte in its assignment.
	src    []int
	known  bool
	origin deploy.Origin
	// start and end bound the source of the word parts the field came from
	// (whole quoted strings, whole $expansions).
	start, end int
	ranged     bool // start and end are set
	// param is set when the field is a positional parameter passed through
	// whole ("$@", "$1"): the word is that value, as and where it was written.
	param *deploy.Value
}

// expander expands one word (or one assignment value) against a variable
// state. Bytes that come from the text keep their own offset; bytes a
// $variable produced are placed inside the expansion's text.
type expander struct {
	w     *walker
	st    *vars
	split bool // field splitting and pathname expansion apply (command words)

	fields []field
	cur    field
	open   bool // cur holds a field, possibly empty ("")
	glob   bool // cur has an unquoted pattern: pathname expansion may rewrite it
	// bracket is set after an unquoted [: a later ] makes a pattern.
	bracket bool
	// the source range of the top-level word part being expanded
	partStart, partEnd int
	quotes             bool // the word has quoted parts
}

func (w *walker) newExpander(st *vars, split bool) *expander {
	return &expander{w: w, st: st, split: split, cur: field{known: true}}
}

// fields expands a command word into zero or more fields.
func (w *walker) expandFields(word *syntax.Word, st *vars) []field {
	if fs, ok := w.wholeParams(word, st); ok {
		return fs
	}
	if fs, ok := w.wholeArray(word, st); ok {
		return fs
	}
	x := w.newExpander(st, true)
	x.word(word)
	fields := x.finish()
	if len(fields) == 1 {
		// One word in, one word out: its span is the word as written.
		fields[0].start, fields[0].end = w.off(word.Pos()), w.off(word.End())
	}
	return fields
}

// wholeParams expands a word that is exactly "$@", $@, $*, "$N" or $N
// when the positional parameters are known: each parameter becomes one
// word, keeping its own span. Unquoted, this holds only for values that
// field splitting and pathname expansion leave alone.
func (w *walker) wholeParams(word *syntax.Word, st *vars) ([]field, bool) {
	if !st.paramsKnown || len(word.Parts) != 1 {
		return nil, false
	}
	part, quoted := word.Parts[0], false
	if q, ok := part.(*syntax.DblQuoted); ok && len(q.Parts) == 1 && !q.Dollar {
		part, quoted = q.Parts[0], true
	}
	p, ok := part.(*syntax.ParamExp)
	if !ok || p.Param == nil || p.Exp != nil || p.Length || p.Excl || p.Index != nil || p.Repl != nil || p.Names != 0 {
		return nil, false
	}
	if p.Slice != nil && p.Param.Value != "@" {
		return nil, false
	}
	var values []deploy.Value
	switch name := p.Param.Value; {
	case p.Slice != nil:
		// ${@:offset[:length]} (bash manual, 3.5.3): the parameters from
		// $offset on; offset 0 starts at $0.
		x := w.newExpander(st, false)
		off, ok := x.arith(p.Slice.Offset)
		if !ok || off < 0 || int(off) > len(st.params) {
			return nil, false
		}
		values = st.params[off:]
		if p.Slice.Length != nil {
			n, ok := x.arith(p.Slice.Length)
			if !ok || n < 0 {
				return nil, false
			}
			values = values[:min(int(n), len(values))]
		}
		if off == 0 && len(values) > 0 && !values[0].Known {
			return nil, false // an unknown $0
		}
	case name == "@" || name == "*" && !quoted:
		values = st.params[1:]
	case isDigits(name):
		n, err := strconv.Atoi(name)
		if err != nil || n >= len(st.params) || !st.params[n].Known {
			return nil, false // unset, or an unknown $0: expanded as written
		}
		values = st.params[n : n+1]
	default:
		return nil, false
	}
	if !quoted {
		if st.hasEntry("IFS") {
			return nil, false // splitting at a changed IFS is not modelled
		}
		for _, v := range values {
			if v.Raw == "" || strings.ContainsAny(v.Raw, " \t\n*?[") {
				return nil, false
			}
		}
	}
	s := w.off(word.Pos())
	if !w.payValues(values, nil, s, w.off(word.End())) {
		return []field{w.rawField(s, w.off(word.End()))}, true
	}
	out := make([]field, len(values))
	for i, v := range values {
		v := v
		at := make([]int, len(v.Raw))
		src := make([]int, len(v.Raw))
		for j := range at {
			at[j], src[j] = s, -1
		}
		out[i] = field{raw: []byte(v.Raw), at: at, src: src, known: v.Known, param: &v}
	}
	return out, true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// expandString expands a word without field splitting (assignment values,
// the words inside ${v:-word}) and returns it as one field.
func (w *walker) expandString(word *syntax.Word, st *vars) (field, bool) {
	x := w.newExpander(st, false)
	if word != nil {
		x.word(word)
	}
	x.open = true
	fs := x.finish()
	if word != nil && len(word.Parts) > 0 && (!fs[0].ranged || len(fs[0].raw) == 0) {
		// An empty result ($EMPTY) is still written somewhere: the word.
		fs[0].start, fs[0].end, fs[0].ranged = w.off(word.Pos()), w.off(word.End()), true
	}
	return fs[0], x.quotes
}

func (x *expander) word(word *syntax.Word) {
	if braced := (&syntax.Word{Parts: slices.Clone(word.Parts)}); x.split && syntax.SplitBraces(braced) {
		// Brace expansion {a,b} / {1..4} turns one word into several;
		// kvlint does not expand it.
		s, e := x.w.off(word.Pos()), x.w.off(word.End())
		x.partStart, x.partEnd = s, e
		x.unknown(s, e)
		return
	}
	for i, part := range word.Parts {
		x.partStart, x.partEnd = x.w.off(part.Pos()), x.w.off(part.End())
		if lit, ok := part.(*syntax.Lit); ok && i == 0 && x.tilde(lit) {
			continue
		}
		x.part(part, false)
	}
}

func (x *expander) part(part syntax.WordPart, quoted bool) {
	w := x.w
	switch p := part.(type) {
	case *syntax.Lit:
		x.lit(w.off(p.Pos()), w.off(p.End()), quoted)
	case *syntax.SglQuoted:
		x.quotes = true
		x.open = true
		x.touch()
		if p.Dollar {
			x.ansiC(w.off(p.Left)+2, w.off(p.Right))
			return
		}
		for i := w.off(p.Left) + 1; i < w.off(p.Right); i++ {
			x.add(w.text[i], i)
		}
	case *syntax.DblQuoted:
		x.quotes = true
		x.open = true
		x.touch()
		for _, inner := range p.Parts {
			x.part(inner, true)
		}
	case *syntax.ParamExp:
		r := x.param(p)
		s, e := w.off(p.Pos()), w.off(p.End())
		switch {
		case !r.known:
			x.unknown(s, e)
			// An unknown value still says where it was set, and that
			// origin grows with every assignment that copies it: it is
			// paid for like a known value's.
			if x.w.spend(s, e, 0, 1+len(r.origin)) {
				x.cur.origin = append(x.cur.origin, r.origin...)
			}
		case quoted || !x.split:
			x.value(r.val, r.src, s, e, r.origin, quoted)
		default:
			x.splitValue(r.val, r.src, s, e, r.origin, r.quotes)
		}
	case *syntax.ArithmExp:
		s, e := w.off(p.Pos()), w.off(p.End())
		n, ok := x.arith(p.X)
		if !ok {
			x.unknown(s, e)
			return
		}
		x.value(strconv.FormatInt(n, 10), nil, s, e, nil, true)
	default:
		// $(...), `...`, <(...), extended globs: output kvlint cannot know.
		x.unknown(w.off(part.Pos()), w.off(part.End()))
	}
}

// lit appends literal text, removing the backslashes that quote.
func (x *expander) lit(s, e int, quoted bool) {
	t := x.w.text
	for i := s; i < e; i++ {
		c := t[i]
		if c == '\\' && i+1 == e && e < len(t) && t[e] == '\n' {
			// The parser ends a literal on the backslash of a line
			// continuation inside double quotes; the newline is not in it.
			continue
		}
		if c == '\\' && i+1 < e {
			n := t[i+1]
			if n == '\n' { // line continuation
				i++
				continue
			}
			// Inside double quotes a backslash quotes only $ ` " \ and newline.
			if !quoted || n == '$' || n == '`' || n == '"' || n == '\\' {
				i++
				x.open = true
				x.add(n, i)
				continue
			}
		}
		if !quoted && x.split {
			x.pattern(c)
		}
		if !quoted && !x.split && c == '~' && i > 0 && t[i-1] == ':' {
			// A=a:~/b expands the tilde after the colon; HOME is not
			// modelled there.
			x.cur.known = false
		}
		x.open = true
		x.add(c, i)
	}
}

// tilde expands a leading ~ or ~/ with a known HOME. It reports whether it
// handled the literal.
func (x *expander) tilde(lit *syntax.Lit) bool {
	s, e := x.w.off(lit.Pos()), x.w.off(lit.End())
	t := x.w.text
	if s >= e || t[s] != '~' {
		return false
	}
	j := s + 1
	for j < e && t[j] != '/' && !(t[j] == ':' && !x.split) {
		j++
	}
	home, ok := x.st.lookup("HOME")
	if j != s+1 || !ok || home.unset {
		// ~user, ~+, ~- or an unknown HOME.
		x.unknown(s, j)
	} else {
		x.value(home.val.Raw, nil, s, j, originOf(home), true)
	}
	x.lit(j, e, false)
	return true
}

// add appends a byte written at text[at].
func (x *expander) add(b byte, at int) { x.addSrc(b, at, x.w.srcOf(at)) }

// addSrc appends a byte placed at text[at] whose character was written at
// src of the root text (-1: nowhere exactly).
func (x *expander) addSrc(b byte, at, src int) {
	x.cur.raw = append(x.cur.raw, b)
	x.cur.at = append(x.cur.at, at)
	x.cur.src = append(x.cur.src, src)
	x.touch()
}

// touch widens the current field's source range to the current part.
func (x *expander) touch() {
	if !x.cur.ranged {
		x.cur.start, x.cur.end, x.cur.ranged = x.partStart, x.partEnd, true
		return
	}
	x.cur.start = min(x.cur.start, x.partStart)
	x.cur.end = max(x.cur.end, x.partEnd)
}

// unknown appends text[s:e] as written and marks the field unknown.
func (x *expander) unknown(s, e int) {
	x.cur.known = false
	x.open = true
	x.touch()
	for i := s; i < e; i++ {
		x.add(x.w.text[i], i)
	}
}

// value appends the known value of an expansion written at text[s:e]. Its
// bytes are placed on the expansion's own bytes, clamped to its end; src,
// when it has one entry per byte, says where each was written.
func (x *expander) value(v string, src []int, s, e int, origin deploy.Origin, quoted bool) {
	if !x.pay(v, origin, s, e) {
		return
	}
	if quoted || v != "" {
		x.open = true
		x.touch()
	}
	for i := 0; i < len(v); i++ {
		x.addSrc(v[i], min(s+i, e-1), srcAt(src, i, len(v)))
	}
	x.cur.origin = append(x.cur.origin, origin...)
}

// pay takes the copy of v and its origin from the run's budget (spend).
// When it does not fit, text[s:e] is appended as written, unknown.
func (x *expander) pay(v string, origin deploy.Origin, s, e int) bool {
	if x.w.spend(s, e, len(v), 1+len(origin)) {
		return true
	}
	x.unknown(s, e)
	return false
}

// payValues takes from the run's budget (spend) the copy of values, each
// one word with its origin and the steps extra: "${A[@]}" twice in
// A=("${A[@]}" "${A[@]}") doubles the array, as A=$A$A doubles a string.
func (w *walker) payValues(values []deploy.Value, extra deploy.Origin, s, e int) bool {
	bytes, steps := 0, 0
	for _, v := range values {
		bytes += len(v.Raw)
		steps += 1 + len(v.Origin) + len(extra)
	}
	return w.spend(s, e, bytes, steps)
}

// splitValue appends an unquoted known expansion: bash splits it into fields
// at IFS characters and treats pattern characters in it as globs.
func (x *expander) splitValue(v string, src []int, s, e int, origin deploy.Origin, quotes bool) {
	if !x.pay(v, origin, s, e) {
		return
	}
	ifs, ok := x.st.lookup("IFS")
	if ok && !ifs.unset && ifs.val.Raw != " \t\n" || !ok && x.st.hasEntry("IFS") || quotes && containsIFS(v) {
		// A changed IFS (unset IFS splits as the default does; bash never
		// imports IFS from the environment), or a default word with quotes
		// inside an unquoted expansion: the split is not modelled.
		x.unknown(s, e)
		return
	}
	if n := countFields(v); len(x.fields)+n > engine.MaxArgv {
		// No command or array has so many words; each field costs far
		// more than its bytes, so the split is refused before it is made.
		x.w.errorf(s, e, "expands to more than %d words; not expanded", engine.MaxArgv)
		x.unknown(s, e)
		return
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == ' ' || c == '\t' || c == '\n' {
			if x.open {
				x.endField()
			}
			continue
		}
		if !x.open || i == 0 {
			// Once per field the value starts or continues, not once
			// per byte: a field's origin is deduplicated only when it
			// ends.
			x.cur.origin = append(x.cur.origin, origin...)
		}
		x.pattern(c)
		x.open = true
		x.addSrc(c, min(s+i, e-1), srcAt(src, i, len(v)))
	}
}

// pattern notes an unquoted byte that pathname expansion treats specially.
// A lone [ is literal; [...] is a bracket expression.
func (x *expander) pattern(c byte) {
	switch c {
	case '*', '?':
		x.glob = true
	case '[':
		x.bracket = true
	case ']':
		x.glob = x.glob || x.bracket
	}
}

// countFields is the number of fields the default IFS splits v into.
func countFields(v string) int {
	n := 0
	for i := 0; i < len(v); i++ {
		if !isIFS(v[i]) && (i == 0 || isIFS(v[i-1])) {
			n++
		}
	}
	return n
}

func isIFS(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }

func containsIFS(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] == ' ' || v[i] == '\t' || v[i] == '\n' {
			return true
		}
	}
	return false
}

func (st *vars) hasEntry(name string) bool {
	_, ok := st.m[name]
	return ok
}

// srcAt is src[i] when src describes a value of n bytes, else -1.
func srcAt(src []int, i, n int) int {
	if len(src) != n {
		return -1
	}
	return src[i]
}

func (x *expander) endField() {
	if x.glob {
		x.cur.known = false
	}
	x.cur.origin = dedupeSteps(x.cur.origin)
	x.fields = append(x.fields, x.cur)
	x.cur = field{known: true}
	x.open, x.glob, x.bracket = false, false, false
}

func (x *expander) finish() []field {
	if x.open {
		x.endField()
	}
	return x.fields
}

// dedupeSteps keeps the first step at each place. It is linear in the
// steps: an origin may be long in a script made to make it long.
func dedupeSteps(steps deploy.Origin) deploy.Origin {
	type place struct {
		span deploy.Span
		text string
	}
	var out deploy.Origin
	seen := make(map[place]bool, len(steps))
	for _, s := range steps {
		if k := (place{s.Span, s.Text}); !seen[k] {
			seen[k] = true
			out = append(out, s)
		}
	}
	return out
}

// originOf is the provenance a variable's value adds to a word that uses
// it: its own chain, then where the value was defined.
func originOf(v variable) deploy.Origin {
	out := slices.Clone(v.val.Origin)
	if !v.val.Span.IsZero() {
		kind := v.defined
		if kind == "" {
			kind = deploy.StepAssignment
		}
		out = append(out, deploy.At(kind, v.val.Span))
	}
	return out
}

// paramResult is the outcome of one parameter expansion.
type paramResult struct {
	val    string
	src    []int // where each byte of val was written, when known
	known  bool
	origin deploy.Origin
	quotes bool // the value came from a default word with quotes in it
}

// param evaluates $name, ${name} and the ${name op word} forms whose result
// follows from what is known. Positional and special parameters, arrays,
// indirection, pattern removal, substrings and case changes are unknown.
func (x *expander) param(p *syntax.ParamExp) paramResult {
	if p.Param != nil && p.Index != nil {
		return x.arrayParam(p)
	}
	if p.Param == nil || p.Excl || p.Width || p.IsSet || p.Index != nil || p.Slice != nil ||
		p.Repl != nil || p.Names != 0 || p.Flags != nil || len(p.Modifiers) > 0 || p.NestedParam != nil {
		return paramResult{}
	}
	name := p.Param.Value
	var v variable
	var ok bool
	switch {
	case isName(name):
		v, ok = x.st.lookup(name)
	case isDigits(name):
		if n, err := strconv.Atoi(name); err == nil {
			v, ok = x.st.positional(n)
		}
	case name == "#" && x.st.paramsKnown && len(x.st.params) > 0:
		v, ok = variable{val: deploy.Value{Raw: strconv.Itoa(len(x.st.params) - 1), Known: true}}, true
	}
	if !ok {
		// $@, $*, $?, $$, $!, $-, and unknown variables. An unknown value
		// set somewhere kvlint can point at (a pod's env) says where.
		if isName(name) && p.Exp == nil && !p.Length {
			return paramResult{origin: originOf(v)}
		}
		return paramResult{}
	}
	if p.Length {
		if v.unset {
			return paramResult{val: "0", known: true}
		}
		return paramResult{val: strconv.Itoa(utf8.RuneCountInString(v.val.Raw)), known: true, origin: originOf(v)}
	}
	self := paramResult{val: v.val.Raw, known: true, origin: originOf(v), src: x.w.varSrc(v)}
	if v.unset {
		self = paramResult{known: true}
	}
	if p.Exp == nil {
		return self
	}
	null := v.unset
	switch p.Exp.Op {
	case syntax.DefaultUnsetOrNull, syntax.AlternateUnsetOrNull, syntax.ErrorUnsetOrNull, syntax.AssignUnsetOrNull:
		null = v.unset || v.val.Raw == ""
	}
	word := func() paramResult {
		f, quotes := x.w.expandString(p.Exp.Word, x.st)
		return paramResult{val: string(f.raw), known: f.known, origin: f.origin, quotes: quotes, src: f.src}
	}
	switch p.Exp.Op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull:
		if null {
			return word()
		}
		return self
	case syntax.AssignUnset, syntax.AssignUnsetOrNull:
		if !null {
			return self
		}
		r := word()
		if !isName(name) || x.w.readonly(x.st, name) {
			return paramResult{} // bash reports an error and the command does not run
		}
		s, e := x.w.wordRange(p.Exp.Word, p)
		val := deploy.Value{Raw: r.val, Known: r.known, Span: x.w.loc.span(s, e), Origin: r.origin}
		x.st.set(name, val)
		x.st.setSrc(name, r.src, x.w.root())
		return r
	case syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
		if null {
			return paramResult{known: true}
		}
		return word()
	case syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
		if null {
			return paramResult{} // the shell stops here
		}
		return self
	}
	return paramResult{}
}

func (w *walker) readonly(st *vars, name string) bool {
	v, ok := st.m[name]
	return ok && v.readonly
}

// wordRange is the source range of an optional word, or of the node holding it.
func (w *walker) wordRange(word *syntax.Word, holder syntax.Node) (int, int) {
	if word != nil && len(word.Parts) > 0 {
		return w.off(word.Pos()), w.off(word.End())
	}
	return w.off(holder.Pos()), w.off(holder.End())
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9' {
			continue
		}
		return false
	}
	return true
}
