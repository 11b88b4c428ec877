// Package workflow finds engine launches in GitHub Actions workflows
// (.github/workflows/*.yml): every step's run: is a shell script, parsed by
// parsers/shell with positions in the workflow file, and the env: of the
// workflow, the job and the step is its environment.
//
// Which steps are shell scripts follows GitHub's workflow syntax
// (GitHub Docs, "Workflow syntax for GitHub Actions",
// "jobs.<job_id>.steps[*].shell", in github/docs at
// content/actions/using-workflows/workflow-syntax-for-github-actions.md):
// a step without
// shell: runs `bash -e {0}` on Linux and macOS runners and pwsh on Windows
// runners; shell: is taken from the step, else the job's defaults.run.shell,
// else the workflow's defaults.run.shell. bash and sh (and a custom
// "bash … {0}" / "sh … {0}" template) are parsed; pwsh, python, cmd and
// powershell are not shell scripts.
//
// ${{ … }} expressions are replaced by the runner before the shell sees the
// script: their value is not in the file, so a word holding one is unknown
// (Known=false) with the expression as written.
package workflow

import (
	"fmt"
	"path"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/engine"
	"github.com/kvlint/kvlint/parsers/shell"
	"github.com/kvlint/kvlint/parsers/yamlsrc"
	"github.com/kvlint/kvlint/source"
)

// IsWorkflowPath reports whether p is a workflow file: a YAML file directly
// in a .github/workflows directory (GitHub reads no other place).
func IsWorkflowPath(p string) bool {
	p = strings.ReplaceAll(p, "\\", "/")
	dir := path.Dir(p)
	ext := strings.ToLower(path.Ext(p))
	return (ext == ".yml" || ext == ".yaml") &&
		(dir == ".github/workflows" || strings.HasSuffix(dir, "/.github/workflows"))
}

// ParseFile returns the engine launches of a workflow file's run: steps.
func ParseFile(f *source.File, read engine.ReadFile) ([]*deploy.Server, []*diag.Diagnostic) {
	src := yamlsrc.FromFile(f)
	docs, errs := src.Documents()
	p := &parser{src: src, read: read, errs: errs}
	for _, d := range docs {
		p.workflow(d.Root)
	}
	return p.servers, p.errs
}

type parser struct {
	src     *yamlsrc.Source
	read    engine.ReadFile
	servers []*deploy.Server
	errs    []*diag.Diagnostic
}

func (p *parser) workflow(root *yaml.Node) {
	root = yamlsrc.Resolve(root)
	if root == nil || root.Kind != yaml.MappingNode {
		return
	}
	env := p.env(nil, yamlsrc.Get(root, "env"))
	shellOf := defaultShell(root)
	for _, job := range yamlsrc.Pairs(yamlsrc.Get(root, "jobs")) {
		j := job.Value
		if j == nil || j.Kind != yaml.MappingNode {
			continue
		}
		jobEnv := p.env(env, yamlsrc.Get(j, "env"))
		jobShell := shellOf
		if s := defaultShell(j); s != nil {
			jobShell = s
		}
		windows := onWindows(yamlsrc.Get(j, "runs-on"))
		steps := yamlsrc.Get(j, "steps")
		if steps == nil || steps.Kind != yaml.SequenceNode {
			continue
		}
		for _, step := range steps.Content {
			step = yamlsrc.Resolve(step)
			run := yamlsrc.Get(step, "run")
			if run == nil || run.Kind != yaml.ScalarNode || yamlsrc.IsNull(run) {
				continue
			}
			sh := jobShell
			if s := yamlsrc.Get(step, "shell"); s != nil {
				sh = s
			}
			if !isPOSIXShell(sh, windows) {
				continue
			}
			p.step(job.Key.Value, run, p.env(jobEnv, yamlsrc.Get(step, "env")))
		}
	}
}

// defaultShell is defaults.run.shell of a workflow or a job, or nil.
func defaultShell(m *yaml.Node) *yaml.Node {
	return yamlsrc.Path(m, "defaults", "run", "shell")
}

// onWindows reports a runs-on that names a Windows runner, whose default
// shell is pwsh. A label kvlint cannot read (an expression, a group) is
// taken for Linux, GitHub's most common runner.
func onWindows(runsOn *yaml.Node) bool {
	var labels []string
	switch {
	case runsOn == nil:
	case runsOn.Kind == yaml.ScalarNode:
		labels = []string{runsOn.Value}
	case runsOn.Kind == yaml.SequenceNode:
		for _, l := range runsOn.Content {
			if s, ok := yamlsrc.Str(l); ok {
				labels = append(labels, s)
			}
		}
	}
	for _, l := range labels {
		if strings.HasPrefix(strings.ToLower(l), "windows") {
			return true
		}
	}
	return false
}

