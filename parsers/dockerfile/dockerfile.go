// Package dockerfile finds the engine launch an image runs: the ENTRYPOINT
// and CMD of a Dockerfile's final stage, combined as Docker combines them,
// with ENV values known to the shell that runs a shell-form command.
//
// The parser follows BuildKit's Dockerfile frontend (moby/buildkit,
// frontend/dockerfile/parser and instructions): case-insensitive
// instructions, the escape directive, line continuations, comments, and the
// exec/shell form rule. Heredoc bodies (RUN <<EOF) are skipped, not read: no
// launch an image runs is written in one.
package dockerfile

import (
	"fmt"
	"strings"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/engine"
	"github.com/kvlint/kvlint/parsers/shell"
	"github.com/kvlint/kvlint/source"
)

// arg is one word of an argv: its value, and the file offset of each byte
// (nil for words Docker adds, like the /bin/sh -c of a shell form).
type arg struct {
	deploy.Value
	at []int
}

// command is a CMD or ENTRYPOINT as Docker stores it in the image config.
type command struct {
	argv []arg
}

// stage is one FROM ... section.
type stage struct {
	name  string
	image deploy.Value // the FROM image, substituted; for FROM <stage>, that stage's
	// refs are the FROM <stage> lines that led from image to this stage,
	// the last one last: image's Origin goes on through them (imageValue).
	refs *refs
	// env is ENV, inherited from a stage it builds on: shared with that
	// stage, never copied whole (envMap).
	env   *envMap
	args  vars  // ARG declared in this stage
	shell []arg // SHELL, inherited
	cmd   *command
	entry *command
	// cmdSet: CMD was given in this stage. Otherwise ENTRYPOINT clears the
	// CMD inherited from the base (BuildKit dispatchEntrypoint).
	cmdSet bool
	// entrySet: ENTRYPOINT was given in this stage or a stage it builds
	// on (ENTRYPOINT [] sets it empty), replacing the base image's.
	entrySet bool
}

// parser holds the state of one Dockerfile.
type parser struct {
	name   string
	data   []byte
	lines  *source.Index
	escape byte
	images *engine.ImageTable
	empty  bool // no instruction at all: nothing built, nothing to report
	meta   vars // ARGs before the first FROM, visible to FROM lines
	stages []*stage
	byName map[string]*stage
	errs   []*diag.Diagnostic
	budget int // what substitution may still copy (expansionBudget)
	// foreign is set when a syntax directive names a frontend that is not
	// a Dockerfile frontend: the file is in that frontend's format.
	foreign bool
}

// Parse returns the servers the image built by the Dockerfile runs.
//
// Every stage is parsed, though only the final stage's command runs: an
// error anywhere fails the build, and the final stage inherits ENV, SHELL,
// ENTRYPOINT and CMD from an earlier stage it is built FROM. The final stage
// is the last one, the image `docker build` makes without --target.
func Parse(name string, data []byte, read engine.ReadFile) (servers []*deploy.Server, errs []*diag.Diagnostic) {
	return ParseFile(source.NewFile(name, data, source.SyntaxDockerfile), read)
}

// ParseFile is Parse for a file of the run's set, whose line index it uses.
func ParseFile(f *source.File, read engine.ReadFile) (servers []*deploy.Server, errs []*diag.Diagnostic) {
	return ParseFileWith(f, read, nil)
}

// ParseFileWith is ParseFile with an image table, which gives the FROM
// image's ENTRYPOINT to a final stage that sets only CMD (nil has only
// the built-in rows).
func ParseFileWith(f *source.File, read engine.ReadFile, images *engine.ImageTable) (servers []*deploy.Server, errs []*diag.Diagnostic) {
	name := f.Name
	p, final := analyseLines(name, f.Data, f.Index(source.LF))
	p.images = images
	defer func() {
		// Meant never to happen; a bug here must not crash the run.
		if r := recover(); r != nil {
			servers, errs = nil, append(p.errs, &diag.Diagnostic{Span: deploy.Span{File: name}, Message: fmt.Sprintf("internal error while reading the Dockerfile: %v", r)})
		}
	}()
	if final == nil {
		return nil, p.errs
	}
	servers = p.servers(final, read)
	return servers, p.errs
}

