package shell

import (
	"slices"
	"strconv"
	"strings"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/engine"
	"mvdan.cc/sh/v3/syntax"
)

// call handles one simple command: it updates the variables the command sets
// in this shell, records the command, and walks the script of a sh -c.
func (w *walker) call(c *syntax.CallExpr, st *vars) {
	if len(c.Args) == 0 {
		// A=b alone sets a shell variable; assignments run left to right.
		for _, a := range c.Assigns {
			w.assign(a, st, false)
		}
		return
	}
	// Per POSIX (Shell Command Language 2.9.1) the command's words are
	// expanded before its prefix assignments, which apply to the command's
	// environment only. So the prefix values see each other but not the
	// words, and nothing persists.
	var words []deploy.Value
	var fields []field
	prefix := w.prefixAssigns(c.Assigns, st)
	for _, f := range prefix {
		words = append(words, w.value(f))
		fields = append(fields, f)
	}
	for _, arg := range c.Args {
		for _, f := range w.expandFields(arg, st) {
			words = append(words, w.value(f))
			fields = append(fields, f)
		}
		if len(words) > engine.MaxArgv {
			// Millions of words fit on one line of a file kvlint reads
			// (or in a variable it expands); each costs hundreds of bytes
			// here, and no engine launch has so many. The command is
			// reported at the word that crossed the bound, not half-built.
			w.errorf(w.off(arg.Pos()), w.off(arg.End()), "command has more than %d words; not analysed", engine.MaxArgv)
			return
		}
	}
	if len(words) == 0 {
		return
	}
	span := w.loc.span(w.off(c.Pos()), w.off(c.End()))
	if run, ok := engine.DetectContainerRun(words); ok {
		// The container runs its own argv, in an environment of its own:
		// the -e options, not this shell's variables.
		ct := &Container{Run: run, Command: run.Command(w.src.Images)}
		w.out.cmds = append(w.out.cmds, Command{Words: words, Span: span, Argv: ct.Command.Argv, Container: ct, Call: w.site})
		w.containerScript(words, fieldAts(fields), ct, st)
		return
	}
	w.out.cmds = append(w.out.cmds, Command{Words: words, Span: span, Argv: words, Container: w.container, Call: w.site})
	args := words[len(prefix):]
	if f, ok := w.function(args); ok {
		w.callFunction(f, args, span, st)
		return
	}
	if len(args) > 0 && args[0].Known && args[0].Raw == "eval" {
		w.eval(args, fields[len(prefix):], span, st)
		return
	}
	w.builtin(args, st)
	if i, ok := ScriptArg(words); ok {
		w.script(words, fieldAts(fields), i, st)
	} else if i, ok := ScriptFile(words[len(prefix):]); ok && w.src.Scripts != nil {
		w.scriptFile(words[len(prefix):], i, st)
	}
}

// function returns the function a command calls. In bash a function is
// found before a builtin or a program of the same name (bash manual, 3.7.2
// Command Search and Execution); "command NAME" skips functions.
func (w *walker) function(args []deploy.Value) (*function, bool) {
	if len(args) == 0 || !args[0].Known {
		return nil, false
	}
	f, ok := w.funcs[args[0].Raw]
	return f, ok
}

// callFunction walks a function's body for one call, with the call's words
// after the name as $1, $2, ... The body shares the caller's variables;
// names it declares local get their values back when it returns.
func (w *walker) callFunction(f *function, args []deploy.Value, span deploy.Span, st *vars) {
	name := args[0].Raw
	recursive := slices.Contains(w.calls, name)
	if recursive || !w.follow(span, "function "+name) {
		// Recursion ends on a condition kvlint does not evaluate: the
		// body has been walked once for the outermost call.
		w.apply(f.effects, st)
		return
	}
	callee := f.w
	saved := callee.calls
	callee.calls = append(slices.Clone(w.calls), name)
	savedEv, savedSite := callee.ev, callee.site
	callee.site = w.site
	if callee.site.IsZero() {
		callee.site = span
	}

	params, known := st.params, st.paramsKnown
	dollar0 := deploy.Value{}
	if known && len(params) > 0 {
		dollar0 = params[0] // $0 stays the script's name inside a function
	}
	st.setParams(append([]deploy.Value{dollar0}, args[1:]...))
	locals := localNames(f.decl.Body)
	before := make(map[string]variable, len(locals))
	had := make(map[string]bool, len(locals))
	for n := range locals {
		before[n], had[n] = st.m[n]
	}
	callee.stmt(f.decl.Body, st)
	for n := range locals {
		if had[n] {
			st.m[n] = before[n]
		} else {
			delete(st.m, n)
		}
	}
	st.params, st.paramsKnown = params, known
	callee.calls, callee.ev, callee.site = saved, savedEv, savedSite
}

