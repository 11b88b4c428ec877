package shell

import (
	"bytes"
	"errors"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/internal/limits"
)

// maxDepth bounds sh -c nesting (sh -c "bash -c '...'").
const maxDepth = 8

// walker visits the statements of one text in execution order, keeping the
// variable state as the script would leave it.
type walker struct {
	src   Source
	text  []byte
	loc   locator
	depth int
	// out collects the commands and errors of the whole run, shared by the
	// walkers of nested sh -c and eval texts, so commands stay in the order
	// they run.
	out *sink
	// funcs holds the functions defined so far in this shell (eval texts
	// share it; a sh -c child is another process and starts without any).
	funcs map[string]*function
	// calls are the functions being walked, innermost last: a call of one
	// of them is recursion, which is not followed.
	calls []string
	at    int // offset of the statement being walked, for internal errors
	// container is the container run whose sh -c script this text is,
	// nil outside one: every command found here runs in it.
	container *Container
	// ev is set for the text of an eval: how its bytes map to the words
	// eval was given.
	ev *evalText
	// site is the command in the file whose call led here (the outermost
	// function call or eval), zero for text walked where it is written.
	site deploy.Span
}

// sink is what a run found.
type sink struct {
	cmds []Command
	errs []*diag.Diagnostic
	// budget bounds the texts (function bodies, eval strings) walked again
	// on behalf of a call, so nested calls cannot multiply without end.
	budget    int
	exhausted bool
	// copyLeft bounds the bytes that expansions copy from variables in
	// one run, and stepsLeft the expansions made and the provenance steps
	// they copy: A=$A$A on each of n lines doubles the value n times,
	// gigabytes from a few hundred bytes of script, and A1=$A0, A2=$A1,
	// ... makes each value's origin one step longer than the last, a
	// quadratic sum even while the value stays unknown. Both are counted
	// where a value grows, not in time, so the walk stops at the same
	// expansion on any machine; past either, an expansion is unknown and
	// the first one is an error at its place.
	copyLeft  int
	stepsLeft int
	copyOver  bool
}

// maxCopy is the run's copyLeft: no real script expands to more text than
// kvlint reads from one file.
const maxCopy = limits.MaxFileSize

// maxSteps is the run's stepsLeft. A real script makes a few thousand
// expansions, each with an origin of a few steps; a million lets any of
// them through, and bounds what a hostile one allocates for provenance to
// some tens of megabytes.
const maxSteps = 1 << 20

// maxFollow is the number of function bodies and eval texts one run walks.
const maxFollow = 512

// function is a function definition: its body belongs to the walker whose
// text holds it.
type function struct {
	decl *syntax.FuncDecl
	w    *walker
	// effects is what calling it may change, for a call that is not
	// followed (inside a loop's effects, recursion, an exhausted budget).
	effects effects
}

// effects is what a piece of script may do to variables: the names it may
// assign, and whether it may assign anything at all (source, eval).
type effects struct {
	names  map[string]bool
	all    bool
	params bool // shift or set -- may change the positional parameters
}

func newWalker(src Source, depth int) *walker {
	lines := src.Lines
	if lines == nil {
		lines = NewLines(src.Text)
	}
	return &walker{
		src:   src,
		text:  src.Text,
		loc:   locator{file: src.File, lines: lines, mapf: src.Map},
		depth: depth,
		out:   &sink{budget: maxFollow, copyLeft: maxCopy, stepsLeft: maxSteps},
		funcs: map[string]*function{},
	}
}

// off converts a parser position to a byte offset in the text.
func (w *walker) off(p syntax.Pos) int {
	return min(int(p.Offset()), len(w.text))
}

func (w *walker) errorf(start, end int, format string, args ...any) {
	w.out.errs = append(w.out.errs, diag.Errorf(w.loc.span(start, end), format, args...))
}

