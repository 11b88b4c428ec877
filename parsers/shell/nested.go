package shell

import (
	"path"
	"strings"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/engine"
)

// shells are the programs whose -c option takes a script string.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "ash": true, "ksh": true, "mksh": true, "zsh": true}

// ScriptArg reports whether argv runs a shell on a script string — sh -c
// SCRIPT, bash -lc SCRIPT, /bin/bash -e -o pipefail -c SCRIPT, and the same
// after wrappers (exec, env A=b, nohup, docker run IMAGE, ...) — and returns
// the index of the script word. Words after the script become the script's
// $0, $1, ...
func ScriptArg(argv []deploy.Value) (int, bool) {
	for i, w := range argv {
		if !w.Known || !shells[path.Base(w.Raw)] {
			continue
		}
		withC := false
		j := i + 1
	options:
		for j < len(argv) {
			a := argv[j]
			if !a.Known {
				break
			}
			r := a.Raw
			switch {
			case r == "--" || r == "-":
				j++
				break options
			case strings.HasPrefix(r, "--"):
				// --login, --norc, --posix; --rcfile and --init-file take a file.
				if r == "--rcfile" || r == "--init-file" {
					j++
				}
			case len(r) >= 2 && (r[0] == '-' || r[0] == '+'):
				if r[0] == '-' && strings.Contains(r[1:], "c") {
					withC = true
				}
				// -o NAME and -O NAME take the option name as the next word.
				j += strings.Count(r[1:], "o") + strings.Count(r[1:], "O")
			default:
				break options
			}
			j++
		}
		if withC && j < len(argv) {
			return j, true
		}
	}
	return 0, false
}

// ScriptParams returns the positional parameters of the script at argv[i]
// (as found by ScriptArg): the words after it, starting with $0. Without
// any, $0 is the shell's own name.
func ScriptParams(argv []deploy.Value, i int) []deploy.Value {
	if i+1 < len(argv) {
		return argv[i+1:]
	}
	for k := i - 1; k >= 0; k-- {
		if argv[k].Known && shells[path.Base(argv[k].Raw)] {
			return argv[k : k+1]
		}
	}
	return nil
}

// script walks the script string of a sh -c command. The script's bytes are
// mapped back to where each was written: exact for literal text and quote
// removal (escapes in double quotes, $'...' escapes land on their backslash);
// bytes a $variable produced land on the expansion's own text.
func (w *walker) script(words []deploy.Value, ats [][]int, i int, st *vars) {
	env := Env{}
	for name, v := range w.childVars(words, ats, i, st) {
		env[name] = v.val
	}
	w.walkScript(words[i], ats[i], env, ScriptParams(words, i), w.container)
}

// childVars are the variables a program started by this command sees in
// its environment: the exported ones, and A=b before the program word at
// words[i] (as a prefix assignment or through env). Variables that are not
// exported are left out: in the child they are whatever the original
// environment held, which is unknown.
func (w *walker) childVars(words []deploy.Value, ats [][]int, i int, st *vars) map[string]variable {
	out := map[string]variable{}
	for name, v := range st.m {
		// bash does not export arrays.
		if v.exported && !v.unset && !v.isArray {
			out[name] = v
		}
	}
	for k := 0; k < i; k++ {
		name, val, ok := strings.Cut(words[k].Raw, "=")
		if !ok || !isName(name) {
			continue
		}
		v := deploy.Value{Raw: val, Known: words[k].Known, Span: words[k].Span, Origin: words[k].Origin}
		if at := ats[k]; len(val) > 0 && len(at) == len(words[k].Raw) {
			v.Span = w.loc.span(at[len(name)+1], at[len(at)-1]+1)
		}
		out[name] = variable{val: v, defined: deploy.StepAssignment}
	}
	return out
}

// containerScript walks the script of a container that runs sh -c SCRIPT
// (docker run IMAGE bash -c '...', or --entrypoint bash IMAGE -c '...').
// The script sees the container's environment: the -e options, each value
// with an env origin step at the option. Variables the image's ENV or an
// --env-file may set stay unknown. A script that comes from the image's
// CMD has no text in this file and is not walked.
func (w *walker) containerScript(words []deploy.Value, ats [][]int, ct *Container, st *vars) {
	argv := ct.Command.Argv
	i, ok := ScriptArg(argv)
	first := len(argv) - len(ct.Run.Cmd) // the words after the image end the argv
	if !ok || len(ct.Run.Cmd) == 0 || i < first {
		return
	}
	env := w.containerEnv(words, ats, ct.Run, st)
	if !argv[i].Known {
		// This shell expanded the script string before docker saw it, and
		// some expansion is unknown: its text ("$MODEL") is still in the
		// script, where the container's -e MODEL would wrongly fill it.
		for name, v := range env {
			env[name] = deploy.Value{Raw: v.Raw, Span: v.Span, Origin: v.Origin}
		}
	}
	w.walkScript(argv[i], ats[ct.Run.CmdAt+i-first], env, ScriptParams(argv, i), ct)
}

