package shell

import (
	"bytes"
	"path"
	"strings"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/source"
)

// slurmGPUs reads the GPUs a Slurm batch script asks for in its #SBATCH
// directives: the GPU type and the GPUs per node, each a Value spanning its
// text in the directive. Either is unset when the script does not say.
//
// How sbatch reads directives (SchedMD/slurm@284c3b95f08a2dc2478499837b03355e1b9c5c75
// src/sbatch/opt.c _opt_batch_script, get_argument): a line that begins
// with "#SBATCH" at its first byte holds options, split at white space
// (quotes group, an unescaped # starts a comment); other comment and blank
// lines are skipped; the first line with anything else ends the directives.
// A "hetjob" separator starts another component, which kvlint leaves alone.
//
// The options (same commit, doc/man/man1/sbatch.1):
//   - --gres=<list>, entries "name[[:type]:count]", count 1 by default,
//     allocated on each node;
//   - --gpus-per-node=[type:]<number>;
//   - -G, --gpus=[type:]<number>, the job's total: the count per node is
//     known only with -N/--nodes 1, since without -N sbatch allocates
//     "enough nodes to satisfy the requested resources".
func slurmGPUs(args []sbatchArg) (gpu, count deploy.Value) {
	var perNode, gres, total *sbatchArg
	nodes := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(a.text, "=")
		switch {
		case hasVal:
		case name == "--gres" || name == "--gpus-per-node" || name == "--gpus" || name == "-G" || name == "--nodes" || name == "-N":
			// getopt_long: the value may be the next word.
			if i+1 < len(args) {
				i++
				a, val, hasVal = args[i], args[i].text, true
			}
		case len(name) > 2 && (name[:2] == "-G" || name[:2] == "-N"):
			// -G8, -N1: the value joined to the short option.
			val, hasVal, name = name[2:], true, name[:2]
		}
		if !hasVal || val == "" {
			continue
		}
		// val is always the tail of a's text.
		v := a.tail(len(a.text) - len(val))
		switch name {
		case "--gpus-per-node":
			perNode = v
		case "--gres":
			gres = v
		case "--gpus", "-G":
			total = v
		case "--nodes", "-N":
			nodes = val
		}
	}
	span := func(a *sbatchArg, s, e int) deploy.Span { return a.span(s, e) }
	pick := func(a *sbatchArg, s, e int) deploy.Value {
		if e <= s {
			return deploy.Value{Span: span(a, 0, len(a.text))}
		}
		return deploy.Value{Raw: a.text[s:e], Known: true, Span: span(a, s, e)}
	}
	typeAndCount := func(a *sbatchArg, s, e int) {
		// [type:]number
		entry := a.text[s:e]
		if c := strings.LastIndexByte(entry, ':'); c >= 0 {
			gpu = pick(a, s, s+c)
			s += c + 1
		}
		count = pick(a, s, e)
		count.Known = isDigits(count.Raw)
	}
	switch {
	case perNode != nil:
		if strings.Contains(perNode.text, ",") {
			// Several GPU types per node: one server's type is not known.
			gpu = deploy.Value{Raw: perNode.text, Span: span(perNode, 0, len(perNode.text))}
			return gpu, deploy.Value{}
		}
		typeAndCount(perNode, 0, len(perNode.text))
	case gres != nil:
		s := 0
		for _, entry := range strings.Split(gres.text, ",") {
			e := s + len(entry)
			parts := strings.Split(entry, ":")
			if parts[0] == "gpu" {
				switch len(parts) {
				case 1:
					// "gpu" alone: the count defaults to 1.
					count = deploy.Value{Raw: "1", Known: true, Span: span(gres, s, e)}
				case 2:
					if isDigits(parts[1]) {
						count = pick(gres, s+4, e)
					} else {
						gpu = pick(gres, s+4, e)
						count = deploy.Value{Raw: "1", Known: true, Span: span(gres, s, e)}
					}
				default:
					typeAndCount(gres, s+4, e)
				}
			}
			s = e + 1
		}
	case total != nil:
		typeAndCount(total, 0, len(total.text))
		if nodes != "1" && count.IsSet() {
			count.Known = false
		}
	}
	return gpu, count
}

