package dockerfile

import (
	"hash/maphash"

	"github.com/kvlint/kvlint/deploy"
)

// envMap is a stage's ENV: a persistent hash trie, so a stage that builds
// on another (FROM base AS next) shares base's variables and an ENV in it
// copies only the path to the one key it sets. Copying the whole map at a
// stage's first ENV made a chain of n stages that each set one variable
// cost O(n²) in time and memory; here each ENV costs O(log n).
//
// The zero value (nil) is the empty map; a map is never changed once made.
type envMap struct {
	root *envNode
	n    int
}

// envSeed hashes every name of one process the same way.
var envSeed = maphash.MakeSeed()

const envBits = 4

// envNode is either a leaf (the names whose hashes are all equal) or an
// inner node of 1<<envBits children, indexed by the next envBits bits of
// the hash.
type envNode struct {
	kids *[1 << envBits]*envNode
	hash uint64
	keys []string
	vals []deploy.Value
}

func (m *envMap) get(name string) (deploy.Value, bool) {
	if m == nil {
		return deploy.Value{}, false
	}
	h := maphash.String(envSeed, name)
	n := m.root
	for shift := 0; n != nil; shift += envBits {
		if n.kids == nil {
			if n.hash == h {
				for i, k := range n.keys {
					if k == name {
						return n.vals[i], true
					}
				}
			}
			return deploy.Value{}, false
		}
		n = n.kids[(h>>shift)&(1<<envBits-1)]
	}
	return deploy.Value{}, false
}

// with returns the map with name set to v; m itself is unchanged.
func (m *envMap) with(name string, v deploy.Value) *envMap {
	var root *envNode
	size := 0
	if m != nil {
		root, size = m.root, m.n
	}
	h := maphash.String(envSeed, name)
	root, added := insertEnv(root, 0, h, name, v)
	if added {
		size++
	}
	return &envMap{root: root, n: size}
}

// insertEnv copies the path from n to the leaf for h. The depth is bounded
// by the 64 bits of the hash (64/envBits levels): two different hashes
// part at some level, equal ones share a leaf.
func insertEnv(n *envNode, shift uint, h uint64, name string, v deploy.Value) (*envNode, bool) {
	switch {
	case n == nil:
		return &envNode{hash: h, keys: []string{name}, vals: []deploy.Value{v}}, true
	case n.kids == nil && n.hash == h:
		out := &envNode{hash: h, keys: append([]string(nil), n.keys...), vals: append([]deploy.Value(nil), n.vals...)}
		for i, k := range out.keys {
			if k == name {
				out.vals[i] = v
				return out, false
			}
		}
		out.keys, out.vals = append(out.keys, name), append(out.vals, v)
		return out, true
	case n.kids == nil:
		// A leaf of another hash: push it one level down and retry.
		inner := &envNode{kids: new([1 << envBits]*envNode)}
		inner.kids[(n.hash>>shift)&(1<<envBits-1)] = n
		return insertEnv(inner, shift, h, name, v)
	}
	out := &envNode{kids: new([1 << envBits]*envNode)}
	*out.kids = *n.kids
	i := (h >> shift) & (1<<envBits - 1)
	kid, added := insertEnv(n.kids[i], shift+envBits, h, name, v)
	out.kids[i] = kid
	return out, added
}

// each calls f for every variable, in no particular order.
func (m *envMap) each(f func(name string, v deploy.Value)) {
	if m == nil {
		return
	}
	var walk func(n *envNode)
	walk = func(n *envNode) {
		if n == nil {
			return
		}
		if n.kids == nil {
			for i, k := range n.keys {
				f(k, n.vals[i])
			}
			return
		}
		for _, k := range n.kids {
			walk(k)
		}
	}
	walk(m.root)
}

func (m *envMap) len() int {
	if m == nil {
		return 0
	}
	return m.n
}