// follow takes one walk from the run's budget, reporting once at span when
// it is spent.
func (w *walker) follow(span deploy.Span, what string) bool {
	if w.out.budget > 0 {
		w.out.budget--
		return true
	}
	if !w.out.exhausted {
		w.out.exhausted = true
		w.out.errs = append(w.out.errs, diag.Errorf(span,
			"%s: more than %d function calls and eval strings in one file; the rest are not followed", what, maxFollow))
	}
	return false
}

// localNames are the variables a function body declares with local, or with
// declare/typeset without -g (which are local inside a function).
func localNames(body syntax.Node) map[string]bool {
	names := map[string]bool{}
	syntax.Walk(body, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.FuncDecl:
			return n.Body == body
		case *syntax.DeclClause:
			switch n.Variant.Value {
			case "local", "declare", "typeset":
			default:
				return true
			}
			for _, a := range n.Args {
				if a.Name == nil && a.Value != nil && strings.HasPrefix(a.Value.Lit(), "-") && strings.Contains(a.Value.Lit(), "g") {
					return true // declare -g: global
				}
			}
			for _, a := range n.Args {
				if a.Name != nil {
					names[a.Name.Value] = true
				}
			}
		}
		return true
	})
	return names
}

// fieldAts are the byte offsets each field's bytes were written at.
func fieldAts(fields []field) [][]int {
	ats := make([][]int, len(fields))
	for k, f := range fields {
		ats[k] = f.at
	}
	return ats
}

// value turns an expanded field into the Value of a word.
func (w *walker) value(f field) deploy.Value {
	if f.param != nil {
		return *f.param
	}
	span := w.loc.span(f.start, f.end)
	if w.ev != nil {
		span = w.ev.fieldSpan(f)
	}
	return deploy.Value{Raw: string(f.raw), Known: f.known, Span: span, Origin: w.evalOrigin(f)}
}

// prefixAssigns expands the A=b words in front of a command, as words "A=b".
func (w *walker) prefixAssigns(assigns []*syntax.Assign, st *vars) []field {
	tmp := st.clone()
	var out []field
	for _, a := range assigns {
		if a.Name == nil {
			continue
		}
		f := w.assign(a, tmp, false)
		s, e := w.off(a.Pos()), w.off(a.End())
		name := a.Name.Value
		prefix := name + "="
		if a.Append {
			prefix = name + "+="
		}
		word := field{known: f.known, origin: f.origin, start: s, end: e, ranged: true}
		nameAt := w.off(a.Name.Pos())
		for i := 0; i < len(prefix); i++ {
			word.raw = append(word.raw, prefix[i])
			word.at = append(word.at, min(nameAt+i, e-1))
			word.src = append(word.src, w.srcOf(min(nameAt+i, e-1)))
		}
		word.raw = append(word.raw, f.raw...)
		word.at = append(word.at, f.at...)
		word.src = append(word.src, f.src...)
		out = append(out, word)
	}
	return out
}

// assign performs one assignment and returns the value it stored. Arrays,
// indexed elements and attributes kvlint does not model store an unknown.
func (w *walker) assign(a *syntax.Assign, st *vars, unknown bool) field {
	if a.Name == nil {
		return field{}
	}
	name := a.Name.Value
	s, e := w.off(a.Pos()), w.off(a.End())
	if a.Array != nil || a.Index != nil || unknown {
		if unknown {
			st.forget(map[string]bool{name: true})
		} else {
			w.assignArray(a, st)
		}
		return w.rawField(s, e)
	}
	f, _ := w.expandString(a.Value, st)
	if a.Value == nil || len(a.Value.Parts) == 0 {
		f.start, f.end = s, e
	}
	val := deploy.Value{Raw: string(f.raw), Known: f.known, Span: w.loc.span(f.start, f.end), Origin: w.evalOrigin(f)}
	src := f.src
	if a.Append {
		old, ok := st.lookup(name)
		switch {
		case !ok:
			val.Known = false
		case !old.unset:
			// A+=v copies the old value: n such lines copy n²/2 bytes,
			// which the run's budget bounds like any other expansion.
			from := originOf(old)
			if !w.spend(s, e, len(old.val.Raw)+len(val.Raw), 1+len(from)) {
				st.forget(map[string]bool{name: true})
				return f
			}
			val.Raw = old.val.Raw + val.Raw
			val.Origin = append(from, val.Origin...)
			src = append(slices.Clone(w.varSrc(old)), src...)
		}
	}
	st.set(name, val)
	st.setSrc(name, src, w.root())
	return f
}

// rawField is text[s:e] as written, unknown.
func (w *walker) rawField(s, e int) field {
	f := field{start: s, end: e, ranged: true}
	for i := s; i < e; i++ {
		f.raw = append(f.raw, w.text[i])
		f.at = append(f.at, i)
		f.src = append(f.src, w.srcOf(i))
	}
	return f
}

