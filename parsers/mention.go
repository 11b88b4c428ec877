package parsers

import (
	"os"
	"path/filepath"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/engine"
	"github.com/kvlint/kvlint/source"
)

// Unlaunched is a place in a file that names an engine (engine.Mention)
// in a file that yielded no server: kvlint saw the engine and recognised
// no launch, which the run reports rather than pass the file in silence.
// It is computed from what the parse found, not from a list of the shapes
// kvlint misses, so it stays right as shapes are added.
type Unlaunched struct {
	Span    deploy.Span
	Mention engine.Mention
	// Quoted is set when the mention sits inside a quoted string of a
	// shell line (an echo, a variable's value, an eval'd string), which
	// kvlint does not read as a command.
	Quoted bool
}

// Unanalysed is something a file deploys that kvlint knows of and did not
// read: a Terraform module call with a remote source (registry, git::,
// https://, s3::), which only terraform init downloads. The run reports it
// (KV502) rather than let what it deploys pass as checked.
type Unanalysed struct {
	Span deploy.Span // where the source is written
	// Kind is what was not read: UnanalysedTerraformModule.
	Kind   string
	Name   string // the module call's label
	Source string // its source, as written
}

// UnanalysedTerraformModule is the Kind of a remote Terraform module.
const UnanalysedTerraformModule = "terraform-module"

// unlaunchedIn returns the places f names an engine, outside comments:
// the first of each kind (module, command, image), which is enough to
// tell the user what was seen without repeating it for every line.
func unlaunchedIn(f *source.File, images *engine.ImageTable) []Unlaunched {
	var out []Unlaunched
	seen := map[engine.MentionKind]bool{}
	engine.ScanMentions(f.Data, images, func(m engine.Mention) bool {
		if seen[m.Kind] {
			return true
		}
		comment, quoted := source.LineContext(f.Data, m.Start, f.Syntax)
		if comment {
			return true
		}
		seen[m.Kind] = true
		out = append(out, Unlaunched{
			Span:    f.Index(source.LF).Span(f.Name, m.Start, m.End),
			Mention: m,
			Quoted:  quoted && f.Syntax == source.SyntaxShell,
		})
		return len(seen) < 3
	})
	return out
}

// firstMention is the first place f names an engine outside comments.
func firstMention(f *source.File) (engine.Mention, bool) {
	var first engine.Mention
	found := false
	engine.ScanMentions(f.Data, nil, func(m engine.Mention) bool {
		if c, _ := source.LineContext(f.Data, m.Start, f.Syntax); c {
			return true
		}
		first, found = m, true
		return false
	})
	return first, found
}

// unlaunchedInDir is unlaunchedIn for a chart or module directory: the
// files of it the parse read (its templates, its .tf files), which the run's
// set holds, noted at the first that names an engine. Files the parse did
// not read are not read here either.
func unlaunchedInDir(f File, opt Options) []Unlaunched {
	var dirs []string
	switch f.Kind {
	case KindHelm:
		dirs = []string{filepath.Join(f.Path, "templates")}
	case KindTerraform:
		dirs = []string{f.Path}
	}
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if e.IsDir() {
				continue
			}
			src := opt.Files.File(filepath.Join(dir, e.Name()))
			if src == nil {
				continue
			}
			if ms := unlaunchedIn(src, opt.Images); len(ms) > 0 {
				return ms
			}
		}
	}
	return nil
}
