// Package shell finds engine launches in shell scripts and in the shell
// strings other formats embed (sh -c "...", a compose string command, a
// Dockerfile's shell-form CMD).
//
// It parses bash with mvdan.cc/sh/v3/syntax and walks the tree itself: nothing
// is executed and the real process environment is never read. Words are
// expanded with what the text itself makes certain (earlier assignments, the
// Env the caller passes in); anything else leaves the word Known=false with
// the text as written, never a guess.
//
// What the walk knows, and where it stops:
//   - Assignments (A=b, export, declare, local, readonly, A+=b) take effect in
//     order. A variable neither assigned nor in Env is unknown: the
//     environment may set it, so ${V:-default} is unknown too unless V is
//     known (set, empty, or unset by `unset V`).
//   - A branch (if/elif/else, case, the right side of && and ||) keeps a
//     variable known afterwards only when every way through agrees on its
//     value. Loops make everything they assign unknown, inside and after.
//     Subshells, pipelines and backgrounded commands keep their assignments
//     to themselves. source and . make every variable unknown. read,
//     mapfile, getopts, printf -v, arithmetic assignments and declare
//     -i/-A/-n make theirs unknown.
//   - Functions: defining one runs nothing; each call walks its body with
//     the call's words as $1, $2, ... (a launch inside is one server per
//     call, named after the call's line). Locals are restored on return; a
//     recursive call is not followed (what the body assigns becomes
//     unknown), and one run follows at most maxFollow calls and evals.
//   - eval with known arguments runs their space-joined text in this shell;
//     each byte keeps where it was written (in the eval string, or in the
//     assignment of a variable the string expanded), so a word written in
//     one piece spans that text and any other spans the eval words, with
//     the assignment in its Origin. eval of anything unknown makes every
//     variable unknown and launches nothing.
//   - Indexed arrays: A=(...), A+=(...), A[i]=v, declare -a; "${A[@]}"
//     is one word per element, each with its span in the literal; ${A[i]},
//     ${A[*]}, ${#A[@]}, $A (element 0). Sparse arrays are unknown.
//   - Unknown parts ($(...), $((...)) with unknown operands, $1 without
//     Params, ${V#pat} and other operators) stay in Raw as written, quotes
//     removed from the known parts: Raw of "--port=$P" with P unknown is
//     --port=$P. An unquoted unknown expansion may be several words; it is
//     returned as one unknown word. Unquoted known values are split into
//     fields at the default IFS (any assignment to IFS stops that); words
//     with glob patterns or brace expansion are unknown, since the file
//     system or the expansion decides them.
//   - sh -c SCRIPT (bash, dash, ... with -c among their options, after any
//     command such as exec or env) is parsed as a script of its own; its
//     environment is what was exported, plus A=b words before the shell.
//     Spans inside it are exact for literal text; an escaped byte of a
//     double-quoted string maps to the escaped character, not its
//     backslash, and bytes a $variable produced map onto the expansion.
//   - A container run (docker/podman/nerdctl run, docker compose run; see
//     engine.DetectContainerRun) launches what its container runs: the
//     command after the image, or the image's entrypoint (Source.Images)
//     with the arguments after it. A sh -c script the container runs sees
//     only the -e options, not this shell's variables.
//   - A Slurm batch script's #SBATCH GPU request (ParseFile) gives its
//     servers their GPU type and count per node; the same options on the
//     srun in front of a launch are the step's own and win.
//   - A file run by name (bash start.sh, source env.sh, ./start.sh) is read
//     only through Source.Scripts, which the format supplies when it holds
//     the file's text (a ConfigMap mounted in the container).
//   - Not read: heredoc bodies (bash <<EOF), commands inside $(...), aliases.
package shell

import (
	"fmt"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/engine"
	"github.com/kvlint/kvlint/source"
)

// Env holds the variables visible before the text runs, as the environment
// the shell starts with (a pod's env, a Dockerfile's ENV). A value with
// Known=false is set to something kvlint cannot see. A variable absent from
// Env and not assigned by the text is unknown too: the real environment may
// set it.
type Env map[string]deploy.Value

// Mapper maps a 1-based line and byte column in Source.Text to the position
// in the user's file where that byte was written. nil is the identity.
type Mapper func(line, col int) (int, int)

// Source is one shell text to analyse.
type Source struct {
	File string // the user's file, as it appears in spans
	Text []byte
	// Lines is Text's line index when the caller holds one (the run's
	// file set does); nil builds one.
	Lines *source.Index
	Map   Mapper
	Env   Env
	// Params are the positional parameters when they are known: Params[0]
	// is $0, then $1, $2, ... (the words after sh -c SCRIPT). nil means
	// unknown, as for a script file run with arguments kvlint cannot see.
	// A word that is exactly "$@" or $N expands to the parameter values
	// themselves, spans included, so a flag given after the script points
	// where it was written.
	Params []deploy.Value
	// Scripts gives the text of a script file a command runs by its path
	// (ScriptFile: bash /scripts/start.sh, source env.sh) when the caller
	// can see it, such as a ConfigMap key mounted at that path; the script
	// is walked as a child with the exported environment (plus the
	// variables the returned Source's Env sets that this shell does not)
	// and the words after the path as its parameters. nil, or ok false,
	// leaves the file unread. Nested scripts inherit it.
	Scripts func(file deploy.Value) (Source, bool)
	// Images is the image table a container run (docker run IMAGE ...)
	// takes an image's entrypoint from when only arguments follow the
	// image; nil has only the built-in rows.
	Images *engine.ImageTable
}