// analyseLines parses every instruction of data, whose line index is lines,
// and returns the final stage.
func analyseLines(name string, data []byte, lines *source.Index) (p *parser, final *stage) {
	p = &parser{name: name, data: data, lines: lines, escape: '\\', meta: vars{}, byName: map[string]*stage{}}
	p.budget = expansionBudget
	defer func() {
		if r := recover(); r != nil {
			p.errs = append(p.errs, &diag.Diagnostic{Span: deploy.Span{File: name}, Message: fmt.Sprintf("internal error while reading the Dockerfile: %v", r)})
			final = nil
		}
	}()
	p.parse()
	return p, p.final()
}

func (p *parser) parse() {
	lines := splitLines(p.data, p.lines)
	p.directives(lines)
	if p.foreign {
		// Its frontend reads its own format (BuildKit "use alternative
		// build definitions", docs.docker.com/build/buildkit/frontend/):
		// not a Dockerfile kvlint can read, nor a broken one. A server it
		// would build is noted by the engine scan (KV501), like any file
		// that names an engine where kvlint finds no launch.
		p.empty = true
		return
	}
	logical, lerrs := logicalLines(lines, p.escape, func(l logical, after []physical) (int, error) {
		docs := heredocs(splitInstruction(l, p.escape), p.escape)
		if len(docs) == 0 {
			return 0, nil
		}
		n, ok := skipHeredocs(docs, after)
		if !ok {
			return n, fmt.Errorf("unterminated heredoc %s", docs[len(docs)-1].name)
		}
		return n, nil
	})
	for _, e := range lerrs {
		p.errorf(e.line.text.trimSpace(), "%v", e.err)
	}
	if len(logical) == 0 {
		// An empty Dockerfile (a placeholder kept in a repository) builds
		// nothing and launches nothing: there is nothing to check, and no
		// place in it to point an error at.
		p.empty = true
		return
	}
	for _, l := range logical {
		p.instruction(splitInstruction(l, p.escape))
	}
}

func (p *parser) directives(lines []physical) {
	seen := map[string]bool{}
	for _, d := range directives(lines) {
		t := d.line.text.trimSpace()
		if seen[d.name] {
			p.errorf(t, "only one %s parser directive can be used", d.name)
			continue
		}
		seen[d.name] = true
		if d.name == "syntax" && !dockerfileFrontend(d.value) {
			p.foreign = true
		}
		if d.name == "escape" {
			if d.value != "\\" && d.value != "`" {
				p.errorf(t, "invalid escape token '%s' does not match ` or \\", d.value)
				continue
			}
			p.escape = d.value[0]
		}
	}
}

// dockerfileFrontend reports whether a syntax directive's image reference
// names a Dockerfile frontend: Docker's docker/dockerfile and
// docker/dockerfile-upstream, from any registry or mirror, at any tag or
// digest ("# syntax=docker.io/docker/dockerfile:1",
// docs.docker.com/build/buildkit/frontend/). Any other image is a custom
// frontend with a format of its own (Dalec's YAML, for one).
func dockerfileFrontend(ref string) bool {
	ref = strings.TrimSpace(ref)
	if i := strings.IndexByte(ref, '@'); i >= 0 {
		ref = ref[:i]
	}
	last := ref[strings.LastIndexByte(ref, '/')+1:]
	if i := strings.IndexByte(last, ':'); i >= 0 {
		last = last[:i]
	}
	return last == "dockerfile" || last == "dockerfile-upstream"
}

// span covers the bytes of t in the file.
func (p *parser) span(t text) deploy.Span {
	if len(t.at) == 0 {
		return deploy.Span{File: p.name}
	}
	return p.spanOf(t.at[0], t.at[len(t.at)-1]+1)
}

