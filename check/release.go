package check

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kvlint/kvlint/config"
	"github.com/kvlint/kvlint/deploy"
	kvengine "github.com/kvlint/kvlint/engine"
	"github.com/kvlint/kvlint/source"
)

// resolveRelease says which engine release a server runs, first match wins:
// a pip install of the engine in the Dockerfile that launches it, a
// requirements or lock file beside that Dockerfile or launch script
// (besidePin), the image table's row for its image (the tag's release; a floating tag
// such as latest carries none and is judged against the newest release),
// then .kvlint.yaml engine_release: for the file's directory. Unknown
// leaves Version empty: the server is judged against the newest release and
// its findings say so. upgrade (--engine-release) then moves the server to
// the given release, keeping the one it ran in From. dirs is besidePin's
// cache for the run.
func resolveRelease(s *deploy.Server, images *kvengine.ImageTable, cfg *config.Config, files *source.Set, upgrade map[deploy.Engine]string, dirs map[string][]string) {
	r := deploy.Release{Engine: s.Engine}
	// A Dockerfile that launches the server and pins the engine with pip
	// installs that release over whatever its FROM image carried.
	if v, where, span, ok := pipPin(files.File(s.Span.File), s.Engine); ok {
		r.Version, r.Source, r.Span = v, where, span
	} else if v, where, span, ok := besidePin(files, s.Span.File, s.Engine, dirs); ok {
		r.Version, r.Source, r.Span = v, where, span
	} else if im, ok := kvengine.LookupImage(images, s.Image); ok && imageOf(im, s.Engine) {
		switch {
		case im.Release != "":
			r.Version, r.Source = im.Release, "image "+s.Image.Raw
		case im.Floating:
			r.Floating, r.Source = true, "image "+s.Image.Raw
		}
	}
	if r.Version == "" && !r.Floating && cfg != nil && cfg.Path != "" {
		if e, ok := cfg.EngineRelease[s.Engine]; ok {
			r.Version, r.Source = e.Version, "engine_release at "+e.Where(relative(cfg.Path))
		}
	}
	if v, ok := upgrade[s.Engine]; ok {
		r.From, r.FromSource, r.Version, r.Upgrade, r.Floating = r.Version, r.Source, v, true, false
		r.Span = deploy.Span{}
		r.Source = "--engine-release " + string(s.Engine) + "=" + v
	}
	s.Release = r
}

// imageOf reports whether an image row's release is the server's engine's:
// a row that names an engine must name this one; a row that names none (an
// SGLang image whose CMD is a shell, lmsysorg/sglang) carries the release
// of the engine its repository is named for.
func imageOf(im kvengine.Image, e deploy.Engine) bool {
	if im.Engine != "" {
		return im.Engine == e
	}
	return strings.Contains(im.Repository, string(e))
}

// pinRE is a requirement pinned to one release: vllm==0.6.3,
// sglang[all]==0.4.6.post1.
var pinRE = regexp.MustCompile(`(?:^|[\s"'])((vllm|sglang)(?:\[[a-z0-9_,-]*\])?==v?([0-9][0-9A-Za-z.+-]*))`)

// pipInstall is an install command: pip, pip3, python -m pip, uv pip.
var pipInstall = regexp.MustCompile(`\bpip3?\s+install\b`)

// pipPin finds `pip install ENGINE==X` (also uv pip install, ENGINE[extra])
// in a Dockerfile, the last one winning as the last install does: the
// version and where it is written ("Dockerfile:3:22 pip install vllm==0.6.3").
func pipPin(f *source.File, e deploy.Engine) (version, where string, span deploy.Span, ok bool) {
	if f == nil {
		return "", "", span, false
	}
	if source.SyntaxOf(f.Name) != source.SyntaxDockerfile {
		return "", "", span, false
	}
	text := string(f.Data)
	for _, m := range pinRE.FindAllStringSubmatchIndex(text, -1) {
		if text[m[4]:m[5]] != string(e) || !deploy.ValidVersionString(text[m[6]:m[7]]) {
			continue
		}
		// The install command is on the same logical line: back to the
		// previous line break not continued with a backslash.
		start := m[2]
		for start > 0 {
			nl := strings.LastIndexByte(text[:start], '\n')
			if nl < 0 {
				start = 0
				break
			}
			if strings.HasSuffix(strings.TrimRight(text[:nl], " \t\r"), "\\") {
				start = nl
				continue
			}
			start = nl + 1
			break
		}
		if !pipInstall.MatchString(text[start:m[2]]) {
			continue
		}
		line := 1 + strings.Count(text[:m[2]], "\n")
		col := m[2] - (strings.LastIndexByte(text[:m[2]], '\n') + 1) + 1
		version = strings.TrimRight(text[m[6]:m[7]], ".")
		where, ok = fmt.Sprintf("pip install %s at %s:%d:%d", text[m[2]:m[3]], relative(f.Name), line, col), true
		// The version is what a finding about the release asks to change,
		// as for a requirements or lock file pin.
		span = f.Index(source.LF).Span(f.Name, m[6], m[6]+len(version))
	}
	return version, where, span, ok
}