// containerEnv is the environment the -e options of a container run give
// its command. -e NAME copies NAME from the CLI's own environment
// (docker/cli@28f756087eea opts/env.go ValidateEnv); when that is not known
// the variable is unknown. An option whose name is a placeholder may set
// any variable, so the ones set before it become unknown.
func (w *walker) containerEnv(words []deploy.Value, ats [][]int, run engine.ContainerRun, st *vars) Env {
	cli := 0
	for k := range words {
		if words[k].Span == run.CLI.Span && words[k].Raw == run.CLI.Raw {
			cli = k
			break
		}
	}
	var host map[string]variable
	env := Env{}
	for _, e := range run.Env {
		switch {
		case e.Name == "":
			for name, v := range env {
				env[name] = deploy.Value{Raw: v.Raw, Span: v.Span, Origin: v.Origin}
			}
		case e.Inherit:
			if host == nil {
				host = w.childVars(words, ats, cli, st)
			}
			v := deploy.Value{Raw: "$" + e.Name, Span: e.Word.Span, Origin: e.Word.Origin}
			if h, ok := host[e.Name]; ok {
				v = deploy.Value{Raw: h.val.Raw, Known: h.val.Known, Span: e.Word.Span, Origin: originOf(h)}
			}
			env[e.Name] = v
		default:
			env[e.Name] = e.Value
		}
	}
	return env
}

// walkScript walks the text of a script word in a shell of its own.
func (w *walker) walkScript(word deploy.Value, at []int, env Env, params []deploy.Value, ct *Container) {
	if w.depth >= maxDepth {
		w.out.errs = append(w.out.errs, diag.Errorf(word.Span, "sh -c nested more than %d deep: not analysed", maxDepth))
		return
	}
	text := []byte(word.Raw)
	textLines := NewLines(text)
	inner := Source{
		File: w.src.File,
		Text: text,
		// Each byte of the script maps to where the outer text placed it,
		// and on through however the outer text maps (eval included).
		Map: func(line, col int) (int, int) {
			if len(at) == 0 {
				return 1, 1
			}
			off, extra := textLines.Offset(line, col), 0
			if off >= len(at) {
				off, extra = len(at)-1, 1
			}
			l, c := w.loc.pos(at[off])
			return l, c + extra
		},
		Env:     env,
		Params:  params,
		Scripts: w.src.Scripts,
		Images:  w.src.Images,
	}
	child := newWalker(inner, w.depth+1)
	child.out, child.site = w.out, w.site
	child.container = ct
	child.run()
}

// ScriptFile reports whether argv runs a script file by its path — bash
// start.sh, sh -e /scripts/run.sh, source env.sh, . ./env.sh, exec
// /scripts/start.sh, ./start.sh — and returns the index of the path word.
// The words after it are the script's $1, $2, ...; the path is its $0. A
// program run by its path counts only when the path names a shell script
// (ends in .sh or .bash): any other path is a program kvlint cannot see.
// sh -c SCRIPT is ScriptArg's, not this.
func ScriptFile(argv []deploy.Value) (int, bool) {
	i := 0
	for i < len(argv) && argv[i].Known && (argv[i].Raw == "exec" || argv[i].Raw == "nohup") {
		i++
	}
	if i >= len(argv) || !argv[i].Known {
		return 0, false
	}
	w := argv[i].Raw
	switch {
	case w == "source" || w == ".":
		if i+1 < len(argv) && argv[i+1].Known {
			return i + 1, true
		}
		return 0, false
	case shells[path.Base(w)]:
		if _, ok := ScriptArg(argv[i:]); ok {
			return 0, false
		}
		for j := i + 1; j < len(argv); j++ {
			a := argv[j]
			if !a.Known {
				return 0, false
			}
			r := a.Raw
			switch {
			case r == "--" || r == "-":
				if r == "-" || j+1 >= len(argv) || !argv[j+1].Known {
					return 0, false // - reads the script from stdin
				}
				return j + 1, true
			case r == "--rcfile" || r == "--init-file":
				j++
			case strings.HasPrefix(r, "--"):
			case len(r) >= 2 && (r[0] == '-' || r[0] == '+'):
				if strings.Contains(r[1:], "s") {
					return 0, false // -s reads commands from stdin
				}
				j += strings.Count(r[1:], "o") + strings.Count(r[1:], "O")
			default:
				return j, true
			}
		}
		return 0, false
	case strings.Contains(w, "/") && (strings.HasSuffix(w, ".sh") || strings.HasSuffix(w, ".bash")):
		return i, true
	}
	return 0, false
}

// scriptFile walks the script file words[i] names, when Source.Scripts
// gives its text. It runs in a shell of its own (or, for source, in this
// one, whose variables the builtin already made unknown): its environment
// is what this shell exported, its $0 the path and $1... the words after.
func (w *walker) scriptFile(words []deploy.Value, i int, st *vars) {
	inner, ok := w.src.Scripts(words[i])
	if !ok {
		return
	}
	if w.depth >= maxDepth {
		w.out.errs = append(w.out.errs, diag.Errorf(words[i].Span, "scripts nested more than %d deep: not analysed", maxDepth))
		return
	}
	env := st.exportedEnv()
	for k, v := range inner.Env {
		if _, set := env[k]; !set {
			env[k] = v
		}
	}
	inner.Env = env
	inner.Params = words[i:]
	if inner.Scripts == nil {
		inner.Scripts = w.src.Scripts
	}
	if inner.Images == nil {
		inner.Images = w.src.Images
	}
	child := newWalker(inner, w.depth+1)
	child.out, child.site = w.out, w.site
	child.container = w.container
	child.run()
}
