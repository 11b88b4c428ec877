package yamlsrc

import (
	"testing"

	"gopkg.in/yaml.v3"
)

// slowGet is Get through Pairs only, the reference getPlain must agree with.
func slowGet(m *yaml.Node, key string) *yaml.Node {
	for _, p := range Pairs(m) {
		if p.Key.Value == key {
			return p.Value
		}
	}
	return nil
}

func TestGetAgreesWithPairs(t *testing.T) {
	docs := []string{
		"a: 1\nb: 2\n",
		"a: 1\na: 2\nb: 3\n", // the last duplicate wins
		"base: &b {x: 1, y: 2}\nm:\n  <<: *b\n  y: 3\n",
		"m:\n  x: 0\n  <<: [{x: 1, z: 4}, {z: 5}]\n",
		"m:\n  !!merge <<: {q: 1}\n",
		"m:\n  \"<<\": {q: 1}\n  q: 2\n", // a quoted << is a plain key
		"al: &v 7\nm: {k: *v, [1]: 2}\n",
		"m: null\n",
		"s: [1, 2]\n",
	}
	for _, d := range docs {
		var root yaml.Node
		if err := yaml.Unmarshal([]byte(d), &root); err != nil {
			t.Fatalf("%q: %v", d, err)
		}
		var visit func(n *yaml.Node)
		visit = func(n *yaml.Node) {
			for _, key := range []string{"a", "b", "m", "x", "y", "z", "q", "k", "<<", "absent"} {
				if got, want := Get(n, key), slowGet(n, key); got != want {
					t.Errorf("%q: Get(line %d, %q) = %v, Pairs say %v", d, n.Line, key, got, want)
				}
			}
			for _, c := range n.Content {
				visit(c)
			}
		}
		visit(&root)
	}
}
