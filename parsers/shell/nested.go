package shell

import (
	"path"
	"strings"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
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
	if w.depth >= maxDepth {
		w.errs = append(w.errs, diag.Errorf(words[i].Span, "sh -c nested more than %d deep: not analysed", maxDepth))
		return
	}
	env := st.exportedEnv()
	// A=b before the shell (as a prefix assignment or through env) is in
	// the child's environment.
	for k := 0; k < i; k++ {
		name, val, ok := strings.Cut(words[k].Raw, "=")
		if !ok || !isName(name) {
			continue
		}
		v := deploy.Value{Raw: val, Known: words[k].Known, Span: words[k].Span, Origin: words[k].Origin}
		if at := ats[k]; len(val) > 0 && len(at) == len(words[k].Raw) {
			v.Span = w.loc.span(at[len(name)+1], at[len(at)-1]+1)
		}
		env[name] = v
	}
	text := []byte(words[i].Raw)
	params := ScriptParams(words, i)
	inner := Source{
		File:    w.src.File,
		Text:    text,
		Map:     ByteMapper(NewLines(text), ats[i], w.loc.lines, w.loc.mapf),
		Env:     env,
		Params:  params,
		Scripts: w.src.Scripts,
	}
	child := newWalker(inner, w.depth+1)
	child.run()
	w.cmds = append(w.cmds, child.cmds...)
	w.errs = append(w.errs, child.errs...)
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
		w.errs = append(w.errs, diag.Errorf(words[i].Span, "scripts nested more than %d deep: not analysed", maxDepth))
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
	child := newWalker(inner, w.depth+1)
	child.run()
	w.cmds = append(w.cmds, child.cmds...)
	w.errs = append(w.errs, child.errs...)
}