func (p *parser) spanOf(start, end int) deploy.Span {
	l, c := p.lines.Pos(start)
	el, ec := p.lines.Pos(max(start, end-1))
	return deploy.Span{File: p.name, Line: l, Col: c, EndLine: el, EndCol: ec + 1}
}

func (p *parser) errorf(t text, format string, args ...any) {
	p.errs = append(p.errs, diag.Errorf(p.span(t), format, args...))
}

func (p *parser) current() *stage {
	if len(p.stages) == 0 {
		return nil
	}
	return p.stages[len(p.stages)-1]
}

func (p *parser) instruction(ins instruction) {
	if !known[ins.keyword] {
		p.errorf(ins.kw, "unknown instruction: %s", string(ins.kw.b))
		return
	}
	st := p.current()
	if st == nil && ins.keyword != "FROM" && ins.keyword != "ARG" {
		p.errorf(ins.kw, "%s before the first FROM: no build stage in current context", ins.keyword)
		return
	}
	switch ins.keyword {
	case "FROM":
		p.from(ins)
	case "ARG":
		p.noFlags(ins)
		p.arg(ins, st)
	case "ENV":
		p.noFlags(ins)
		p.env(ins, st)
	case "CMD", "ENTRYPOINT":
		p.noFlags(ins)
		c, ok := p.command(ins, st)
		if !ok {
			return
		}
		if ins.keyword == "CMD" {
			st.cmd, st.cmdSet = c, true
			return
		}
		if len(c.argv) == 0 {
			c = nil // ENTRYPOINT [] clears it
		}
		st.entry, st.entrySet = c, true
		if !st.cmdSet {
			st.cmd = nil
		}
	case "SHELL":
		p.noFlags(ins)
		elems, isExec, err := execForm(ins.args)
		switch {
		case err != nil:
			p.errorf(ins.args, "%v", err)
		case !isExec:
			p.errorf(ins.args, "SHELL requires the arguments to be in JSON form")
		case len(elems) == 0:
			p.errorf(ins.kw, "SHELL requires at least one argument")
		default:
			st.shell = p.elementArgs(elems)
		}
	}
}

// noFlags reports builder flags on an instruction that takes none. BuildKit
// fails the build with "unknown flag"; for a shell-form CMD this is what an
// unquoted leading engine option such as --model-path does.
func (p *parser) noFlags(ins instruction) {
	for _, f := range ins.flags {
		name, _, _ := strings.Cut(string(f.b), "=")
		p.errorf(f, "%s: unknown flag: %s (BuildKit reads leading --words of an instruction as its own flags; write the command as a JSON array)", ins.keyword, name)
	}
}

func (p *parser) from(ins instruction) {
	for _, f := range ins.flags {
		if name, _, _ := strings.Cut(string(f.b), "="); name != "--platform" {
			p.errorf(f, "FROM: unknown flag: %s", name)
		}
	}
	fields := fieldsOf(ins.args)
	st := &stage{args: vars{}}
	p.stages = append(p.stages, st)
	if len(fields) != 1 && !(len(fields) == 3 && strings.EqualFold(string(fields[1].b), "as")) {
		p.errorf(ins.kw, "FROM requires either one or three arguments")
		return
	}
	if len(fields) == 3 {
		st.name = strings.ToLower(string(fields[2].b))
	}
	w, err := substitute(fields[0], p.escape, p.meta, &p.budget)
	if err != nil {
		p.errorf(fields[0], "FROM: %v", err)
		return
	}
	st.image = deploy.Value{Raw: string(w.b), Known: w.known, Span: p.span(fields[0]), Origin: w.origin}
	if base, ok := p.byName[st.image.Raw]; ok && w.known {
		// FROM <stage>: the stage's image config is the starting point.
		// Copying the origin and the ENV map here made a chain of n
		// stages (FROM a AS b, FROM b AS c, ...) cost O(n²).
		st.refs = base.refs.push(deploy.At(deploy.StepReference, st.image.Span))
		st.image = base.image
		st.env = base.env
		st.shell = base.shell
		st.cmd, st.entry, st.entrySet = base.cmd, base.entry, base.entrySet
	}
	if st.name != "" {
		p.byName[st.name] = st
	}
}

