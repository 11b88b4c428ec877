package terraform

import (
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// maxFilesetEntries bounds the directory entries one fileset() call walks,
// so a pattern over a large tree cannot hold the run.
const maxFilesetEntries = 10000

// filesetFunc is Terraform's fileset(path, pattern)
// (hashicorp/terraform internal/lang/funcs/filesystem.go MakeFileSetFunc):
// the regular files under path that match pattern, as paths relative to
// path with forward slashes. Terraform globs with doublestar: *, ? and
// [class] match within one path segment, ** any number of segments, and
// {a,b} alternatives. Here path must resolve inside the module (as for
// file()), and so must every match: a symbolic link that leads out is
// left out, never read.
func (m *module) filesetFunc() function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{pathParam, {Name: "pattern", Type: cty.String}},
		Type:   function.StaticReturnType(cty.Set(cty.String)),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			dir, pattern := pathArg(args[0]), args[1].AsString()
			_, real, err := m.resolve(dir)
			if err != nil {
				return cty.NilVal, err
			}
			patterns, err := braceAlternatives(filepath.ToSlash(pattern))
			if err != nil {
				return cty.NilVal, err
			}
			var names []string
			seen := 0
			err = filepath.WalkDir(real, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					return nil // an unreadable entry matches nothing
				}
				if seen++; seen > maxFilesetEntries {
					return fmt.Errorf("fileset(%q, %q) walks more than %d entries; kvlint stops there", dir, pattern, maxFilesetEntries)
				}
				if d.IsDir() {
					return nil
				}
				rel, err := filepath.Rel(real, p)
				if err != nil {
					return nil
				}
				rel = filepath.ToSlash(rel)
				if !slices.ContainsFunc(patterns, func(pat string) bool { return globMatch(pat, rel) }) {
					return nil
				}
				// Stat follows a link, as Terraform's does; resolve keeps
				// the target inside the module.
				_, target, err := m.resolve(path.Join(filepath.ToSlash(dir), rel))
				if err != nil || !isFile(target) {
					return nil
				}
				names = append(names, rel)
				return nil
			})
			if err != nil {
				return cty.NilVal, err
			}
			if len(names) == 0 {
				return cty.SetValEmpty(cty.String), nil
			}
			vals := make([]cty.Value, len(names))
			for i, n := range names {
				vals[i] = cty.StringVal(n)
			}
			return cty.SetVal(vals), nil
		},
	})
}

// braceAlternatives expands {a,b} groups (not nested) into the patterns
// they stand for, at most 64 of them.
func braceAlternatives(p string) ([]string, error) {
	open := strings.IndexByte(p, '{')
	if open < 0 {
		return []string{p}, nil
	}
	end := strings.IndexByte(p[open:], '}')
	if end < 0 {
		return nil, fmt.Errorf("pattern %q has an unclosed {", p)
	}
	end += open
	var out []string
	for _, alt := range strings.Split(p[open+1:end], ",") {
		rest, err := braceAlternatives(p[:open] + alt + p[end+1:])
		if err != nil {
			return nil, err
		}
		out = append(out, rest...)
		if len(out) > 64 {
			return nil, fmt.Errorf("pattern %q has more than 64 alternatives", p)
		}
	}
	return out, nil
}

// globMatch matches a slash-separated name against a pattern whose **
// segments match any number of segments and whose other segments match
// one segment each (path.Match).
func globMatch(pattern, name string) bool {
	return matchSegments(strings.Split(pattern, "/"), strings.Split(name, "/"))
}

func matchSegments(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for k := 0; k <= len(name); k++ {
				if matchSegments(pat[1:], name[k:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, err := path.Match(pat[0], name[0]); err != nil || !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}