// spend takes bytes of copied text and steps (one per expansion, plus the
// provenance steps it copies) from the run's budget. When they do not fit,
// the first expansion of the run that does not fit is an error at
// text[start:end], and every later one is refused too: once a script has
// shown it grows without bound, what it expands to is not known.
func (w *walker) spend(start, end, bytes, steps int) bool {
	out := w.out
	if !out.copyOver && bytes <= out.copyLeft && steps <= out.stepsLeft {
		out.copyLeft -= bytes
		out.stepsLeft -= steps
		return true
	}
	if !out.copyOver {
		out.copyOver = true
		if bytes > out.copyLeft {
			w.errorf(start, end, "variables expand to more than %d bytes in this script; not expanded", maxCopy)
		} else {
			w.errorf(start, end, "variables are expanded more than %d times (counting each step of their origin) in this script; not expanded", maxSteps)
		}
	}
	return false
}

// run walks the text from the start, in the environment of Source.
func (w *walker) run() {
	st := newVars(w.src.Env)
	st.setParams(w.src.Params)
	w.runWith(st)
}

// runWith walks the text with the variables st, which it updates.
func (w *walker) runWith(st *vars) {
	defer func() {
		// The parser and the walk are meant never to panic; if one does,
		// the input is reported rather than crashing the run.
		if r := recover(); r != nil {
			w.errorf(w.at, w.at+1, "internal error while reading the shell text: %v", r)
		}
	}()
	parser := syntax.NewParser(syntax.Variant(syntax.LangBash))
	failed := false
	walked, delim := 0, "" // end of the statements walked; an unclosed here-document
	// The loop never breaks: StmtsSeq may yield the final error again after
	// its body returned false, which a range-over-func loop turns into a panic.
	for stmt, err := range parser.StmtsSeq(bytes.NewReader(w.text)) {
		switch {
		case failed:
		case err != nil:
			if d, ok := unclosedHeredoc(err); ok {
				delim = d
			} else {
				w.parseError(err)
			}
			failed = true
		default:
			w.stmt(stmt, st)
			walked = w.off(stmt.End())
		}
	}
	if delim != "" {
		w.heredocToEOF(st, walked, delim)
	}
}

// unclosedHeredoc is the delimiter of the here-document a parse error says
// the text ends inside.
func unclosedHeredoc(err error) (string, bool) {
	var pe syntax.ParseError
	if !errors.As(err, &pe) {
		return "", false
	}
	d, ok := strings.CutPrefix(pe.Text, "unclosed here-document `")
	if !ok || !strings.HasSuffix(d, "`") || len(d) < 2 {
		return "", false
	}
	return strings.TrimSuffix(d, "`"), true
}

// heredocToEOF walks the statements after offset walked of a text that ends
// inside a here-document. bash takes the rest of the input as its body and
// runs the command, warning "here-document at line N delimited by
// end-of-file (wanted `EOF')" (bash make_cmd.c make_here_document); the
// parser refuses it. The text is parsed again with the delimiter on a line
// of its own after the end, which gives the body bash reads, and the
// statements the first pass did not reach are walked. Positions inside the
// text are unchanged, and nothing of the added line is ever shown.
func (w *walker) heredocToEOF(st *vars, walked int, delim string) {
	text := make([]byte, 0, len(w.text)+len(delim)+2)
	text = append(append(append(append(text, w.text...), '\n'), delim...), '\n')
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(bytes.NewReader(text), "")
	if err != nil {
		w.parseError(err)
		return
	}
	for _, stmt := range f.Stmts {
		if w.off(stmt.Pos()) >= walked {
			w.stmt(stmt, st)
		}
	}
}

// templateHint explains a syntax error inside a Go template action
// ({{ ... }} on the error's line, around it): the file is a template that
// a controller or chart renders into the script that runs (KServe's
// LLMInferenceServiceConfig, an operator's pod template), and kvlint reads
// the script only as the template is written.
func templateHint(text []byte, off int) string {
	lineStart := bytes.LastIndexByte(text[:off], '\n') + 1
	lineEnd := len(text)
	if i := bytes.IndexByte(text[off:], '\n'); i >= 0 {
		lineEnd = off + i
	}
	open := bytes.LastIndex(text[lineStart:off+min(2, lineEnd-off)], []byte("{{"))
	if open < 0 || !bytes.Contains(text[lineStart+open:lineEnd], []byte("}}")) {
		return ""
	}
	return " (inside a {{ ... }} template action: this script is a template rendered before it runs, and kvlint reads it as written)"
}