// fieldsOf splits at white space with no quoting (BuildKit
// parseStringsWhitespaceDelimited).
func fieldsOf(t text) []text {
	var out []text
	i := 0
	for i < len(t.b) {
		for i < len(t.b) && isDockerSpace(t.b[i]) {
			i++
		}
		start := i
		for i < len(t.b) && !isDockerSpace(t.b[i]) {
			i++
		}
		if i > start {
			out = append(out, t.slice(start, i))
		}
	}
	return out
}

// refs is a list of steps that shares its beginning with the list it was
// made from.
type refs struct {
	step deploy.Step
	prev *refs
	n    int
}

func (r *refs) push(s deploy.Step) *refs {
	n := 1
	if r != nil {
		n = r.n + 1
	}
	return &refs{step: s, prev: r, n: n}
}

// imageValue is the stage's image with its origin through every FROM
// <stage> that led to it.
func (st *stage) imageValue() deploy.Value {
	v := st.image
	if st.refs == nil {
		return v
	}
	o := make(deploy.Origin, len(v.Origin)+st.refs.n)
	copy(o, v.Origin)
	for r := st.refs; r != nil; r = r.prev {
		o[len(v.Origin)+r.n-1] = r.step
	}
	v.Origin = o
	return v
}

// get looks a variable up as substitution in a stage sees it: its ARGs,
// with ENV taking precedence (Dockerfile reference, "Using ARG variables").
// Looking into the stage's own maps, not a merged copy, keeps a Dockerfile
// of many ARG or ENV instructions linear in its length.
func (st *stage) get(name string) (deploy.Value, bool) {
	if v, ok := st.env.get(name); ok {
		return v, true
	}
	v, ok := st.args[name]
	return v, ok
}

func (p *parser) arg(ins instruction, st *stage) {
	words := splitWords(ins.args, p.escape)
	if len(words) == 0 {
		p.errorf(ins.kw, "ARG requires at least one argument")
		return
	}
	for _, w := range words {
		eq := strings.IndexByte(string(w.b), '=')
		key := w
		if eq >= 0 {
			key = w.slice(0, eq)
		}
		if len(key.b) == 0 {
			p.errorf(w, "ARG names can not be blank")
			continue
		}
		name := string(key.b)
		var val deploy.Value
		switch {
		case eq >= 0:
			var env scope = p.meta
			if st != nil {
				env = st
			}
			sub, err := substitute(w.slice(eq+1, len(w.b)), p.escape, env, &p.budget)
			if err != nil {
				p.errorf(w, "ARG: %v", err)
				continue
			}
			val = deploy.Value{Raw: string(sub.b), Known: sub.known, Span: p.valueSpan(w, eq), Origin: sub.origin}
		case st != nil && p.meta[name].IsSet():
			// ARG NAME in a stage takes the global default.
			val = p.meta[name]
			val.Origin = append(append(deploy.Origin(nil), val.Origin...), deploy.At(deploy.StepReference, p.span(w)))
			val.Span = p.span(w)
		default:
			// Only a --build-arg gives it a value; kvlint does not know it.
			val = deploy.Unknown("$"+name, p.span(w))
		}
		if st == nil {
			p.meta[name] = val
		} else {
			st.args[name] = val
		}
	}
}

// valueSpan is the span of the value after "=" in w, or of w when empty.
func (p *parser) valueSpan(w text, eq int) deploy.Span {
	if eq+1 >= len(w.b) {
		return p.span(w)
	}
	return p.span(w.slice(eq+1, len(w.b)))
}

