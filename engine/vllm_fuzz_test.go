package engine

import (
	"strings"
	"testing"
)

// FuzzVLLM feeds space-split argv to vllm serve and to the api_server entry
// point (with a --config file from the second input) and checks that parsing
// never panics, that everything it reports points somewhere, and that every
// key of Args is a flag or a flag's dotted key.
func FuzzVLLM(f *testing.F) {
	for _, s := range []string{
		"m -tp 4 --gpu_memory_utilization 0.9 --no-enable-prefix-caching --max-model-len 128K",
		"--model m --served-model-name x -O3 -O 2 -O=1 -Odecode -qfp8 -t 2 -d",
		`m --kv-transfer-config {"kv_connector":"NixlConnector","kv_role":"kv_producer"} --kv-transfer-config.kv_port 1k`,
		"m --kv_transfer_config.kv_role=kv_both --compilation-config.splitting_ops+ a,b --x.y.z",
		"m --config c.yaml --swap-space 4 --max-num-batched-tokens 1.5K",
		"--config $CFG $EXTRA --tensor-parallel-size ${TP} --kv-transfer-config.kv_role",
		"--. . --.= -- --=x ---x -tp= -1.5 -.5 --help=all --kv-transfer-config {",
	} {
		f.Add(s, "model: m\ntensor_parallel_size: 2\nenable-prefix-caching: false\nkv-transfer-config:\n  kv_role: kv_both\n")
	}
	f.Add("--config c.yaml", "model: [a\n")
	f.Add("m --config c.yaml", "- 1\n")
	f.Add("m --config c.yaml", "? [a]\n: b\n")
	f.Fuzz(func(t *testing.T, cmd, yamlText string) {
		read := files(map[string]string{"c.yaml": yamlText})
		for _, prefix := range []string{"vllm serve ", "python3 -m vllm.entrypoints.openai.api_server "} {
			srv, errs, ok := Server(line(prefix+cmd), read)
			if !ok {
				t.Fatalf("%q: not recognised", prefix+cmd)
			}
			for _, is := range srv.FlagIssues {
				if is.Span.IsZero() || is.Message == "" || is.Kind == "" {
					t.Fatalf("%q: issue without span or message: %+v", cmd, is)
				}
			}
			for _, e := range errs {
				if e.Span.IsZero() {
					t.Fatalf("%q: error without span: %+v", cmd, e)
				}
			}
			for k, v := range srv.Args {
				if !strings.HasPrefix(k, "-") {
					t.Fatalf("%q: Args key %q is not a flag", cmd, k)
				}
				if v.Span.IsZero() {
					t.Fatalf("%q: Args[%s] has no span", cmd, k)
				}
			}
			if srv.Model.IsSet() && srv.Model.Span.IsZero() {
				t.Fatalf("%q: model without span", cmd)
			}
		}
	})
}
