package shell

import (
	"bytes"
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
func slurmGPUs(f *source.File, lines *source.Index) (gpu, count deploy.Value) {
	args := sbatchArgs(f.Data)
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
		v := &sbatchArg{text: val, off: a.off[len(a.text)-len(val):]}
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
	span := func(a *sbatchArg, s, e int) deploy.Span {
		return lines.Span(f.Name, a.off[s], a.off[e-1]+1)
	}
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

// sbatchArg is one option word of the directives, with the file offset of
// each of its bytes.
type sbatchArg struct {
	text string
	off  []int
}

// sbatchArgs splits the #SBATCH directives of a script into words, as
// get_argument does.
func sbatchArgs(data []byte) []sbatchArg {
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
			var a sbatchArg
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
					a.text += string(line[i])
					a.off = append(a.off, start+i)
				default:
					a.text += string(c)
					a.off = append(a.off, start+i)
				}
				i++
			}
			if a.text == "hetjob" || a.text == "packjob" {
				return args
			}
			if len(a.off) > 0 {
				args = append(args, a)
			}
		}
	}
	return args
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' }