func (p *parser) env(ins instruction, st *stage) {
	words := splitWords(ins.args, p.escape)
	if len(words) == 0 {
		p.errorf(ins.kw, "ENV requires at least one argument")
		return
	}
	type pair struct {
		name  string
		value text
		whole text
	}
	var pairs []pair
	if !strings.Contains(string(words[0].b), "=") {
		// Legacy ENV name value: the value is the rest of the line.
		t := ins.args
		i := 0
		for i < len(t.b) && !isDockerSpace(t.b[i]) {
			i++
		}
		j := i
		for j < len(t.b) && isDockerSpace(t.b[j]) {
			j++
		}
		if j >= len(t.b) {
			p.errorf(ins.args, "ENV must have two arguments")
			return
		}
		pairs = append(pairs, pair{name: string(t.b[:i]), value: t.slice(j, len(t.b)), whole: t})
	} else {
		for _, w := range words {
			eq := strings.IndexByte(string(w.b), '=')
			if eq < 0 {
				p.errorf(w, "Syntax error - can't find = in %q. Must be of the form: name=value", string(w.b))
				return
			}
			pairs = append(pairs, pair{name: string(w.b[:eq]), value: w.slice(eq+1, len(w.b)), whole: w})
		}
	}
	// Every value sees the variables from before this instruction
	// (Dockerfile reference, "Environment replacement": ENV abc=bye
	// def=$abc gives def the old abc), so all are substituted before any
	// is set.
	type set struct {
		name  string
		value deploy.Value
	}
	var sets []set
	for _, kv := range pairs {
		if kv.name == "" {
			p.errorf(kv.whole, "ENV names can not be blank")
			continue
		}
		sub, err := substitute(kv.value, p.escape, st, &p.budget)
		if err != nil {
			p.errorf(kv.whole, "ENV: %v", err)
			continue
		}
		span := p.span(kv.value)
		if len(kv.value.b) == 0 {
			span = p.span(kv.whole)
		}
		sets = append(sets, set{kv.name, deploy.Value{Raw: string(sub.b), Known: sub.known, Span: span, Origin: sub.origin}})
	}
	for _, s := range sets {
		st.env = st.env.with(s.name, s.value)
	}
}

// command reads a CMD or ENTRYPOINT. The shell form becomes the stage's
// SHELL (default /bin/sh -c) followed by the text as one word, as Docker
// stores it; the added words are placed on the instruction keyword.
func (p *parser) command(ins instruction, st *stage) (*command, bool) {
	elems, isExec, err := execForm(ins.args)
	if err != nil {
		p.errorf(ins.args, "%s: %v", ins.keyword, err)
		return nil, false
	}
	if isExec {
		return &command{argv: p.elementArgs(elems)}, true
	}
	c := &command{}
	if st.shell != nil {
		c.argv = append(c.argv, st.shell...)
	} else {
		kw := p.span(ins.kw)
		c.argv = append(c.argv, arg{Value: deploy.Known("/bin/sh", kw)}, arg{Value: deploy.Known("-c", kw)})
	}
	span := p.span(ins.args)
	if len(ins.args.b) == 0 {
		span = p.span(ins.kw) // CMD with nothing after it runs sh -c ""
	}
	c.argv = append(c.argv, arg{Value: deploy.Known(string(ins.args.b), span), at: ins.args.at})
	return c, true
}

// elementArgs turns exec-form strings into words. Docker does no variable
// substitution in the exec form, so "$PORT" reaches the program as the four
// characters $PORT: the word is known, and is exactly that.
func (p *parser) elementArgs(elems []element) []arg {
	out := make([]arg, len(elems))
	for i, e := range elems {
		out[i] = arg{Value: deploy.Known(string(e.b), p.spanOf(e.start, e.end)), at: e.at}
	}
	return out
}

func (p *parser) final() *stage {
	if len(p.stages) == 0 {
		if len(p.errs) == 0 && !p.empty {
			p.errs = append(p.errs, &diag.Diagnostic{Span: deploy.Span{File: p.name}, Message: "the Dockerfile has no FROM instruction"})
		}
		return nil
	}
	return p.stages[len(p.stages)-1]
}

