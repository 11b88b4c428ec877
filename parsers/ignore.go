package parsers

import (
	"path"
	"strings"
)

// ignoreRule is one line of a .gitignore-style pattern list.
// See gitignore(5): a leading "!" negates, a trailing "/" matches directories
// only, a "/" anywhere but the end anchors the pattern to the base directory,
// "**" matches any number of directories.
type ignoreRule struct {
	base     string // directory the pattern is relative to, slash-separated, "" = root
	pattern  string
	negate   bool
	dirOnly  bool
	anchored bool
}

// Ignore decides which paths discovery passes over. Rules are checked in order
// and the last one that matches wins, as in git.
type Ignore struct{ rules []ignoreRule }

// Add appends the patterns of one .gitignore-style list whose paths are
// relative to base (slash-separated, "" for the root of the walk).
func (ig *Ignore) Add(base string, lines []string) {
	for _, l := range lines {
		l = strings.TrimRight(l, " \t\r")
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		r := ignoreRule{base: strings.Trim(base, "/")}
		if strings.HasPrefix(l, "!") {
			r.negate = true
			l = l[1:]
		} else if strings.HasPrefix(l, `\`) {
			l = l[1:] // "\#" and "\!" stand for themselves
		}
		if strings.HasSuffix(l, "/") {
			r.dirOnly = true
			l = strings.TrimRight(l, "/")
		}
		if strings.Contains(l, "/") {
			r.anchored = true
			l = strings.TrimPrefix(l, "/")
		}
		if l == "" {
			continue
		}
		r.pattern = l
		ig.rules = append(ig.rules, r)
	}
}

// Match reports whether rel (slash-separated, relative to the walk's root) is
// ignored.
func (ig *Ignore) Match(rel string, isDir bool) bool {
	ignored := false
	for _, r := range ig.rules {
		if r.dirOnly && !isDir {
			continue
		}
		p := rel
		if r.base != "" {
			if !strings.HasPrefix(rel, r.base+"/") {
				continue
			}
			p = rel[len(r.base)+1:]
		}
		if r.matches(p) {
			ignored = !r.negate
		}
	}
	return ignored
}

func (r ignoreRule) matches(p string) bool {
	if r.anchored {
		return globMatch(strings.Split(r.pattern, "/"), strings.Split(p, "/"))
	}
	// An unanchored pattern matches the name at any depth.
	return globMatch([]string{r.pattern}, []string{path.Base(p)})
}

// globMatch matches path segments against pattern segments, where a "**"
// segment stands for zero or more segments.
func globMatch(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(segs); i++ {
				if globMatch(pat[1:], segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, err := path.Match(pat[0], segs[0]); err != nil || !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}
