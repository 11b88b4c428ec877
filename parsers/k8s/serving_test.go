package k8s

import (
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

// Every serving CRD kind: the servers found, their names and roles, and one
// value each with its exact position.
func TestServingCRDs(t *testing.T) {
	type want struct {
		name   string
		engine deploy.Engine
		role   deploy.Role
		flag   string
		raw    string
		at     pos
	}
	tests := []struct {
		file    string
		servers []want
	}{
		{"serving/lws-pd.yaml", []want{
			{"ds-decode/leader", deploy.EngineSGLang, deploy.RoleDecode, "--context-length", "32768", pos{21, 34, 39}},
			{"ds-decode/worker", deploy.EngineSGLang, deploy.RoleDecode, "--tp-size", "16", pos{30, 27, 29}},
			{"ds-lb", deploy.EngineSGLangRouter, deploy.RoleRouter, "--prefill", "http://ds-prefill:30000", pos{47, 25, 48}},
		}},
		{"serving/rbg-v1alpha1.yaml", []want{
			{"qwen-pd/router", deploy.EngineSGLangRouter, deploy.RoleRouter, "--prefill-selector", "pd_role=prefill", pos{23, 19, 34}},
			{"qwen-pd/prefill", deploy.EngineSGLang, deploy.RolePrefill, "--mem-fraction-static", "0.8", pos{42, 41, 44}},
			// The flag is absent and $EXTRA_ARGS could hold it: the role
			// name decides.
			{"qwen-pd/decode", deploy.EngineSGLang, deploy.RoleDecode, "--max-total-tokens", "16384", pos{61, 50, 55}},
		}},
		{"serving/rbg-v1alpha2.yaml", []want{
			{"dsv3/prefill", deploy.EngineSGLang, deploy.RolePrefill, "--page-size", "64", pos{18, 81, 83}},
			{"dsv3/decode", deploy.EngineSGLang, deploy.RoleDecode, "--tp-size", "16", pos{31, 31, 33}},
		}},
		{"serving/kserve.yaml", []want{
			{"sglang-runtime", deploy.EngineSGLang, deploy.RoleColocated, "--context-length", "65536", pos{15, 76, 81}},
			// The InferenceService's args replace the runtime's; its
			// resources override the runtime's GPU count.
			{"chat", deploy.EngineSGLang, deploy.RoleColocated, "--max-total-tokens", "32768", pos{30, 105, 110}},
			{"custom", deploy.EngineSGLang, deploy.RoleColocated, "--tp-size", "1", pos{43, 106, 107}},
		}},
		{"serving/llmisvc.yaml", []want{
			// Flags from VLLM_ADDITIONAL_ARGS, split as a shell splits them.
			{"qwen-pd", deploy.EngineVLLM, deploy.RoleDecode, "--gpu-memory-utilization", "0.9", pos{18, 68, 71}},
			{"qwen-pd/prefill", deploy.EngineVLLM, deploy.RolePrefill, "--block-size", "64", pos{28, 58, 60}},
		}},
		{"serving/ome.yaml", []want{
			{"srt-llama-pd/engine", deploy.EngineSGLang, deploy.RolePrefill, "--mem-fraction-static", "0.8", pos{13, 113, 116}},
			{"srt-llama-pd/decoder", deploy.EngineSGLang, deploy.RoleDecode, "--max-total-tokens", "65536", pos{21, 109, 114}},
			{"srt-llama-pd/router", deploy.EngineSGLangRouter, deploy.RoleRouter, "--decode", "http://decode:30000", pos{28, 126, 145}},
			{"srt-small/engine", deploy.EngineSGLang, deploy.RoleColocated, "--context-length", "8192", pos{39, 98, 102}},
		}},
		{"serving/dynamo.yaml", []want{
			{"sglang-disagg/Frontend", deploy.EngineDynamoFrontend, deploy.RoleRouter, "--http-port", "8000", pos{15, 65, 69}},
			{"sglang-disagg/prefill", deploy.EngineSGLang, deploy.RolePrefill, "--page-size", "16", pos{26, 63, 65}},
			{"sglang-disagg/decode", deploy.EngineSGLang, deploy.RoleDecode, "--max-total-tokens", "8192", pos{37, 106, 110}},
			{"graph/worker-p", deploy.EngineSGLang, deploy.RolePrefill, "--model-path", "Qwen/Qwen3-0.6B", pos{54, 39, 54}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			servers, errs := parseFixture(t, tt.file)
			noErrors(t, errs)
			if len(servers) != len(tt.servers) {
				var names []string
				for _, s := range servers {
					names = append(names, s.Name)
				}
				t.Errorf("servers %q, want %d", names, len(tt.servers))
			}
			for _, w := range tt.servers {
				s := byName(t, servers, w.name)
				if s.Engine != w.engine || s.Role != w.role {
					t.Errorf("%s: engine %s role %q, want %s %q", w.name, s.Engine, s.Role, w.engine, w.role)
				}
				checkValue(t, w.name+" "+w.flag, s.Args[w.flag], w.raw, true, tt.file, w.at)
			}
		})
	}
}

func TestServingDetails(t *testing.T) {
	servers, _ := parseFixture(t, "serving/kserve.yaml")
	chat := byName(t, servers, "chat")
	if chat.GPUCount.Raw != "2" {
		t.Errorf("chat GPUs %q: the InferenceService's resources override the runtime's", chat.GPUCount.Raw)
	}
	if _, ok := chat.Args["--port"]; !ok {
		t.Errorf("chat lost --port")
	}
	servers, _ = parseFixture(t, "serving/dynamo.yaml")
	p := byName(t, servers, "sglang-disagg/prefill")
	if p.GPUCount.Raw != "1" {
		t.Errorf("dynamo GPUs %q, from services.prefill.resources.limits.gpu", p.GPUCount.Raw)
	}
	for _, fi := range p.FlagIssues {
		if fi.Kind == deploy.FlagUnknown {
			t.Errorf("Dynamo's own flag reported: %+v", fi)
		}
	}
	if ep := p.Args["--endpoint"]; ep.Raw != "dyn://dynamo.prefill.generate" || !p.Dynamo {
		t.Errorf("Dynamo's --endpoint %q (Dynamo %v), want it kept with the worker's flags", ep.Raw, p.Dynamo)
	}
	servers, _ = parseFixture(t, "serving/llmisvc.yaml")
	d := byName(t, servers, "qwen-pd")
	if d.Model.Raw != "Qwen/Qwen2.5-7B-Instruct" && (len(d.Positionals) == 0 || d.Positionals[0].Raw != "Qwen/Qwen2.5-7B-Instruct") {
		t.Errorf("LLMInferenceService model %q positionals %v", d.Model.Raw, d.Positionals)
	}
	// The program words point at the variable that brings the flags in.
	checkSpan(t, "llmisvc launch", d.Span, "serving/llmisvc.yaml", pos{17, 19, 39})
}

// An InferenceService whose runtime is not in the checked files cannot be
// read; its args are reported, not passed over.
func TestInferenceServiceWithoutRuntime(t *testing.T) {
	data := []byte(`apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {name: lost}
spec:
  predictor:
    model:
      modelFormat: {name: huggingface}
      runtime: elsewhere
      args: [--max-total-tokens, "1024"]
`)
	servers, errs := Parse("isvc.yaml", data, noFiles)
	if len(servers) != 0 || len(errs) != 1 || errs[0].Span.Line != 9 {
		t.Fatalf("servers %d errors %v", len(servers), errs)
	}
}

// Structure and labels give a role only where the flags do not decide it.
func TestRolePrecedence(t *testing.T) {
	tests := []struct {
		name string
		srv  deploy.Server
		hint deploy.Role
		want deploy.Role
	}{
		{"explicit mode wins", deploy.Server{Engine: deploy.EngineSGLang, Role: deploy.RoleDecode,
			Args: map[string]deploy.Value{"--disaggregation-mode": deploy.Known("decode", deploy.Span{})}}, deploy.RolePrefill, deploy.RoleDecode},
		{"absent mode takes the structure", deploy.Server{Engine: deploy.EngineSGLang, Role: deploy.RoleColocated, Args: map[string]deploy.Value{}}, deploy.RolePrefill, deploy.RolePrefill},
		{"unknown mode takes the structure", deploy.Server{Engine: deploy.EngineSGLang, Role: "",
			Args: map[string]deploy.Value{"--disaggregation-mode": deploy.Unknown("$MODE", deploy.Span{})}}, deploy.RoleDecode, deploy.RoleDecode},
		{"router program stays router", deploy.Server{Engine: deploy.EngineSGLangRouter, Role: deploy.RoleRouter}, deploy.RolePrefill, deploy.RoleRouter},
		{"engine under a router key stays an engine", deploy.Server{Engine: deploy.EngineSGLang, Role: deploy.RoleColocated, Args: map[string]deploy.Value{}}, deploy.RoleRouter, deploy.RoleColocated},
		{"vLLM kv_role decides", deploy.Server{Engine: deploy.EngineVLLM, Role: deploy.RoleColocated, Args: map[string]deploy.Value{
			"--kv-transfer-config": deploy.Known(`{"kv_connector":"NixlConnector","kv_role":"kv_consumer"}`, deploy.Span{})}}, deploy.RolePrefill, deploy.RoleDecode},
		{"vLLM kv_both leaves it to the structure", deploy.Server{Engine: deploy.EngineVLLM, Role: deploy.RoleColocated, Args: map[string]deploy.Value{
			"--kv-transfer-config": deploy.Known(`{"kv_role":"kv_both"}`, deploy.Span{})}}, deploy.RolePrefill, deploy.RolePrefill},
	}
	for _, tt := range tests {
		s := tt.srv
		applyRole(&s, tt.hint)
		if s.Role != tt.want {
			t.Errorf("%s: role %q, want %q", tt.name, s.Role, tt.want)
		}
	}
}
