package engine

import (
	"slices"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

func TestParseImageRef(t *testing.T) {
	for in, want := range map[string]ImageRef{
		"vllm/vllm-openai:v0.8.5":                     {Repository: "vllm/vllm-openai", Tag: "v0.8.5"},
		"docker.io/vllm/vllm-openai":                  {Repository: "vllm/vllm-openai", Tag: "latest"},
		"docker.io/library/python:3.12":               {Repository: "python", Tag: "3.12"},
		"localhost:5000/team/sglang:v1":               {Repository: "localhost:5000/team/sglang", Tag: "v1"},
		"nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.4.0": {Repository: "nvcr.io/nvidia/ai-dynamo/vllm-runtime", Tag: "0.4.0"},
		"lmsysorg/sglang@sha256:abc":                  {Repository: "lmsysorg/sglang", Digest: "sha256:abc"},
		"LMSysOrg/SGLang:v0.4.6.post1-cu124":          {Repository: "lmsysorg/sglang", Tag: "v0.4.6.post1-cu124"},
	} {
		got, ok := ParseImageRef(in)
		if !ok || got != want {
			t.Errorf("ParseImageRef(%q) = %+v, %v; want %+v", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "a b", ":tag"} {
		if _, ok := ParseImageRef(bad); ok {
			t.Errorf("ParseImageRef(%q) accepted", bad)
		}
	}
}

func TestImageTableUserRowsFirstAndMostSpecific(t *testing.T) {
	tab := NewImageTable([]Image{
		{Repository: "corp/*", Tags: "*", Engine: deploy.EngineSGLang, Entrypoint: []string{"a"}},
		{Repository: "corp/llm", Tags: "v2.*", Engine: deploy.EngineVLLM, Entrypoint: []string{"b"}},
		{Repository: "corp/llm", Tags: "v2.1", Engine: deploy.EngineVLLM, Entrypoint: []string{"c"}},
	})
	for ref, want := range map[string]string{"corp/llm:v2.1": "c", "corp/llm:v2.0": "b", "corp/llm:v3": "a", "corp/other": "a"} {
		r, _ := ParseImageRef(ref)
		im, ok := tab.Lookup(r)
		if !ok || im.Entrypoint[0] != want {
			t.Errorf("%s: %v %v, want entrypoint %s", ref, im.Entrypoint, ok, want)
		}
	}
	if _, ok := tab.Lookup(ImageRef{Repository: "nobody/knows", Tag: "1"}); ok {
		t.Error("an unknown image matched")
	}
}

func TestContainerArgv(t *testing.T) {
	img := deploy.Value{Raw: "x", Known: true, Span: deploy.Span{File: "f", Line: 3, Col: 8}}
	im := Image{Entrypoint: []string{"vllm", "serve"}, Cmd: []string{"--help"}}
	w := func(s ...string) []deploy.Value {
		var out []deploy.Value
		for _, x := range s {
			out = append(out, deploy.Value{Raw: x, Known: true})
		}
		return out
	}
	raw := func(vs []deploy.Value) []string {
		var out []string
		for _, v := range vs {
			out = append(out, v.Raw)
		}
		return out
	}
	for _, c := range []struct {
		ep, cmd []deploy.Value
		want    []string
	}{
		{nil, nil, []string{"vllm", "serve", "--help"}},
		{nil, w("--model", "m"), []string{"vllm", "serve", "--model", "m"}},
		{w("python3", "-m", "x"), nil, []string{"python3", "-m", "x"}},
		{w("sh"), w("-c", "y"), []string{"sh", "-c", "y"}},
		{nil, []deploy.Value{}, []string{"vllm", "serve"}},
	} {
		got := ContainerArgv(img, im, c.ep, c.cmd)
		if !slices.Equal(raw(got), c.want) {
			t.Errorf("ContainerArgv(%v, %v) = %v, want %v", raw(c.ep), raw(c.cmd), raw(got), c.want)
		}
	}
	got := ContainerArgv(img, im, nil, nil)
	if got[0].Span != img.Span || len(got[0].Origin) != 1 || got[0].Origin[0].Kind != deploy.StepImage {
		t.Errorf("an image word should carry the image's span and an image step: %+v", got[0])
	}
}
