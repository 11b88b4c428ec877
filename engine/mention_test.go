package engine

import (
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

func scanAll(text string, images *ImageTable) []Mention {
	var out []Mention
	ScanMentions([]byte(text), images, func(m Mention) bool {
		out = append(out, m)
		return true
	})
	return out
}

func TestScanMentions(t *testing.T) {
	table := NewImageTable([]Image{
		{Repository: "lmsysorg/sglang", Tags: "*"},
		{Repository: "acme/vllm-serving", Tags: "*", Engine: deploy.EngineVLLM, Entrypoint: []string{"vllm", "serve"}},
		{Repository: "vllm/vllm-openai", Tags: "*", Engine: deploy.EngineVLLM, Entrypoint: []string{"vllm", "serve"}},
	})
	tests := []struct {
		name, text string
		want       []string // kind:text@start
	}{
		{"python module", "exec python3 -m sglang.launch_server --tp 2", []string{"module:sglang.launch_server@16"}},
		{"vllm api server", "python -m vllm.entrypoints.openai.api_server", []string{"module:vllm.entrypoints.openai.api_server@10"}},
		{"dynamo worker", "python3 -m dynamo.vllm --model x", []string{"module:dynamo.vllm@11"}},
		{"launch script", "python3 /sgl/python/sglang/launch_server.py", []string{"module:/sgl/python/sglang/launch_server.py@8"}},
		{"serve on one line", `CMD="vllm serve x"`, []string{"command:vllm serve@5"}},
		{"serve as list items", "command:\n  - sglang\n  - serve\n", []string{"command:sglang serve@13"}},
		{"exec form", `CMD ["vllm", "serve", "m"]`, []string{"command:vllm serve@6"}},
		{"known image anywhere", "docker run acme/vllm-serving:1.2 --model x", []string{"image:acme/vllm-serving:1.2@11"}},
		{"table image with no engine", "image: lmsysorg/sglang:latest", []string{"image:lmsysorg/sglang:latest@7"}},
		{"unknown engine image in an image key", `"image": "ghcr.io/acme/vllm-custom:0.1"`, []string{"image:ghcr.io/acme/vllm-custom:0.1@10"}},
		{"unknown engine image after FROM", "FROM --platform=linux/amd64 acme/sglang-gpu:1", []string{"image:acme/sglang-gpu:1@28"}},
		{"image named twice in one word is one mention", "image: vllm/vllm-openai:v0.8.5", []string{"image:vllm/vllm-openai:v0.8.5@7"}},
		{"pip install is no launch", "pip install vllm==0.8.5 sglang[all]", nil},
		{"vllm without serve", "vllm bench latency", nil},
		{"engine in a path", "--download-dir /models/vllm-cache ./vllm/config.yaml", nil},
		{"engine in a URL", "see https://github.com/vllm-project/vllm", nil},
		{"unknown image outside an image key", "docker pull acme/vllm-custom:0.1", nil},
		{"path segment is not the image", "image: vllm-mirror/llm-server:2", nil},
		{"upper case is prose", "VLLM_USE_V1=1 SGLang Serve", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, m := range scanAll(tt.text, table) {
				got = append(got, string(m.Kind)+":"+m.Text+"@"+itoa(m.Start))
				if !strings.HasPrefix(tt.text[m.Start:], strings.Fields(m.Text)[0]) {
					t.Errorf("offset %d does not point at %q", m.Start, m.Text)
				}
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("mentions %v, want %v", got, tt.want)
			}
		})
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

func TestScanMentionsImageFacts(t *testing.T) {
	table := NewImageTable([]Image{{Repository: "acme/vllm-serving", Tags: "*", Engine: deploy.EngineVLLM, Entrypoint: []string{"vllm", "serve"}}})
	ms := scanAll("image: acme/vllm-serving:1.2", table)
	if len(ms) != 1 || !ms[0].ImageKnown || ms[0].Engine != deploy.EngineVLLM || len(ms[0].Image.Entrypoint) != 2 {
		t.Fatalf("mentions %+v, want the table's row for acme/vllm-serving", ms)
	}
}

func TestScanMentionsStopsWhenAsked(t *testing.T) {
	text := strings.Repeat("vllm serve x\n", 10)
	n := 0
	ScanMentions([]byte(text), nil, func(Mention) bool { n++; return n < 3 })
	if n != 3 {
		t.Errorf("visited %d mentions, want 3", n)
	}
}

func TestScanMentionsIsBounded(t *testing.T) {
	text := strings.Repeat("vllm ", maxMentionScan*2)
	ScanMentions([]byte(text), nil, func(Mention) bool { t.Fatal("a bare word is no mention"); return false })
}
