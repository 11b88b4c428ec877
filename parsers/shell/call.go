package shell

import (
	"strconv"
	"strings"

	"github.com/kvlint/kvlint/deploy"
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
	var ats [][]int
	prefix := w.prefixAssigns(c.Assigns, st)
	for _, f := range prefix {
		words = append(words, w.value(f))
		ats = append(ats, f.at)
	}
	for _, arg := range c.Args {
		for _, f := range w.expandFields(arg, st) {
			words = append(words, w.value(f))
			ats = append(ats, f.at)
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
		w.cmds = append(w.cmds, Command{Words: words, Span: span, Argv: ct.Command.Argv, Container: ct})
		w.containerScript(words, ats, ct, st)
		return
	}
	w.cmds = append(w.cmds, Command{Words: words, Span: span, Argv: words, Container: w.container})
	w.builtin(words[len(prefix):], st)
	if i, ok := ScriptArg(words); ok {
		w.script(words, ats, i, st)
	} else if i, ok := ScriptFile(words[len(prefix):]); ok && w.src.Scripts != nil {
		w.scriptFile(words[len(prefix):], i, st)
	}
}

// value turns an expanded field into the Value of a word.
func (w *walker) value(f field) deploy.Value {
	if f.param != nil {
		return *f.param
	}
	return deploy.Value{Raw: string(f.raw), Known: f.known, Span: w.loc.span(f.start, f.end), Origin: f.origin}
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
		}
		word.raw = append(word.raw, f.raw...)
		word.at = append(word.at, f.at...)
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
		st.forget(map[string]bool{name: true})
		return w.rawField(s, e)
	}
	f, _ := w.expandString(a.Value, st)
	if a.Value == nil || len(a.Value.Parts) == 0 {
		f.start, f.end = s, e
	}
	val := deploy.Value{Raw: string(f.raw), Known: f.known, Span: w.loc.span(f.start, f.end), Origin: f.origin}
	if a.Append {
		old, ok := st.lookup(name)
		switch {
		case !ok:
			val.Known = false
		case !old.unset:
			val.Raw = old.val.Raw + val.Raw
			val.Origin = append(originOf(old), val.Origin...)
		}
	}
	st.set(name, val)
	return f
}

// rawField is text[s:e] as written, unknown.
func (w *walker) rawField(s, e int) field {
	f := field{start: s, end: e, ranged: true}
	for i := s; i < e; i++ {
		f.raw = append(f.raw, w.text[i])
		f.at = append(f.at, i)
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
			case 'a', 'A', 'i', 'l', 'u', 'c':
				// arrays, integers (arithmetic on assignment), case changes
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