func (w *walker) parseError(err error) {
	prefix := ""
	switch {
	case w.ev != nil:
		prefix = "in the string eval runs: "
	case w.depth > 0:
		prefix = "in the script of sh -c: "
	}
	var perr syntax.ParseError
	var lerr syntax.LangError
	switch {
	case errors.As(err, &perr):
		off := w.off(perr.Pos)
		w.errorf(off, off+1, "%sshell syntax error: %s%s", prefix, perr.Text, templateHint(w.text, off))
	case errors.As(err, &lerr):
		off := w.off(lerr.Pos)
		w.errorf(off, off+1, "%s%s is not supported in bash", prefix, lerr.Feature)
	default:
		w.errorf(w.at, w.at+1, "%scannot parse the shell text: %v", prefix, err)
	}
}

func (w *walker) stmts(list []*syntax.Stmt, st *vars) {
	for _, s := range list {
		w.stmt(s, st)
	}
}

func (w *walker) stmt(s *syntax.Stmt, st *vars) {
	if s == nil || s.Cmd == nil {
		return
	}
	w.at = w.off(s.Pos())
	if s.Background || s.Coprocess || s.Disown {
		// cmd & runs in a subshell: its assignments do not come back.
		w.command(s.Cmd, st.clone())
		return
	}
	w.command(s.Cmd, st)
}

func (w *walker) command(cmd syntax.Command, st *vars) {
	switch c := cmd.(type) {
	case *syntax.CallExpr:
		w.call(c, st)
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.AndStmt, syntax.OrStmt:
			// The right side may not run: what it assigns is known after
			// the list only if it agrees with what was there before.
			w.stmt(c.X, st)
			right := st.clone()
			w.stmt(c.Y, right)
			*st = *merge(st, right)
		default:
			// Every part of a pipeline runs in its own subshell (bash
			// without lastpipe).
			w.stmt(c.X, st.clone())
			w.stmt(c.Y, st.clone())
		}
	case *syntax.Subshell:
		w.stmts(c.Stmts, st.clone())
	case *syntax.Block:
		w.stmts(c.Stmts, st)
	case *syntax.IfClause:
		w.ifClause(c, st)
	case *syntax.WhileClause:
		w.loop(st, func(body *vars) {
			w.stmts(c.Cond, body)
			w.stmts(c.Do, body)
		}, c)
	case *syntax.ForClause:
		w.loop(st, func(body *vars) { w.stmts(c.Do, body) }, c)
	case *syntax.CaseClause:
		outcomes := []*vars{st}
		for _, item := range c.Items {
			branch := st.clone()
			w.stmts(item.Stmts, branch)
			outcomes = append(outcomes, branch)
		}
		*st = *merge(outcomes...)
	case *syntax.FuncDecl:
		// Defining a function runs nothing: its body is walked at each
		// call (call.go), with that call's arguments as $1, $2, ...
		if c.Name != nil {
			e := w.effects(c.Body)
			e.params = false // a function's shift and set -- act on its own arguments
			w.funcs[c.Name.Value] = &function{decl: c, w: w, effects: e}
		}
	case *syntax.DeclClause:
		w.decl(c, st)
	case *syntax.ArithmCmd, *syntax.LetClause:
		w.apply(w.effects(c), st)
	case *syntax.TimeClause:
		w.stmt(c.Stmt, st)
	case *syntax.CoprocClause:
		w.stmt(c.Stmt, st.clone())
	case *syntax.TestDecl:
		w.stmt(c.Body, st.clone())
	}
}

func (w *walker) ifClause(c *syntax.IfClause, st *vars) {
	w.stmts(c.Cond, st)
	then := st.clone()
	w.stmts(c.Then, then)
	other := st.clone()
	switch {
	case c.Else == nil:
	case c.Else.ThenPos.IsValid(): // elif
		w.ifClause(c.Else, other)
	default: // else
		w.stmts(c.Else.Then, other)
	}
	*st = *merge(then, other)
}