// isPOSIXShell reports whether a step's shell (nil: the runner's default)
// runs the script with bash or sh.
func isPOSIXShell(sh *yaml.Node, windows bool) bool {
	if sh == nil {
		return !windows
	}
	s, ok := yamlsrc.Str(sh)
	if !ok || strings.Contains(s, "${{") {
		return false // decided at run time
	}
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return !windows
	}
	switch path.Base(fields[0]) {
	case "bash", "sh":
		return true
	}
	return false
}

// env layers an env: mapping over outer. A value holding a ${{ }}
// expression is unknown: the runner evaluates it.
func (p *parser) env(outer shell.Env, m *yaml.Node) shell.Env {
	out := shell.Env{}
	for k, v := range outer {
		out[k] = v
	}
	if m != nil && m.Kind == yaml.ScalarNode && strings.Contains(m.Value, "${{") {
		// env: ${{ fromJSON(...) }}: any variable may be set.
		return out
	}
	for _, pr := range yamlsrc.Pairs(m) {
		n := pr.Value
		if n == nil || n.Kind != yaml.ScalarNode {
			continue
		}
		v := p.src.Value(n)
		if yamlsrc.IsNull(n) {
			v.Raw = ""
		}
		if strings.Contains(v.Raw, "${{") {
			v.Known = false
		}
		out[pr.Key.Value] = v
	}
	return out
}

// step parses one run: script.
func (p *parser) step(job string, run *yaml.Node, env shell.Env) {
	text, _ := p.src.Scalar(run)
	masked, exprs := maskExpressions(text)
	found, errs := shell.Servers(shell.Source{
		File: p.src.File,
		Text: []byte(masked.S),
		Map:  shell.Mapper(p.src.Mapper(masked)),
		Env:  env,
	}, p.read)
	p.errs = append(p.errs, errs...)
	for _, s := range found {
		unmask(s, exprs)
		s.Name = fmt.Sprintf("%s:%s:%d", p.src.File, job, s.Span.Line)
		s.Source = deploy.SourceShell
		p.servers = append(p.servers, s)
	}
}

// expression is a ${{ … }} the script held and the placeholder that stands
// for it while the shell parser reads the script.
type expression struct {
	placeholder, text string
}

// maskExpressions replaces every ${{ … }} in t with a reference to a
// variable no environment sets, ${__kvlint_expr_N__}: the shell parser then
// reads the word as unknown (the runner substitutes the expression before
// bash starts, and bash could not parse ${{). The placeholder's bytes map to
// the expression, so spans stay in the file.
func maskExpressions(t yamlsrc.Text) (yamlsrc.Text, []expression) {
	if !strings.Contains(t.S, "${{") {
		return t, nil
	}
	var b yamlsrc.Builder
	var exprs []expression
	last := 0
	for i := 0; i < len(t.S); {
		j := strings.Index(t.S[i:], "${{")
		if j < 0 {
			break
		}
		start := i + j
		end := strings.Index(t.S[start:], "}}")
		if end < 0 {
			break
		}
		end += start + 2
		ph := fmt.Sprintf("${__kvlint_expr_%d__}", len(exprs))
		exprs = append(exprs, expression{placeholder: ph, text: t.S[start:end]})
		b.Copy(t, last, start)
		from, to := t.Range(start, end)
		b.Substitute(ph, from, to, nil) // first and last bytes on the expression's ends
		last, i = end, end
	}
	b.Copy(t, last, len(t.S))
	return b.Text(), exprs
}

// unmask puts the expressions back into the values of a server found in a
// masked script: a value that held one is unknown, whatever its quoting.
func unmask(s *deploy.Server, exprs []expression) {
	if len(exprs) == 0 {
		return
	}
	for _, v := range s.Values() {
		if !strings.Contains(v.Raw, "__kvlint_expr_") {
			continue
		}
		for _, e := range exprs {
			v.Raw = strings.ReplaceAll(v.Raw, e.placeholder, e.text)
			v.Raw = strings.ReplaceAll(v.Raw, "$"+strings.Trim(e.placeholder, "${}"), e.text)
		}
		v.Known = false
		v.Typed = deploy.Typed{}
	}
}
