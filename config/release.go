package config

import (
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/kvlint/kvlint/deploy"
)

// EngineReleases is `engine_release:` in .kvlint.yaml: the engine release
// the servers under this file run, per engine, when neither the image tag
// nor a pip pin says so:
//
//	engine_release:
//	  vllm: 0.6.3
//	  sglang: 0.4.6.post1
//
// A nested .kvlint.yaml sets it for the deployments beneath it; an images:
// entry's release sets it for one image.
type EngineReleases map[deploy.Engine]EngineRelease

// EngineRelease is one entry, with where it was written.
type EngineRelease struct {
	Version string
	Line    int
	Column  int
}

// UnmarshalYAML reads the mapping, keeping each value's position.
func (e *EngineReleases) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return nodeErrorf(n, "engine_release must be a mapping of engine (sglang, vllm) to release, e.g. vllm: 0.6.3")
	}
	out := EngineReleases{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		eng := deploy.Engine(k.Value)
		if eng != deploy.EngineSGLang && eng != deploy.EngineVLLM {
			return nodeErrorf(k, "engine_release: unknown engine %q (known: sglang, vllm)", k.Value)
		}
		if v.Kind != yaml.ScalarNode || !release.MatchString(trimV(v.Value)) {
			return nodeErrorf(v, "engine_release.%s must be a release number such as 0.6.3, not %q", k.Value, v.Value)
		}
		out[eng] = EngineRelease{Version: trimV(v.Value), Line: v.Line, Column: v.Column}
	}
	*e = out
	return nil
}

func trimV(s string) string {
	if len(s) > 1 && s[0] == 'v' {
		return s[1:]
	}
	return s
}

// Where is the entry's position for a finding: ".kvlint.yaml:3:9".
func (e EngineRelease) Where(path string) string {
	return fmt.Sprintf("%s:%d:%d", path, e.Line, e.Column)
}