// sbatchArg is one option word (of the directives, or of an srun command
// line) and how to span a part of it.
type sbatchArg struct {
	text string
	span func(s, e int) deploy.Span // the bytes text[s:e]
}

// tail is the word from byte k on.
func (a sbatchArg) tail(k int) *sbatchArg {
	return &sbatchArg{text: a.text[k:], span: func(s, e int) deploy.Span { return a.span(s+k, e+k) }}
}

// fileArg is a directive word whose i-th byte is at file offset off[i].
func fileArg(name string, lines *source.Index, text string, off []int) sbatchArg {
	return sbatchArg{text: text, span: func(s, e int) deploy.Span {
		return lines.Span(name, off[s], off[e-1]+1)
	}}
}

// wordArg is a word of a command line: a part of it spans that part when
// the word is written as it reads (one line, no quotes), else the word.
func wordArg(v deploy.Value) sbatchArg {
	return sbatchArg{text: v.Raw, span: func(s, e int) deploy.Span {
		sp := v.Span
		if sp.Line == sp.EndLine && sp.EndCol-sp.Col == len(v.Raw) {
			sp.Col, sp.EndCol = sp.Col+s, sp.Col+e
		}
		return sp
	}}
}

// srunGPUs reads the GPU options of an srun in front of a launch: the
// words of argv after srun up to the launch's command word. A step's own
// request is what its processes get.
func srunGPUs(argv []deploy.Value, command deploy.Span) (gpu, count deploy.Value) {
	for i, w := range argv {
		if w.Span == command {
			return
		}
		if !w.Known || path.Base(w.Raw) != "srun" {
			continue
		}
		var args []sbatchArg
		for _, a := range argv[i+1:] {
			if a.Span == command || !a.Known {
				break
			}
			args = append(args, wordArg(a))
		}
		return slurmGPUs(args)
	}
	return
}

// sbatchArgs splits the #SBATCH directives of a script into words, as
// get_argument does.
func sbatchArgs(f *source.File, lines *source.Index) []sbatchArg {
	data := f.Data
	var args []sbatchArg
	off := 0
	for off < len(data) {
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += off
		}
		line := data[off:end]
		start := off
		off = end + 1
		if !bytes.HasPrefix(line, []byte("#SBATCH")) {
			t := bytes.TrimLeft(line, " \t\r\f\v")
			if len(t) == 0 || t[0] == '#' {
				continue
			}
			break // the first command ends the directives
		}
		i := len("#SBATCH")
		if i < len(line) && line[i] != ' ' && line[i] != '\t' {
			continue // #SBATCHX is not a directive word kvlint reads
		}
		for i < len(line) {
			for i < len(line) && isSpace(line[i]) {
				i++
			}
			if i >= len(line) || line[i] == '#' {
				break
			}
			var text []byte
			var off []int
			var q byte
			for i < len(line) && (q != 0 || !isSpace(line[i])) {
				c := line[i]
				switch {
				case q != 0 && c == q:
					q = 0
				case q == 0 && (c == '"' || c == '\''):
					q = c
				case q == 0 && c == '#':
					i = len(line) // an unescaped # starts a comment
					continue
				case c == '\\' && i+1 < len(line):
					i++
					text = append(text, line[i])
					off = append(off, start+i)
				default:
					text = append(text, c)
					off = append(off, start+i)
				}
				i++
			}
			if string(text) == "hetjob" || string(text) == "packjob" {
				return args
			}
			if len(off) > 0 {
				args = append(args, fileArg(f.Name, lines, string(text), off))
			}
		}
	}
	return args
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' }
