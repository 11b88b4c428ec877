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
//     to themselves. A function's body is walked where it is defined, with
//     unknown arguments; calling it makes what it assigns unknown. source,
//     . and eval make every variable unknown. read, mapfile, getopts,
//     printf -v, arithmetic assignments and declare -i/-a/-n make theirs
//     unknown.
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
}

// Container is a container run a command starts or runs inside.
type Container struct {
	Run engine.ContainerRun
	// Command is what the container runs (Argv, the image's row).
	Command engine.ContainerCommand
}

// Commands returns every simple command of the text in source order,
// including those inside &&/||/; lists, pipelines, subshells, if/case/loop
// bodies, function bodies (where the function is defined, not where it is
// called), backgrounded commands and the scripts of nested sh -c strings
// (right after the sh -c command itself). Commands inside command
// substitutions $(...) are not listed.
func Commands(src Source) ([]Command, []*diag.Diagnostic) {
	w := newWalker(src, 0)
	w.run()
	return w.cmds, w.errs
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
		s.Name = fmt.Sprintf("%s:%d", src.File, c.Span.Line)
		s.Source = deploy.SourceShell
		if ct := c.Container; ct != nil && !ct.Run.Compose {
			// compose run names a service, whose image is in the compose
			// file, not on the command line.
			s.Image = ct.Run.Image
			s.GPUCount = ct.Run.GPUCount()
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
// with the run's image table (nil: the built-in rows).
func ParseFile(f *source.File, read engine.ReadFile, images *engine.ImageTable) ([]*deploy.Server, []*diag.Diagnostic) {
	return Servers(Source{File: f.Name, Text: f.Data, Lines: f.Index(source.LF), Images: images}, read)
}
