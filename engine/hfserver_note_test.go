package engine

import "testing"

func TestHFTransformers(t *testing.T) {
	for _, tt := range []struct {
		cmd  string
		want string // the backend word's text, "" none
	}{
		{"python -m huggingfaceserver --model_id org/m --backend=huggingface", "huggingface"},
		{"python3 -m huggingfaceserver --backend huggingface", "huggingface"},
		{"python3 -m huggingfaceserver --backend vllm", ""},
		{"python3 -m huggingfaceserver --model_id org/m", ""},
		{"python3 -m huggingfaceserver --backend $BACKEND", ""},
		{"python3 serve.py --backend huggingface", ""},
	} {
		b, ok := HFTransformers(line(tt.cmd))
		if got := map[bool]string{true: b.Raw}[ok]; got != tt.want {
			t.Errorf("%q: backend = %q, want %q", tt.cmd, got, tt.want)
		}
		if ok && (b.Span.Col == 0 || b.Span.EndCol-b.Span.Col != len("huggingface")) {
			t.Errorf("%q: backend span %+v does not cover the value", tt.cmd, b.Span)
		}
	}
}
