package yamlsrc

import (
	"gopkg.in/yaml.v3"
)

// maxAliasHops bounds alias chains; maxMergeDepth bounds nested merge keys.
const (
	maxAliasHops  = 16
	maxMergeDepth = 8
	maxPairs      = 10000 // entries one Pairs call may collect, merges included
)

// Resolve follows aliases to the node they name; nil for nil or a chain that
// does not end.
func Resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode; i++ {
		if i == maxAliasHops {
			return nil
		}
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		return Resolve(n.Content[0])
	}
	return n
}

// Pair is a key and its value in a mapping, aliases resolved.
type Pair struct {
	Key   *yaml.Node
	Value *yaml.Node
}

// Pairs returns the entries of mapping m, with merge keys (<<) expanded the
// way YAML 1.1 defines them: keys written in m win over merged ones, and an
// earlier merged mapping wins over a later one. Nil unless m is a mapping.
func Pairs(m *yaml.Node) []Pair {
	var out []Pair
	w := &merger{seen: map[string]bool{}, done: map[*yaml.Node]bool{}}
	w.pairs(Resolve(m), &out, 0)
	return out
}

// merger collects pairs through merge keys. Each merged mapping is read once
// however often it is merged, and the work is bounded, so merge keys cannot
// be used to make a small file expensive.
type merger struct {
	seen map[string]bool
	done map[*yaml.Node]bool
	work int
}

func (w *merger) pairs(m *yaml.Node, out *[]Pair, depth int) {
	if m == nil || m.Kind != yaml.MappingNode || depth > maxMergeDepth || w.done[m] {
		return
	}
	w.done[m] = true
	w.work += len(m.Content)
	if w.work > 2*maxPairs {
		return
	}
	seen := w.seen
	var merges []*yaml.Node
	// The last of duplicate keys wins, as when the API server decodes JSON.
	mine := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := Resolve(m.Content[i])
		if k == nil || k.Kind != yaml.ScalarNode {
			continue
		}
		if k.Tag == "!!merge" || (k.Value == "<<" && k.Style == 0 && k.Tag != "!!str") {
			merges = append(merges, m.Content[i+1])
			continue
		}
		if seen[k.Value] {
			continue
		}
		if j, ok := mine[k.Value]; ok {
			(*out)[j].Value = Resolve(m.Content[i+1])
			continue
		}
		mine[k.Value] = len(*out)
		*out = append(*out, Pair{Key: k, Value: Resolve(m.Content[i+1])})
	}
	for k := range mine {
		seen[k] = true
	}
	for _, src := range merges {
		src = Resolve(src)
		if src == nil {
			continue
		}
		if src.Kind == yaml.SequenceNode {
			for _, item := range src.Content {
				w.pairs(Resolve(item), out, depth+1)
			}
			continue
		}
		w.pairs(src, out, depth+1)
	}
}

// Get returns the value under key in mapping m, or nil.
func Get(m *yaml.Node, key string) *yaml.Node {
	if v, ok := getPlain(Resolve(m), key); ok {
		return v
	}
	for _, p := range Pairs(m) {
		if p.Key.Value == key {
			return p.Value
		}
	}
	return nil
}

// getPlain is Get without building Pairs, for the common mapping that has
// no merge key (ok is false when m has one, and Pairs must expand it). It
// answers as Pairs would: the last of duplicate keys wins, and a mapping
// too large for Pairs holds nothing.
func getPlain(m *yaml.Node, key string) (v *yaml.Node, ok bool) {
	if m == nil || m.Kind != yaml.MappingNode || len(m.Content) > 2*maxPairs {
		return nil, true
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := Resolve(m.Content[i])
		if k == nil || k.Kind != yaml.ScalarNode {
			continue
		}
		if k.Tag == "!!merge" || (k.Value == "<<" && k.Style == 0 && k.Tag != "!!str") {
			return nil, false
		}
		if k.Value == key {
			v = Resolve(m.Content[i+1])
		}
	}
	return v, true
}

// Path follows keys through nested mappings.
func Path(m *yaml.Node, keys ...string) *yaml.Node {
	for _, k := range keys {
		m = Get(m, k)
		if m == nil {
			return nil
		}
	}
	return m
}

// Str returns the text of a scalar node, and whether n is a scalar that is
// not null.
func Str(n *yaml.Node) (string, bool) {
	n = Resolve(n)
	if n == nil || n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", false
	}
	return n.Value, true
}

// IsNull reports whether n is absent or an explicit null.
func IsNull(n *yaml.Node) bool {
	n = Resolve(n)
	return n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}