// Command is one simple command with its words expanded. Assignments that
// prefix it (A=b cmd) come first as words "A=b"; redirections are left out.
type Command struct {
	Words []deploy.Value
	Span  deploy.Span // from the first word to the end of the last
	// Argv is what the command runs, the words a launch is detected in:
	// Words, except for a container run (docker run IMAGE ...), where it is
	// the argv the container runs (engine.ContainerRun.Command), nil when
	// that is not known.
	Argv []deploy.Value
	// Container is set on a container run and on every command of a
	// sh -c script the container runs: the run they belong to.
	Container *Container
	// Call is the command in the file that ran this one when it ran from a
	// function body or an eval string: the outermost such call. Zero for
	// a command run where it is written.
	Call deploy.Span
}

// Container is a container run a command starts or runs inside.
type Container struct {
	Run engine.ContainerRun
	// Command is what the container runs (Argv, the image's row).
	Command engine.ContainerCommand
}

// Commands returns every simple command of the text in the order it runs,
// including those inside &&/||/; lists, pipelines, subshells, if/case/loop
// bodies, function bodies (at each call, not where the function is
// defined), eval strings, backgrounded commands and the scripts of nested
// sh -c strings (right after the command that runs them). Commands inside
// command substitutions $(...) are not listed.
func Commands(src Source) ([]Command, []*diag.Diagnostic) {
	w := newWalker(src, 0)
	w.run()
	return w.out.cmds, w.out.errs
}

// Servers returns the engine launches among Commands(src), each detected in
// the command's Argv. Each server is named "file:line" after the line its
// command starts on. A server started by a container run (docker run, or a
// sh -c script it runs) has the run's image word as Image and its --gpus
// as GPUCount (engine.ContainerRun.GPUCount).
func Servers(src Source, read engine.ReadFile) ([]*deploy.Server, []*diag.Diagnostic) {
	cmds, errs := Commands(src)
	var servers []*deploy.Server
	for _, c := range cmds {
		s, serr, ok := engine.Server(c.Argv, read)
		errs = append(errs, serr...)
		if !ok || s == nil {
			continue
		}
		// A launch in a function body is one server per call, named
		// after the line of the call.
		line := c.Span.Line
		if !c.Call.IsZero() {
			line = c.Call.Line
		}
		s.Name = fmt.Sprintf("%s:%d", src.File, line)
		s.Source = deploy.SourceShell
		if ct := c.Container; ct != nil && !ct.Run.Compose {
			// compose run names a service, whose image is in the compose
			// file, not on the command line.
			s.Image = ct.Run.Image
			s.GPUCount = ct.Run.GPUCount()
			if ct.Command.Entrypoint != nil && s.Span == ct.Run.Image.Span {
				// The image's entrypoint is this launch's program (a
				// server of the container's sh -c script is not).
				s.Entrypoint = ct.Command.Entrypoint
			}
		}
		if gpu, count := srunGPUs(c.Words, s.Span); gpu.IsSet() || count.IsSet() {
			s.GPU, s.GPUCount = gpu, count
		}
		servers = append(servers, s)
	}
	return servers, errs
}

// Parse analyses a shell script file with the built-in image table.
func Parse(name string, data []byte, read engine.ReadFile) ([]*deploy.Server, []*diag.Diagnostic) {
	return ParseFile(source.NewFile(name, data, source.SyntaxShell), read, nil)
}

// ParseFile is Parse for a file of the run's set, whose line index it uses,
// with the run's image table (nil: the built-in rows). A Slurm batch
// script's #SBATCH GPU request gives its servers their GPU type and count
// per node, unless a server already has them.
func ParseFile(f *source.File, read engine.ReadFile, images *engine.ImageTable) ([]*deploy.Server, []*diag.Diagnostic) {
	lines := f.Index(source.LF)
	servers, errs := Servers(Source{File: f.Name, Text: f.Data, Lines: lines, Images: images}, read)
	if len(servers) == 0 {
		return servers, errs
	}
	gpu, count := slurmGPUs(sbatchArgs(f, lines))
	for _, s := range servers {
		if gpu.IsSet() && !s.GPU.IsSet() {
			s.GPU = gpu
		}
		if count.IsSet() && !s.GPUCount.IsSet() {
			s.GPUCount = count
		}
	}
	return servers, errs
}
