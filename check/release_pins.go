package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/source"
)

// lockFiles are the lock files that name the engine release an environment
// resolved, in the order they are believed: a lock file is what the
// installer resolved, a requirements file what someone asked for.
var lockFiles = []string{"uv.lock", "poetry.lock", "Pipfile.lock"}

// maxRequirementFiles bounds how many requirements*.txt of one directory
// are read: a directory of generated files is not an environment.
const maxRequirementFiles = 16

// besidePin finds the engine release a requirements or lock file beside the
// server's file pins: uv.lock, poetry.lock, Pipfile.lock, requirements.txt,
// then the other requirements*.txt in name order; the first that pins the
// engine wins. Only a Dockerfile or a launch script installs from the files
// beside it (a manifest's pod runs its image, whatever lies next to the
// manifest), and a Dockerfile only from a file it names. The files are read through the run's set, so a directory
// outside the checked paths is never read.
//
// dirs caches envFiles by directory for one run, so that the scripts of a
// directory list it once (nil: no cache).
func besidePin(files *source.Set, file string, e deploy.Engine, dirs map[string][]string) (version, where string, span deploy.Span, ok bool) {
	if files == nil || file == "" {
		return "", "", deploy.Span{}, false
	}
	// A Dockerfile installs a file beside it only when it copies it into
	// the image (COPY requirements.txt, pip install -r requirements.txt):
	// it must name the file. A launch script runs in the environment the
	// files beside it describe.
	var named func(string) bool
	switch source.SyntaxOf(file) {
	case source.SyntaxDockerfile:
		df := files.File(file)
		if df == nil {
			return "", "", deploy.Span{}, false
		}
		named = func(n string) bool { return bytes.Contains(df.Data, []byte(n)) }
	case source.SyntaxShell:
		named = func(string) bool { return true }
	default:
		return "", "", deploy.Span{}, false
	}
	dir := filepath.Dir(file)
	names, ok := envFiles(files, dir, dirs)
	if !ok {
		return "", "", deploy.Span{}, false
	}
	for _, n := range names {
		if !named(n) {
			continue
		}
		p := filepath.Join(dir, n)
		f, err := files.Read(p, source.SyntaxOther)
		if err != nil {
			continue
		}
		var start, end int
		switch n {
		case "uv.lock", "poetry.lock":
			start, end, ok = tomlLockPin(f.Data, e)
		case "Pipfile.lock":
			start, end, ok = pipfileLockPin(f.Data, e)
		default:
			start, end, ok = requirementsPin(f.Data, e)
		}
		if !ok {
			continue
		}
		span = f.Index(source.LF).Span(f.Name, start, end)
		version = strings.TrimPrefix(string(f.Data[start:end]), "==")
		version = strings.TrimPrefix(version, "v")
		if !deploy.ValidVersionString(version) {
			return "", "", deploy.Span{}, false
		}
		return version, fmt.Sprintf("%s %s at %s:%d:%d", n, version, relative(f.Name), span.Line, span.Col), span, true
	}
	return "", "", deploy.Span{}, false
}

// envFiles are the lock and requirements files of dir, in the order
// besidePin believes them: the lock files there, requirements.txt, then the
// other requirements*.txt by name (at most maxRequirementFiles). Without a
// confined set to list the directory, every name is tried. ok is false for
// a directory that cannot be listed.
func envFiles(files *source.Set, dir string, dirs map[string][]string) (names []string, ok bool) {
	if names, ok := dirs[dir]; ok {
		return names, names != nil
	}
	fs := files.FS()
	if fs == nil {
		return append(append([]string(nil), lockFiles...), "requirements.txt"), true
	}
	entries, err := fs.ReadDir(dir)
	if err != nil {
		if dirs != nil {
			dirs[dir] = nil
		}
		return nil, false
	}
	present := map[string]bool{}
	var reqs []string
	for _, en := range entries {
		n := en.Name()
		if !en.Type().IsRegular() {
			continue
		}
		present[n] = true
		if strings.HasPrefix(n, "requirements") && strings.HasSuffix(n, ".txt") {
			reqs = append(reqs, n)
		}
	}
	sort.Slice(reqs, func(i, j int) bool {
		// requirements.txt first, then the rest by name.
		if (reqs[i] == "requirements.txt") != (reqs[j] == "requirements.txt") {
			return reqs[i] == "requirements.txt"
		}
		return reqs[i] < reqs[j]
	})
	if len(reqs) > maxRequirementFiles {
		reqs = reqs[:maxRequirementFiles]
	}
	names = []string{}
	for _, n := range lockFiles {
		if present[n] {
			names = append(names, n)
		}
	}
	names = append(names, reqs...)
	if dirs != nil {
		dirs[dir] = names
	}
	return names, true
}

