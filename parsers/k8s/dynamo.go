package k8s

import (
	"path"
	"regexp"

	"gopkg.in/yaml.v3"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/engine"
	"github.com/kvlint/kvlint/parsers/yamlsrc"
)

// dynamoModules are NVIDIA Dynamo's engine workers and the engine whose
// flags each takes: `python3 -m dynamo.sglang` parses SGLang's ServerArgs
// from what its own parser leaves (ai-dynamo/dynamo
// components/src/dynamo/sglang/args.py parse_args: parse_known_args with
// Dynamo's groups, then ServerArgs.add_cli_args on the rest), and
// dynamo.vllm does the same with vLLM's engine arguments.
var dynamoModules = map[string]engine.Program{
	"dynamo.sglang": engine.SGLangServer,
	"dynamo.vllm":   engine.VLLMServer,
}

var pythonWord = regexp.MustCompile(`^python(\d+(\.\d+)?)?$`)

// dynamoServer recognises `python3 -m dynamo.sglang ARGS` and parses ARGS
// with the engine's flag table. Dynamo's own flags (--endpoint,
// --migration-limit, its router and runtime groups) are not in that table,
// so unknown-flag issues are dropped for these launches: kvlint cannot tell
// a Dynamo flag from a misspelt engine flag here.
func dynamoServer(words []deploy.Value, read engine.ReadFile) (*deploy.Server, []*diag.Diagnostic, bool) {
	i := 0
	for i < len(words) && words[i].Known && (words[i].Raw == "exec" || words[i].Raw == "env") {
		i++
	}
	if i+2 >= len(words) || !words[i].Known || !pythonWord.MatchString(path.Base(words[i].Raw)) ||
		words[i+1].Raw != "-m" || !words[i+2].Known {
		return nil, nil, false
	}
	prog, ok := dynamoModules[words[i+2].Raw]
	if !ok {
		return nil, nil, false
	}
	srv, res := engine.ServerFromLaunch(engine.Launch{Program: prog, Command: words[i+2], Argv: words[i+3:]}, read)
	kept := srv.FlagIssues[:0]
	for _, fi := range srv.FlagIssues {
		if fi.Kind != deploy.FlagUnknown {
			kept = append(kept, fi)
		}
	}
	srv.FlagIssues = kept
	return srv, res.Errors, true
}

// dynamoGPUs is the GPU count of a Dynamo service (v1alpha1
// spec.services.<name>.resources.limits.gpu), which the operator turns into
// the main container's nvidia.com/gpu limit.
func (p *parser) dynamoGPUs(path []step) deploy.Value {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].node.Kind != yaml.MappingNode {
			continue
		}
		if n := yamlsrc.Path(path[i].node, "resources", "limits", "gpu"); n != nil && n.Kind == yaml.ScalarNode {
			return p.scalar(n)
		}
	}
	return deploy.Value{}
}
