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
		w.out.errs = append(w.out.errs, diag.Errorf(words[i].Span, "sh -c nested more than %d deep: not analysed", maxDepth))
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
	at := ats[i]
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
		Env:    env,
		Params: params,
	}
	child := newWalker(inner, w.depth+1)
	child.out, child.site = w.out, w.site
	child.run()
}