// reqLine is one requirement pinned to one release, at the start of a line:
// vllm==0.6.3, sglang[all] == 0.4.6.post1 ; python_version >= "3.10".
// Group 1 is the name, group 2 the version.
var reqLine = regexp.MustCompile(`(?m)^[ \t]*([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[A-Za-z0-9_, -]*\])?[ \t]*===?[ \t]*v?([0-9][0-9A-Za-z.+!-]*)`)

// requirementsPin finds ENGINE==X in a pip requirements file; the last pin
// wins, as pip refuses two different pins of one name and takes equal ones.
// The span covers the version.
func requirementsPin(data []byte, e deploy.Engine) (start, end int, ok bool) {
	for _, m := range reqLine.FindAllSubmatchIndex(data, -1) {
		if !sameProject(string(data[m[2]:m[3]]), string(e)) {
			continue
		}
		start, end, ok = m[4], m[5], true
	}
	return start, end, ok
}

// tomlPackage is a [[package]] table of uv.lock or poetry.lock: its name and
// version are the first keys the lockers write.
var tomlPackage = regexp.MustCompile(`(?m)^\[\[package\]\]\s*\nname\s*=\s*"([^"\n]*)"\s*\nversion\s*=\s*"([^"\n]*)"`)

// tomlLockPin finds the engine's [[package]] in uv.lock or poetry.lock.
func tomlLockPin(data []byte, e deploy.Engine) (start, end int, ok bool) {
	for _, m := range tomlPackage.FindAllSubmatchIndex(data, -1) {
		if sameProject(string(data[m[2]:m[3]]), string(e)) {
			return m[4], m[5], true
		}
	}
	return 0, 0, false
}

// pipfileLockPin finds "ENGINE": {"version": "==X"} in the "default" (or
// "develop") section of a Pipfile.lock, returning the span of ==X inside its
// quotes. The JSON is walked token by token with bounds on depth and steps,
// so a deep or broken document ends the walk with no pin.
func pipfileLockPin(data []byte, e deploy.Engine) (start, end int, ok bool) {
	type frame struct {
		object, wantKey bool
		key             string
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var stack []frame
	for steps := 0; steps < 1<<20; steps++ {
		tok, err := dec.Token()
		if err != nil {
			return 0, 0, false
		}
		if d, isDelim := tok.(json.Delim); isDelim {
			switch d {
			case '{', '[':
				if len(stack) >= 8 {
					return 0, 0, false
				}
				stack = append(stack, frame{object: d == '{', wantKey: d == '{'})
			case '}', ']':
				stack = stack[:len(stack)-1]
				if n := len(stack); n > 0 && stack[n-1].object {
					stack[n-1].wantKey = true
				}
			}
			continue
		}
		n := len(stack)
		if n == 0 {
			return 0, 0, false
		}
		top := &stack[n-1]
		if top.object && top.wantKey {
			top.key, _ = tok.(string)
			top.wantKey = false
			continue
		}
		if top.object {
			top.wantKey = true
		}
		v, isString := tok.(string)
		if !isString || n != 3 || top.key != "version" || !strings.HasPrefix(v, "==") {
			continue
		}
		if sec := stack[0].key; (sec == "default" || sec == "develop") && sameProject(stack[1].key, string(e)) {
			// The decoder stops just after the closing quote; a version
			// has no escapes, so the text is the value as decoded.
			off := int(dec.InputOffset())
			if off >= len(v)+1 && string(data[off-1-len(v):off-1]) == v {
				return off - 1 - len(v), off - 1, true
			}
		}
	}
	return 0, 0, false
}

// sameProject compares two distribution names as pip does (PEP 503:
// case-insensitive, runs of -, _ and . equal).
func sameProject(a, b string) bool {
	norm := func(s string) string {
		s = strings.ToLower(s)
		return strings.NewReplacer("_", "-", ".", "-").Replace(s)
	}
	return norm(a) == norm(b)
}