// builtin applies what a builtin command does to this shell's variables.
func (w *walker) builtin(words []deploy.Value, st *vars) {
	// command NAME and builtin NAME run the builtin itself.
	for len(words) > 1 && words[0].Known && (words[0].Raw == "command" || words[0].Raw == "builtin") {
		words = words[1:]
	}
	if len(words) == 0 || !words[0].Known {
		return
	}
	lits := make([]string, len(words))
	for i, v := range words {
		if v.Known {
			lits[i] = v.Raw
		}
	}
	switch lits[0] {
	case "unset":
		funcs := false
		for _, a := range lits[1:] {
			switch {
			case a == "-f":
				funcs = true
			case a == "-v":
				funcs = false
			case isName(a) && !funcs:
				if !w.readonly(st, a) {
					old := st.m[a]
					st.m[a] = variable{unset: true, exported: old.exported}
				}
			}
		}
		for _, v := range words[1:] {
			if !v.Known {
				st.forgetAll() // unset "$NAME": any variable
				return
			}
		}
	case "set":
		w.set(words, lits, st)
	case "shift":
		n := 1
		if len(words) > 1 {
			var err error
			if n, err = strconv.Atoi(lits[1]); err != nil || !words[1].Known || n < 0 {
				st.params, st.paramsKnown = nil, false
				return
			}
		}
		if st.paramsKnown && n <= len(st.params)-1 {
			st.params = append([]deploy.Value{st.params[0]}, st.params[1+n:]...)
		}
	default:
		var e effects
		e.names = map[string]bool{}
		w.builtinEffects(lits, &e)
		if lits[0] == "printf" || lits[0] == "unset" {
			// printf assigns only with -v NAME.
			e.names = map[string]bool{}
			for i := 1; i+1 < len(lits); i++ {
				if lits[i] == "-v" && isName(lits[i+1]) {
					e.names[lits[i+1]] = true
				}
			}
		}
		w.apply(e, st)
	}
}

// set handles the set builtin: -a / -o allexport, and new positional
// parameters after "--", "-" or the first word that is not an option.
func (w *walker) set(words []deploy.Value, lits []string, st *vars) {
	i := 1
	for i < len(words) {
		a := lits[i]
		if !words[i].Known {
			st.params, st.paramsKnown = nil, false
			return
		}
		if a == "--" || a == "-" {
			i++
			break
		}
		if len(a) < 2 || a[0] != '-' && a[0] != '+' {
			break
		}
		on := a[0] == '-'
		if strings.Contains(a[1:], "a") {
			st.allexport = on
		}
		// -o NAME: each o in the cluster takes the next word.
		for k := 0; k < strings.Count(a[1:], "o"); k++ {
			i++
			if i < len(lits) && lits[i] == "allexport" {
				st.allexport = on
			}
		}
		i++
	}
	if i > len(words) || i == len(words) && lits[i-1] != "--" && lits[i-1] != "-" {
		return // options only: the parameters are unchanged
	}
	if !st.paramsKnown || len(st.params) == 0 {
		st.params, st.paramsKnown = nil, false
		return
	}
	params := []deploy.Value{st.params[0]}
	params = append(params, words[i:]...)
	st.setParams(params)
}

// decl handles export, declare, local, readonly and typeset.
func (w *walker) decl(c *syntax.DeclClause, st *vars) {
	variant := c.Variant.Value
	export := variant == "export"
	readonly := variant == "readonly"
	unexport := false
	modelled := variant != "nameref"
	for _, a := range c.Args {
		if a.Name != nil || a.Value == nil {
			continue
		}
		opt := a.Value.Lit()
		if len(opt) < 2 || (opt[0] != '-' && opt[0] != '+') {
			// declare "$spec": evaluated at run time, may name anything.
			st.forgetAll()
			continue
		}
		on := opt[0] == '-'
		for _, o := range opt[1:] {
			switch o {
			case 'x':
				export, unexport = on, !on
			case 'n':
				if variant == "export" {
					export, unexport = false, true
				} else {
					modelled = false // nameref
				}
			case 'r':
				readonly = readonly || on
			case 'f', 'F':
				return // declares functions, not variables
			case 'a':
				// an indexed array: A=(...) is modelled; declare -a A=x
				// makes element 0, as an assignment to A does.
			case 'A', 'i', 'l', 'u', 'c':
				// associative arrays, integers (arithmetic on
				// assignment), case changes
				modelled = false
			}
		}
	}
	for _, a := range c.Args {
		if a.Name == nil {
			continue
		}
		name := a.Name.Value
		if !a.Naked {
			w.assign(a, st, !modelled)
		}
		v, ok := st.m[name]
		if !ok && (export || readonly) {
			// export A with A from the environment: still unknown.
			v = variable{}
		}
		if !ok && !export && !readonly {
			continue
		}
		v.exported = (v.exported || export || st.allexport) && !unexport
		v.readonly = v.readonly || readonly
		st.m[name] = v
	}
}
