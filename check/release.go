package check

import (
	"strings"

	"github.com/kvlint/kvlint/config"
	"github.com/kvlint/kvlint/deploy"
	kvengine "github.com/kvlint/kvlint/engine"
)

// resolveRelease says which engine release a server runs, first match wins:
// the image table's row for its image (the tag's release; a floating tag
// such as latest carries none and is judged against the newest release),
// then .kvlint.yaml engine_release: for the file's directory. Unknown
// leaves Version empty: the server is judged against the newest release and
// its findings say so. upgrade (--engine-release) then moves the server to
// the given release, keeping the one it ran in From.
func resolveRelease(s *deploy.Server, images *kvengine.ImageTable, cfg *config.Config, upgrade map[deploy.Engine]string) {
	r := deploy.Release{Engine: s.Engine}
	if im, ok := kvengine.LookupImage(images, s.Image); ok && imageOf(im, s.Engine) {
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
		r.From, r.Version, r.Upgrade, r.Floating = r.Version, v, true, false
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
