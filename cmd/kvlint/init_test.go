package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/config"
)

// kvlint init writes a .kvlint.yaml that loads as written and, once its
// commented entries are filled in, sizes every server it listed.
func TestInitFilledInSizes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("serve.sh", "python3 -m sglang.launch_server --model-path /models/ft-llama --served-model-name meta-llama/Llama-3.1-8B-Instruct\n")
	write("k8s/vllm.yaml", `apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.10.0
          env:
            - name: MODEL_ID
              valueFrom: {secretKeyRef: {name: hf, key: model}}
          command: [vllm, serve, $(MODEL_ID), --max-model-len, "8192"]
`)
	var out, errb bytes.Buffer
	if code := run([]string{"init", dir}, &out, &errb); code != 0 {
		t.Fatalf("init: exit %d\n%s%s", code, out.String(), errb.String())
	}
	path := filepath.Join(dir, config.FileName)
	if _, err := config.Load(path); err != nil {
		t.Fatalf("the file as written does not load: %v", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, want := range []string{
		"#   serve.sh:1:12 ",
		"#   k8s/vllm.yaml:13:21 vllm (vllm)\n",
		"# gpu: \n",
		"# models:\n",
		"#   \"/models/ft-llama\": \n",
		"--served-model-name says \"meta-llama/Llama-3.1-8B-Instruct\" (a hint only",
		"#   \"$(MODEL_ID)\": \n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in\n%s", want, text)
		}
	}
	// Nothing is declared until the user says so.
	for _, line := range strings.Split(text, "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			t.Errorf("uncommented line %q", line)
		}
	}

	// Fill it in as a user would: uncomment and complete each entry.
	filled := strings.NewReplacer(
		"# gpu: \n", "gpu: H100-80GB\n",
		"# models:\n", "models:\n",
		"#   \"/models/ft-llama\": \n", "  \"/models/ft-llama\": meta-llama/Llama-3.1-8B-Instruct\n",
		"#   \"$(MODEL_ID)\": \n", "  \"$(MODEL_ID)\": Qwen/Qwen2.5-7B-Instruct\n",
	).Replace(text)
	if err := os.WriteFile(path, []byte(filled), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"capacity", "--format", "json", "--config", path, dir}, &out, &errb); code != 0 {
		t.Fatalf("capacity: exit %d\n%s", code, errb.String())
	}
	var got struct {
		Sizing struct{ Servers, Sized, Unsized int } `json:"sizing"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Sizing.Servers != 2 || got.Sizing.Sized != 2 {
		t.Errorf("after filling in: %+v, want both servers sized\n%s", got.Sizing, filled)
	}

	// A second init refuses to replace it; --force does.
	if code := run([]string{"init", dir}, &out, &errb); code != exitUsage {
		t.Errorf("second init: exit %d, want %d", code, exitUsage)
	}
	if code := run([]string{"init", "--force", dir}, &out, &errb); code != 0 {
		t.Errorf("init --force: exit %d", code)
	}
	if data, _ := os.ReadFile(path); string(data) != text {
		t.Errorf("init --force wrote\n%s\nwant what the files alone leave unknown\n%s", data, text)
	}
}

// A model name with a line break cannot end the comment it is quoted in
// and inject YAML into the written file.
func TestInitCommentsAreOneLine(t *testing.T) {
	if got := comment("a\nmodels: {x: y}\r\u2028z"); strings.ContainsAny(got, "\n\r\u2028") {
		t.Errorf("comment kept a line break: %q", got)
	}
}

// A name from the checked files cannot break out of its YAML comment or
// reorder how it reads.
func TestInitCommentEscapes(t *testing.T) {
	got := comment("gpu\nkey: x \u202eevil\u2028y\u0085")
	if strings.ContainsAny(got, "\n\u202e\u2028\u0085") {
		t.Fatalf("comment(...) = %q keeps a control or override character", got)
	}
}
