package capacity

import (
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

// server builds an SGLang server as a parser would: canonical flags with
// known values and a span per value. args are flag/value pairs; a flag whose
// value is "" is a boolean that was given.
func server(model, gpu string, args ...string) *deploy.Server {
	s := &deploy.Server{
		Engine: deploy.EngineSGLang,
		Name:   "test",
		Args:   map[string]deploy.Value{},
		Span:   deploy.Span{File: "serve.sh", Line: 1, Col: 1, EndLine: 1, EndCol: 7},
	}
	if model != "" {
		s.Model = deploy.Known(model, deploy.Span{File: "serve.sh", Line: 1, Col: 40, EndLine: 1, EndCol: 40 + len(model)})
	}
	if gpu != "" {
		s.GPU = deploy.Known(gpu, deploy.Span{File: "node.yaml", Line: 3, Col: 5, EndLine: 3, EndCol: 5 + len(gpu)})
	}
	for i := 0; i+1 < len(args); i += 2 {
		raw := args[i+1]
		if raw == "" {
			raw = "true"
		}
		s.Args[args[i]] = deploy.Known(raw, deploy.Span{File: "serve.sh", Line: 2 + i, Col: 3, EndLine: 2 + i, EndCol: 3 + len(raw)})
	}
	return s
}

func catalogModel(t *testing.T, id string) *Model {
	t.Helper()
	m, ok := Default().Model(id)
	if !ok {
		t.Fatalf("catalog has no %s", id)
	}
	return m
}

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

func containsText(list []string, part string) bool {
	for _, s := range list {
		if strings.Contains(s, part) {
			return true
		}
	}
	return false
}
