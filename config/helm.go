package config

import (
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// HelmRelease is how to render a chart: `helm template NAME CHART -n
// NAMESPACE -f VALUES... --set SET...`. Under `helm:` in .kvlint.yaml each
// chart path (relative to the file) maps to one release or a list of them,
// so a chart can be checked with each environment's values:
//
//	helm:
//	  charts/sglang:
//	    values: [charts/sglang/values-prod.yaml]
//	    set: [decode.replicas=4]
//	  charts/vllm:
//	    - values: [envs/dev.yaml]
//	    - values: [envs/prod.yaml]
//	      release: prod
type HelmRelease struct {
	// Values are values files, relative to the configuration file, applied
	// in order after the chart's values.yaml.
	Values []string
	// Set are --set assignments (key=value), applied after Values.
	Set []HelmSet
	// Release and Namespace name the release; empty means helm template's
	// defaults (release-name, default).
	Release, Namespace string
}

// HelmSet is one --set assignment with where it is written.
type HelmSet struct {
	Expr         string
	Line, Column int // of the value in .kvlint.yaml
}

// HelmReleases is the one release or the list of releases of one chart.
type HelmReleases []HelmRelease

// UnmarshalYAML accepts a release mapping or a list of them.
func (rs *HelmReleases) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.MappingNode:
		var r HelmRelease
		if err := r.UnmarshalYAML(n); err != nil {
			return err
		}
		*rs = HelmReleases{r}
		return nil
	case yaml.SequenceNode:
		var out HelmReleases
		for _, it := range n.Content {
			var r HelmRelease
			if err := r.UnmarshalYAML(it); err != nil {
				return err
			}
			out = append(out, r)
		}
		*rs = out
		return nil
	}
	return nodeErrorf(n, "a helm chart entry is a mapping with values, set, release and namespace, or a list of them")
}

// UnmarshalYAML reads one release, rejecting unknown keys.
func (r *HelmRelease) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return nodeErrorf(n, "a helm release is a mapping with values, set, release and namespace")
	}
	*r = HelmRelease{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "values":
			list, err := stringList(v, "values")
			if err != nil {
				return err
			}
			for _, s := range list {
				r.Values = append(r.Values, s.Value)
			}
		case "set":
			list, err := stringList(v, "set")
			if err != nil {
				return err
			}
			for _, s := range list {
				if !strings.Contains(s.Value, "=") {
					return nodeErrorf(s, "set entries are key=value, not %q", s.Value)
				}
				r.Set = append(r.Set, HelmSet{Expr: s.Value, Line: s.Line, Column: s.Column})
			}
		case "release", "namespace":
			if v.Kind != yaml.ScalarNode {
				return nodeErrorf(v, "%s must be a name", k.Value)
			}
			if k.Value == "release" {
				r.Release = strings.TrimSpace(v.Value)
			} else {
				r.Namespace = strings.TrimSpace(v.Value)
			}
		default:
			return nodeErrorf(k, "unknown key %q in a helm release (values, set, release, namespace)", k.Value)
		}
	}
	return nil
}

// stringList reads a list of strings, or one string as a list of one.
func stringList(v *yaml.Node, key string) ([]*yaml.Node, error) {
	switch v.Kind {
	case yaml.ScalarNode:
		return []*yaml.Node{v}, nil
	case yaml.SequenceNode:
		for _, it := range v.Content {
			if it.Kind != yaml.ScalarNode {
				return nil, nodeErrorf(it, "%s must be a list of strings", key)
			}
		}
		return v.Content, nil
	}
	return nil, nodeErrorf(v, "%s must be a list of strings", key)
}

// HelmFor returns the releases configured for the chart at chartPath (as
// discovered: relative to the working directory, or absolute), with values
// paths resolved against the configuration file's directory.
func (c *Config) HelmFor(chartPath string) []HelmRelease {
	if len(c.Helm) == 0 {
		return nil
	}
	want, err := filepath.Abs(chartPath)
	if err != nil {
		return nil
	}
	for key, rs := range c.Helm {
		p := key
		if !filepath.IsAbs(p) {
			p = filepath.Join(c.Dir, p)
		}
		if abs, err := filepath.Abs(p); err != nil || abs != want {
			continue
		}
		out := make([]HelmRelease, len(rs))
		for i, r := range rs {
			r.Values = append([]string(nil), r.Values...)
			for j, v := range r.Values {
				if !filepath.IsAbs(v) {
					r.Values[j] = relTo(filepath.Join(c.Dir, v))
				}
			}
			out[i] = r
		}
		return out
	}
	return nil
}

// relTo shortens an absolute or joined path to one relative to the working
// directory when it lies below it, as users write paths.
func relTo(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	wd, err := filepath.Abs(".")
	if err != nil {
		return p
	}
	if rel, err := filepath.Rel(wd, abs); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}
