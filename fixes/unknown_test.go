package fixes_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/check"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/rules"
)

const noGPUScript = `#!/bin/sh
python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct \
  --context-length 65536 --mem-fraction-static 0.85
`

// kv105 is the run's one KV105 finding.
func kv105(t *testing.T, res *analysis.Result) diag.Diagnostic {
	t.Helper()
	var found []diag.Diagnostic
	for _, d := range res.Findings {
		if d.Rule == "KV105" {
			found = append(found, d)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one KV105, got %d: %v", len(found), res.Findings)
	}
	return found[0]
}

// A server whose files name no GPU gets, on KV105, the pool it would have
// on each GPU tried, and whether its context window fits there: the same
// numbers `kvlint --gpu` gives, never applied by kvlint fix.
func TestKV105WhatIfPerGPU(t *testing.T) {
	d := kv105(t, runScript(t, "", noGPUScript))
	if len(d.Fixes) == 0 {
		t.Fatal("KV105 on a server missing only its GPU has no what-if")
	}
	byGPU := map[string]diag.Fix{}
	for _, f := range d.Fixes {
		if !f.WhatIf || f.Unwritable == "" || len(f.Replacements) != 0 {
			t.Errorf("what-if %q can be written: %+v", f.Description, f)
		}
		for _, g := range []string{"L4", "H100-80GB", "A100-80GB"} {
			if strings.Contains(f.Description, "(gpu: "+g+")") {
				byGPU[g] = f
			}
		}
	}
	// Llama-3.1-8B at 0.85 of an L4's 23 GiB holds about 20,000 tokens,
	// under the 65,536 asked; an H100 80 GB holds about 400,000.
	want := map[string]string{"L4": "would not fit (KV101)", "H100-80GB": "window fits"}
	for g, verdict := range want {
		f, ok := byGPU[g]
		if !ok {
			t.Fatalf("no what-if for %s in %v", g, d.Fixes)
		}
		if !strings.Contains(f.Description, verdict) {
			t.Errorf("%s: %q does not say %q", g, f.Description, verdict)
		}
		// The what-if pool is the pool kvlint computes when told the GPU.
		told := runScript(t, g, noGPUScript)
		e := told.Estimates[0]
		if e.PoolTokens == nil || len(f.Result) == 0 || f.Result[0].Name != "pool" || int64(f.Result[0].Value) != *e.PoolTokens {
			t.Errorf("%s: what-if result %v, --gpu %s gives pool %v", g, f.Result, g, e.PoolTokens)
		}
	}
}

// When the model is unknown too, no GPU sizes the pool: KV105 then has no
// what-if, rather than numbers for a model kvlint does not know.
func TestKV105NoWhatIfWithoutModel(t *testing.T) {
	d := kv105(t, runScript(t, "", `#!/bin/sh
python3 -m sglang.launch_server --model-path /models/private --context-length 65536
`))
	if len(d.Fixes) != 0 {
		t.Errorf("KV105 with the model unknown has fixes: %v", d.Fixes)
	}
}

// A GPU the files name but kvlint cannot pin down ("Tesla-V100": 16 or
// 32 GB) is where the pod runs: the what-ifs are its candidates, and none
// is on another GPU.
func TestKV105WhatIfsOnlyOnTheGPUsTheFilesAllow(t *testing.T) {
	dir := t.TempDir()
	p := dir + "/pod.yaml"
	if err := os.WriteFile(p, []byte(`apiVersion: v1
kind: Pod
metadata:
  name: llama
spec:
  nodeSelector:
    nvidia.com/gpu.product: Tesla-V100
  containers:
  - name: sglang
    image: lmsysorg/sglang:v0.5.3
    command: ["python3", "-m", "sglang.launch_server", "--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--context-length", "65536"]
    resources:
      limits:
        nvidia.com/gpu: 1
`), 0o644); err != nil {
		t.Fatal(err)
	}
	engine, err := rules.New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	res, err := check.Run(context.Background(), engine, check.Options{Paths: []string{p}})
	if err != nil {
		t.Fatal(err)
	}
	d := kv105(t, res)
	var on []string
	for _, f := range d.Fixes {
		on = append(on, strings.Fields(f.Description)[1])
	}
	if strings.Join(on, " ") != "V100-16GB V100-32GB" {
		t.Errorf("what-ifs on %v, want the two V100s the node selector allows: %v", on, d.Fixes)
	}
	if !strings.Contains(d.Message, "the files allow any of V100-16GB, V100-32GB, which differ in memory") {
		t.Errorf("message %q", d.Message)
	}
}
