package engine

import (
	"reflect"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

func TestImageLaunch(t *testing.T) {
	table := NewImageTable([]Image{
		{Repository: "corp/sgl", Tags: "*", Engine: deploy.EngineSGLang, Entrypoint: []string{"python3", "-m", "sglang.launch_server"}, Cmd: []string{"--help"}, Release: "0.4.6", Source: ".kvlint.yaml:3"},
		{Repository: "corp/base", Tags: "*", Cmd: []string{"bash"}, Source: ".kvlint.yaml:9"},
	})
	img := func(s string) deploy.Value {
		return deploy.Known(s, deploy.Span{File: "f.yaml", Line: 4, Col: 12, EndLine: 4, EndCol: 12 + len(s)})
	}
	w := func(s string, col int) deploy.Value {
		return deploy.Known(s, deploy.Span{File: "f.yaml", Line: 6, Col: col, EndLine: 6, EndCol: col + len(s)})
	}
	raws := func(vs []deploy.Value) []string {
		var out []string
		for _, v := range vs {
			out = append(out, v.Raw)
		}
		return out
	}
	args := []deploy.Value{w("--model-path", 10), w("m", 24)}
	for _, tc := range []struct {
		name       string
		image      deploy.Value
		entry, cmd []deploy.Value
		want       []string
		words      []string // the image's words, nil for no ep
		ok         bool
	}{
		{"args after the image entrypoint", img("corp/sgl:1"), nil, args,
			[]string{"python3", "-m", "sglang.launch_server", "--model-path", "m"}, []string{"python3", "-m", "sglang.launch_server"}, true},
		{"nothing set runs entrypoint and cmd", img("corp/sgl"), nil, nil,
			[]string{"python3", "-m", "sglang.launch_server", "--help"}, []string{"python3", "-m", "sglang.launch_server", "--help"}, true},
		{"own entrypoint needs no row", img("unknown/x"), []deploy.Value{w("vllm", 1)}, args,
			[]string{"vllm", "--model-path", "m"}, nil, true},
		{"unknown image with args", img("unknown/x"), nil, args, nil, nil, false},
		{"placeholder image", deploy.Unknown("{{ .Values.image }}", deploy.Span{File: "f.yaml", Line: 1, Col: 1}), nil, args, nil, nil, false},
		{"image with cmd only: args replace it", img("corp/base:2"), nil, args,
			[]string{"--model-path", "m"}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			argv, ep, ok := ImageLaunch(table, tc.image, tc.entry, tc.cmd)
			if ok != tc.ok || !reflect.DeepEqual(raws(argv), tc.want) {
				t.Fatalf("argv %q ok %v, want %q %v", raws(argv), ok, tc.want, tc.ok)
			}
			if tc.words == nil {
				if ep != nil {
					t.Fatalf("ep = %+v, want nil", ep)
				}
				return
			}
			if ep == nil || !reflect.DeepEqual(ep.Words, tc.words) || ep.Image != tc.image.Raw || ep.Source != ".kvlint.yaml:3" || ep.Release != "0.4.6" {
				t.Fatalf("ep = %+v", ep)
			}
			if argv[0].Span != tc.image.Span || argv[len(tc.words)-1].Origin[0].Kind != deploy.StepImage {
				t.Errorf("image words must sit on the image: %+v", argv[0])
			}
		})
	}
}
