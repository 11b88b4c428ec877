package config

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/engine"
)

// ImageEntry is one entry of `images:` in .kvlint.yaml: what an image the
// built-in table does not know (a private build, a mirror) runs when a
// deployment gives it no command of its own.
//
//	images:
//	  - image: registry.corp/llm/sglang-server:*   # repository[*][:tag glob]
//	    engine: sglang                             # sglang | vllm
//	    entrypoint: [python3, -m, sglang.launch_server]
//	    cmd: []                                    # the image's CMD
//	    release: "0.4.6"                           # the engine release it carries
//
// The repository may end in * to match any suffix; the tag is a glob
// (path.Match) and "*" when none is written. Entries come before the
// built-in rows, the most specific match winning.
type ImageEntry struct {
	// Repository and Tags are the pattern, normalized as the image table
	// matches references (Docker Hub's host and library/ dropped).
	Repository, Tags string
	Engine           deploy.Engine
	Entrypoint, Cmd  []string
	Release          string
	// Line is where the entry starts in .kvlint.yaml.
	Line int
}

// ImageEntries is the `images:` list.
type ImageEntries []ImageEntry

// release is an engine version: 0.8.5, 0.4.9.post2, 0.10.1rc1.
var release = regexp.MustCompile(`^[0-9]+(\.[0-9]+)+([.+-]?[0-9A-Za-z]+)*$`)

// UnmarshalYAML reads the list, each mistake placed on its node.
func (es *ImageEntries) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.SequenceNode {
		return nodeErrorf(n, "images must be a list of entries with image, engine, entrypoint, cmd and release")
	}
	out := ImageEntries{}
	for _, it := range n.Content {
		e, err := imageEntry(it)
		if err != nil {
			return err
		}
		out = append(out, e)
	}
	*es = out
	return nil
}

func imageEntry(n *yaml.Node) (ImageEntry, error) {
	if n.Kind != yaml.MappingNode {
		return ImageEntry{}, nodeErrorf(n, "an images entry is a mapping with image, engine, entrypoint, cmd and release")
	}
	e := ImageEntry{Line: n.Line}
	var imageNode, engineNode, entryNode *yaml.Node
	entrySet := false
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "image":
			s, err := scalarString(v, "image")
			if err != nil {
				return e, err
			}
			imageNode = v
			if e.Repository, e.Tags, err = imagePattern(s); err != nil {
				return e, nodeErrorf(v, "%v", err)
			}
		case "engine":
			s, err := scalarString(v, "engine")
			if err != nil {
				return e, err
			}
			switch deploy.Engine(s) {
			case deploy.EngineSGLang, deploy.EngineVLLM:
				e.Engine, engineNode = deploy.Engine(s), v
			default:
				return e, nodeErrorf(v, "engine must be %q or %q, not %q", deploy.EngineSGLang, deploy.EngineVLLM, s)
			}
		case "entrypoint", "cmd":
			words, err := wordList(v, k.Value)
			if err != nil {
				return e, err
			}
			if k.Value == "cmd" {
				e.Cmd = words
			} else {
				e.Entrypoint, entryNode, entrySet = words, v, true
			}
		case "release":
			s, err := scalarString(v, "release")
			if err != nil {
				return e, err
			}
			if !release.MatchString(s) {
				return e, nodeErrorf(v, "release must be an engine version such as \"0.8.5\", not %q", s)
			}
			e.Release = s
		default:
			return e, nodeErrorf(k, "unknown key %q in an images entry (known keys: cmd, engine, entrypoint, image, release)", k.Value)
		}
	}
	if imageNode == nil {
		return e, nodeErrorf(n, "an images entry needs image: the repository (and tag) it describes")
	}
	if e.Engine == "" {
		return e, nil
	}
	// The engine must be what the entrypoint starts: arguments a
	// deployment gives replace the image's CMD and follow its ENTRYPOINT,
	// so an image whose engine is in its CMD runs no engine with them.
	at := entryNode
	if !entrySet {
		at = engineNode
	}
	if len(e.Entrypoint) == 0 {
		return e, nodeErrorf(at, "an image that runs %s needs its entrypoint (the command arguments follow), e.g. entrypoint: %s", e.Engine, exampleEntrypoint(e.Engine))
	}
	words := make([]deploy.Value, len(e.Entrypoint))
	for i, w := range e.Entrypoint {
		words[i] = deploy.Value{Raw: w, Known: true}
	}
	if l, ok := engine.Detect(words); !ok || l.Program.Engine() != e.Engine {
		return e, nodeErrorf(at, "entrypoint [%s] does not start %s: kvlint reads the launch from the entrypoint, e.g. %s", strings.Join(e.Entrypoint, ", "), e.Engine, exampleEntrypoint(e.Engine))
	}
	return e, nil
}

func exampleEntrypoint(e deploy.Engine) string {
	if e == deploy.EngineVLLM {
		return "[vllm, serve]"
	}
	return "[python3, -m, sglang.launch_server]"
}

// imagePattern splits repository[*][:tag glob], normalizing the
// repository as engine.ParseImageRef normalizes a reference.
func imagePattern(s string) (repo, tags string, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", "", fmt.Errorf("image must name a repository")
	}
	if strings.ContainsAny(s, "@ \t") {
		return "", "", fmt.Errorf("image is a repository with an optional :tag glob, not %q (no digest)", s)
	}
	tags = "*"
	if colon, slash := strings.LastIndexByte(s, ':'), strings.LastIndexByte(s, '/'); colon > slash {
		s, tags = s[:colon], s[colon+1:]
		if _, err := path.Match(tags, ""); err != nil || tags == "" {
			return "", "", fmt.Errorf("the tag pattern %q is not a glob", tags)
		}
	}
	star := strings.HasSuffix(s, "*")
	body := strings.TrimSuffix(s, "*")
	if strings.Contains(body, "*") {
		return "", "", fmt.Errorf("image may end in *, but holds no * elsewhere: %q", s)
	}
	ref, ok := engine.ParseImageRef(body)
	if !ok || body == "" {
		return "", "", fmt.Errorf("image must name a repository, not %q", s)
	}
	repo = ref.Repository
	if star {
		repo += "*"
	}
	return repo, tags, nil
}

func scalarString(v *yaml.Node, key string) (string, error) {
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		return "", nodeErrorf(v, "%s must be a string", key)
	}
	return v.Value, nil
}

// wordList reads an exec-form list of words; a plain string is not split,
// as the image's config holds the words themselves.
func wordList(v *yaml.Node, key string) ([]string, error) {
	if v.Kind != yaml.SequenceNode {
		return nil, nodeErrorf(v, "%s must be a list of strings (the exec form, as in the image's config)", key)
	}
	out := []string{}
	for _, it := range v.Content {
		if it.Kind != yaml.ScalarNode || it.Tag == "!!null" {
			return nil, nodeErrorf(it, "%s items must be strings", key)
		}
		out = append(out, it.Value)
	}
	return out, nil
}

// ImageRows are the entries as rows of the image table, each citing its
// line in .kvlint.yaml.
func (c *Config) ImageRows() []engine.Image {
	var out []engine.Image
	for _, e := range c.Images {
		out = append(out, engine.Image{
			Repository: e.Repository, Tags: e.Tags, Engine: e.Engine,
			Entrypoint: e.Entrypoint, Cmd: e.Cmd, Release: e.Release,
			Source: fmt.Sprintf("%s:%d", FileName, e.Line),
		})
	}
	return out
}
