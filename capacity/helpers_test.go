package capacity

import (
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/engine"
)

// server builds an SGLang server as a parser would: the engine parses the
// flags into canonical names with typed values, a span per word. args are
// flag/value pairs; a flag whose value is "" is a boolean that was given; a
// value with spaces between words is several words (--cuda-graph-bs 1 2 4),
// while spaces around one word stay in it (a quoted " 8 ").
func server(model, gpu string, args ...string) *deploy.Server {
	return parsedServer(engine.SGLangServer, model, gpu, args...)
}

func parsedServer(prog engine.Program, model, gpu string, args ...string) *deploy.Server {
	s := &deploy.Server{
		Engine: prog.Engine(),
		Name:   "test",
		Span:   deploy.Span{File: "serve.sh", Line: 1, Col: 1, EndLine: 1, EndCol: 7},
	}
	if model != "" {
		s.Model = deploy.Known(model, deploy.Span{File: "serve.sh", Line: 1, Col: 40, EndLine: 1, EndCol: 40 + len(model)})
	}
	if gpu != "" {
		s.GPU = deploy.Known(gpu, deploy.Span{File: "node.yaml", Line: 3, Col: 5, EndLine: 3, EndCol: 5 + len(gpu)})
	}
	var argv []deploy.Value
	for i := 0; i+1 < len(args); i += 2 {
		flag, raw := args[i], args[i+1]
		argv = append(argv, deploy.Known(flag, deploy.Span{File: "serve.sh", Line: 2 + i, Col: 1, EndLine: 2 + i, EndCol: 1 + len(flag)}))
		words := []string{raw}
		if strings.Contains(strings.TrimSpace(raw), " ") {
			words = strings.Fields(raw)
		}
		col := 2 + len(flag)
		for _, w := range words {
			if w != "" {
				argv = append(argv, deploy.Known(w, deploy.Span{File: "serve.sh", Line: 2 + i, Col: col, EndLine: 2 + i, EndCol: col + len(w)}))
			}
			col += len(w) + 1
		}
	}
	res := engine.Lookup(prog).Parse(argv, nil)
	s.Args, s.FlagIssues = res.Args, res.Issues
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
