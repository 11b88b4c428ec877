package config

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/engine"
)

func TestImages(t *testing.T) {
	text := `tenancy: single
images:
  - image: registry.corp/llm/sglang-server*
    engine: sglang
    entrypoint: [python3, -m, sglang.launch_server]
    release: "0.4.6"
  - image: docker.io/library/Mirror:v0.8.*
    engine: vllm
    entrypoint: [vllm, serve]
    cmd: [--help]
  - image: corp/base
    cmd: [bash]
`
	c, err := Parse("k.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	want := []engine.Image{
		{Repository: "registry.corp/llm/sglang-server*", Tags: "*", Engine: "sglang",
			Entrypoint: []string{"python3", "-m", "sglang.launch_server"}, Release: "0.4.6", Source: ".kvlint.yaml:3"},
		{Repository: "mirror", Tags: "v0.8.*", Engine: "vllm", Entrypoint: []string{"vllm", "serve"}, Cmd: []string{"--help"}, Source: ".kvlint.yaml:7"},
		{Repository: "corp/base", Tags: "*", Cmd: []string{"bash"}, Source: ".kvlint.yaml:11"},
	}
	if got := c.ImageRows(); !reflect.DeepEqual(got, want) {
		t.Errorf("rows\n%+v\nwant\n%+v", got, want)
	}
	// The rows match as the table matches references.
	tbl := engine.NewImageTable(c.ImageRows())
	ref, _ := engine.ParseImageRef("registry.corp/llm/sglang-server-h100:2025.06")
	if im, ok := tbl.Lookup(ref); !ok || im.Source != ".kvlint.yaml:3" {
		t.Errorf("lookup = %+v %v", im, ok)
	}
}

func TestImagesRejects(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"images:\n  - image: a/b\n    engine: tgi\n    entrypoint: [x]\n", `k.yaml:3:13: engine must be "sglang" or "vllm", not "tgi"`},
		{"images:\n  - image: a/b\n    engine: sglang\n", "k.yaml:3:13: an image that runs sglang needs its entrypoint"},
		{"images:\n  - image: a/b\n    engine: vllm\n    entrypoint: []\n", "k.yaml:4:17: an image that runs vllm needs its entrypoint"},
		{"images:\n  - image: a/b\n    engine: vllm\n    entrypoint: [/start.sh]\n", "k.yaml:4:17: entrypoint [/start.sh] does not start vllm"},
		{"images:\n  - image: a/b\n    engine: vllm\n    entrypoint: [python3, -m, sglang.launch_server]\n", "k.yaml:4:17: entrypoint [python3, -m, sglang.launch_server] does not start vllm"},
		{"images:\n  - engine: vllm\n    entrypoint: [vllm, serve]\n", "k.yaml:2:5: an images entry needs image"},
		{"images:\n  - image: a/*/b\n", "k.yaml:2:12: image may end in *"},
		{"images:\n  - image: a/b:[\n", "k.yaml:2:12: the tag pattern \"[\" is not a glob"},
		{"images:\n  - image: a/b@sha256:00\n", "k.yaml:2:12: image is a repository"},
		{"images:\n  - image: a/b\n    entrypoint: vllm serve\n", "k.yaml:3:17: entrypoint must be a list of strings"},
		{"images:\n  - image: a/b\n    release: latest\n", `k.yaml:3:14: release must be an engine version such as "0.8.5", not "latest"`},
		{"images:\n  - image: a/b\n    tag: v1\n", `k.yaml:3:5: unknown key "tag" in an images entry`},
		{"images:\n  image: a/b\n", "k.yaml:2:3: images must be a list"},
	} {
		_, err := Parse("k.yaml", []byte(tc.text))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want error starting %q", tc.text, err, tc.want)
		}
	}
}