// loop walks a loop body once. Everything the loop assigns is unknown inside
// it (a later iteration sees what an earlier one left) and after it.
func (w *walker) loop(st *vars, body func(*vars), node syntax.Node) {
	w.apply(w.effects(node), st)
	inner := st.clone()
	body(inner)
	*st = *merge(st, inner)
}

func (w *walker) apply(e effects, st *vars) {
	if e.all {
		st.forgetAll()
	}
	if e.params {
		st.params, st.paramsKnown = nil, false
	}
	st.forget(e.names)
}

// effects collects the variables a piece of script may assign. Function
// definitions inside it are skipped: their bodies run only when called.
func (w *walker) effects(node syntax.Node) effects {
	e := effects{names: map[string]bool{}}
	syntax.Walk(node, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.FuncDecl:
			return n == node
		case *syntax.CallExpr:
			if len(n.Args) == 0 {
				for _, a := range n.Assigns {
					if a.Name != nil {
						e.names[a.Name.Value] = true
					}
				}
				return true
			}
			words := make([]string, len(n.Args))
			for i, a := range n.Args {
				words[i] = a.Lit()
			}
			w.builtinEffects(words, &e)
		case *syntax.DeclClause:
			for _, a := range n.Args {
				if a.Name != nil {
					e.names[a.Name.Value] = true
				}
			}
		case *syntax.WordIter:
			e.names[n.Name.Value] = true
		case *syntax.BinaryArithm:
			if isArithAssign(n.Op) {
				for name := range arithTarget(n.X) {
					e.names[name] = true
				}
			}
		case *syntax.UnaryArithm:
			if n.Op == syntax.Inc || n.Op == syntax.Dec {
				for name := range arithTarget(n.X) {
					e.names[name] = true
				}
			}
		case *syntax.ParamExp:
			if n.Exp != nil && (n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull) && n.Param != nil {
				e.names[n.Param.Value] = true
			}
		}
		return true
	})
	return e
}

// venvActivateNames are the variables a Python virtual environment's
// bin/activate assigns or unsets when sourced (python/cpython@01ab8f41ae40
// Lib/venv/scripts/common/activate; virtualenv's and uv's scripts assign
// the same ones): a recipe that activates one before its launch
// (source .venv/bin/activate) keeps its other variables.
var venvActivateNames = []string{"PATH", "PS1", "PYTHONHOME", "VIRTUAL_ENV", "VIRTUAL_ENV_PROMPT", "_OLD_VIRTUAL_PATH", "_OLD_VIRTUAL_PS1", "_OLD_VIRTUAL_PYTHONHOME"}

// venvActivate reports whether a sourced path names a virtual
// environment's activate script that kvlint cannot read: a literal
// .../bin/activate, sourced with no arguments. Conda's bin/activate (a
// path through a conda or mamba install, or given an environment name)
// runs the environment's activate.d scripts, which may set anything.
// Where the caller can show scripts (w.src.Scripts: a container whose
// ConfigMaps are mounted), the file may be one of them and is not
// guessed at; asking would report a missing key as an error, once per
// effects pass.
func (w *walker) venvActivate(p string) bool {
	if w.src.Scripts != nil || p == "" || path.Base(p) != "activate" || path.Base(path.Dir(p)) != "bin" {
		return false
	}
	l := strings.ToLower(p)
	return !strings.Contains(l, "conda") && !strings.Contains(l, "mamba")
}

// builtinEffects adds what a command with these (literal) words may assign.
func (w *walker) builtinEffects(words []string, e *effects) {
	if len(words) == 0 {
		return
	}
	switch words[0] {
	case "source", ".":
		if len(words) == 2 && w.venvActivate(words[1]) {
			for _, n := range venvActivateNames {
				e.names[n] = true
			}
			return
		}
		e.all = true
	case "eval":
		e.all = true
	case "shift", "set":
		e.params = true
	case "read", "mapfile", "readarray", "unset", "getopts", "printf", "export", "declare", "typeset", "local", "readonly":
		for _, a := range words[1:] {
			if isName(a) {
				e.names[a] = true
			}
		}
	default:
		if f, ok := w.funcs[words[0]]; ok {
			e.all = e.all || f.effects.all
			for name := range f.effects.names {
				e.names[name] = true
			}
		}
	}
}