// commands returns what the final stage runs: ENTRYPOINT + CMD as one
// command, as Docker concatenates them (an exec-form ENTRYPOINT gets CMD as
// arguments; a shell-form one, /bin/sh -c TEXT, gets them as $0, $1, ...,
// which leaves CMD unused unless TEXT reads them), followed by the commands
// of its script when it runs a shell on one.
//
// When no stage sets ENTRYPOINT, the FROM image's stays in force and gets
// the CMD as its arguments: the image table gives it for the images it
// knows, and ep says what it supplied. A Dockerfile that sets neither
// ENTRYPOINT nor CMD over a known image is no launch of its own: the image
// runs its default command, which this file does not choose and which
// names no model, so nothing in it is the user's to check or change. An
// ENTRYPOINT of an external base image the table does not know stays
// unknown; the stage's own command is read as what runs, which is what
// the usual entrypoint scripts that end in exec "$@" do with it.
func (p *parser) commands(st *stage) (cmds []shell.Command, ep *deploy.ImageEntrypoint) {
	var argv []arg
	if st.entry != nil {
		argv = append(argv, st.entry.argv...)
	}
	if st.cmd != nil {
		if !st.entrySet {
			var cmd []deploy.Value
			for _, a := range st.cmd.argv {
				cmd = append(cmd, a.Value)
			}
			if cmd == nil {
				cmd = []deploy.Value{} // CMD [] is set, and empty
			}
			if full, e, ok := engine.ImageLaunch(p.images, st.imageValue(), nil, cmd); ok {
				for _, v := range full[:len(full)-len(cmd)] {
					argv = append(argv, arg{Value: v})
				}
				ep = e
			}
		}
		argv = append(argv, st.cmd.argv...)
	}
	if len(argv) == 0 {
		return nil, nil
	}
	words := make([]deploy.Value, len(argv))
	for i, a := range argv {
		words[i] = a.Value
	}
	cmds = []shell.Command{{Words: words, Span: spanning(words)}}
	i, ok := shell.ScriptArg(words)
	if !ok || fromImage(argv[i]) {
		return cmds, ep
	}
	script := argv[i]
	at := script.at
	if len(at) != len(script.Raw) {
		at = make([]int, len(script.Raw))
		for j := range at {
			at[j] = p.lines.Offset(script.Span.Line, script.Span.Col)
		}
	}
	// The shell sees the image's ENV; ARGs exist only while building.
	env := make(shell.Env, st.env.len())
	st.env.each(func(k string, v deploy.Value) { env[k] = v })
	text := []byte(script.Raw)
	inner, errs := shell.Commands(shell.Source{
		File:   p.name,
		Text:   text,
		Map:    shell.ByteMapper(shell.NewLines(text), at, p.lines, nil),
		Env:    env,
		Params: shell.ScriptParams(words, i),
	})
	p.errs = append(p.errs, errs...)
	return append(cmds, inner...), ep
}

// fromImage reports a word the image supplied (which has no place of its own
// in the file): a script in it is the image's, not read here.
func fromImage(a arg) bool {
	return len(a.Origin) > 0 && a.Origin[len(a.Origin)-1].Kind == deploy.StepImage
}

// spanning covers words from the first to the last, when they are written
// in that order (Docker's added /bin/sh -c sit on the keyword).
func spanning(words []deploy.Value) deploy.Span {
	first, last := words[0].Span, words[len(words)-1].Span
	if last.Line < first.Line || last.Line == first.Line && last.EndCol < first.Col {
		return first
	}
	return deploy.Span{File: first.File, Line: first.Line, Col: first.Col, EndLine: last.EndLine, EndCol: last.EndCol}
}

// servers finds the engine launches among the final stage's commands.
func (p *parser) servers(st *stage, read engine.ReadFile) []*deploy.Server {
	var servers []*deploy.Server
	cmds, ep := p.commands(st)
	for i, c := range cmds {
		s, errs, ok := engine.Server(c.Words, read)
		p.errs = append(p.errs, errs...)
		if !ok || s == nil {
			continue
		}
		s.Name = fmt.Sprintf("%s:%d", p.name, c.Span.Line)
		s.Source = deploy.SourceDockerfile
		s.Image = st.imageValue()
		if i == 0 {
			s.Entrypoint = ep
		}
		servers = append(servers, s)
	}
	return servers
}
