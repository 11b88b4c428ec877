package deploy_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/engine"
)

// dyn parses a Dynamo command line as a parser would and places it.
func dyn(t *testing.T, name string, source deploy.Source, file, cmd string) *deploy.Server {
	t.Helper()
	var words []deploy.Value
	for _, w := range strings.Fields(cmd) {
		words = append(words, deploy.Known(w, deploy.Span{File: file, Line: 1, Col: 1}))
	}
	s, _, ok := engine.Server(words, nil)
	if !ok {
		t.Fatalf("%q: not a launch", cmd)
	}
	s.Name, s.Source, s.Span = name, source, deploy.Span{File: file, Line: 1, Col: 1}
	return s
}

func TestGroupDynamo(t *testing.T) {
	const (
		front   = "python3 -m dynamo.frontend"
		prefill = "python3 -m dynamo.sglang --model-path m --disaggregation-mode prefill"
		decode  = "python3 -m dynamo.sglang --model-path m --disaggregation-mode decode"
	)
	tests := []struct {
		name    string
		servers func() []*deploy.Server
		want    []string
		linked  int // workers the frontend's route reaches
	}{
		{"one script", func() []*deploy.Server {
			return []*deploy.Server{dyn(t, "f", "shell", "a.sh", front), dyn(t, "p", "shell", "a.sh", prefill), dyn(t, "d", "shell", "a.sh", decode)}
		}, []string{"a.sh(disaggregated): f, p, d"}, 2},
		{"scoped namespace", func() []*deploy.Server {
			return []*deploy.Server{
				dyn(t, "f", "shell", "a.sh", front+" --namespace prod"),
				dyn(t, "p", "shell", "a.sh", prefill+" --namespace prod"),
				dyn(t, "d", "shell", "a.sh", decode+" --namespace staging"),
			}
			// The decode worker registers where the frontend does not look.
		}, []string{"a.sh(disaggregated): f, p", "d(disaggregated): d"}, 1},
		{"namespace prefix", func() []*deploy.Server {
			return []*deploy.Server{
				dyn(t, "f", "shell", "a.sh", front+" --namespace-prefix prod"),
				dyn(t, "p", "shell", "a.sh", prefill+" --namespace prod-a"),
				dyn(t, "d", "shell", "a.sh", decode+" --namespace dev"),
			}
		}, []string{"a.sh(disaggregated): f, p", "d(disaggregated): d"}, 1},
		{"other script", func() []*deploy.Server {
			return []*deploy.Server{dyn(t, "f", "shell", "a.sh", front), dyn(t, "p", "shell", "b.sh", prefill)}
		}, []string{"f(colocated): f", "p(disaggregated): p"}, 0},
		{"plain SGLang is not discovered", func() []*deploy.Server {
			plain := dyn(t, "s", "shell", "a.sh", "python3 -m sglang.launch_server --model-path m")
			return []*deploy.Server{dyn(t, "f", "shell", "a.sh", front), plain}
		}, []string{"f(colocated): f", "s(colocated): s"}, 0},
		{"two graphs in one manifest", func() []*deploy.Server {
			return []*deploy.Server{
				dyn(t, "g1/Frontend", "kubernetes", "g.yaml", front), dyn(t, "g1/prefill", "kubernetes", "g.yaml", prefill),
				dyn(t, "g2/Frontend", "kubernetes", "g.yaml", front), dyn(t, "g2/decode", "kubernetes", "g.yaml", decode),
			}
		}, []string{"g1(disaggregated): g1/Frontend, g1/prefill", "g2(disaggregated): g2/Frontend, g2/decode"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := deploy.Group(tt.servers(), nil)
			if got := groups(ds); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("groups %q, want %q", got, tt.want)
			}
			if len(ds[0].Links) != 1 || len(ds[0].Links[0].Servers) != tt.linked {
				t.Errorf("links %+v, want the frontend's route reaching %d workers", ds[0].Links, tt.linked)
			}
		})
	}
}
