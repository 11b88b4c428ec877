package parsers

import (
	"path/filepath"

	"github.com/kvlint/kvlint/parsers/terraform"
)

// withoutChildModules drops the Terraform modules that another module of
// the run calls through a local source: the caller evaluates them with its
// arguments, once per instance, and reports their servers there. A module
// only reachable through a cycle of calls is kept, so that nothing is
// passed over.
func withoutChildModules(files []File) []File {
	calls := map[string][]string{}
	isModule := map[string]bool{}
	for _, f := range files {
		if f.Kind == KindTerraform {
			isModule[filepath.Clean(f.Path)] = true
		}
	}
	if len(isModule) < 2 {
		return files
	}
	called := map[string]bool{}
	for dir := range isModule {
		for _, c := range terraform.LocalCalls(dir) {
			if isModule[c] && c != dir {
				calls[dir] = append(calls[dir], c)
				called[c] = true
			}
		}
	}
	// Everything a module nobody calls reaches is evaluated through it.
	child := map[string]bool{}
	var walk func(string)
	walk = func(d string) {
		for _, c := range calls[d] {
			if !child[c] {
				child[c] = true
				walk(c)
			}
		}
	}
	for dir := range isModule {
		if !called[dir] {
			walk(dir)
		}
	}
	out := make([]File, 0, len(files))
	for _, f := range files {
		if f.Kind == KindTerraform && child[filepath.Clean(f.Path)] {
			continue
		}
		out = append(out, f)
	}
	return out
}
