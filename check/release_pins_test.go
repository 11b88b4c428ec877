package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/internal/confined"
	"github.com/kvlint/kvlint/source"
)

func TestRequirementsPin(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		e          deploy.Engine
		want       string // "" when no pin
	}{
		{"plain", "torch==2.4.0\nvllm==0.6.3\n", deploy.EngineVLLM, "0.6.3"},
		{"extra and spaces", "sglang[all] == 0.4.6.post1 ; python_version >= \"3.10\"\n", deploy.EngineSGLang, "0.4.6.post1"},
		{"normalised name", "SGLang==0.3.0\n", deploy.EngineSGLang, "0.3.0"},
		{"last wins", "vllm==0.6.3\nvllm==0.6.4\n", deploy.EngineVLLM, "0.6.4"},
		{"range is no pin", "vllm>=0.6.3\n", deploy.EngineVLLM, ""},
		{"comment", "# vllm==0.6.3\n", deploy.EngineVLLM, ""},
		{"other project", "vllm-flash-attn==2.6.1\nvllm_router==0.1\n", deploy.EngineVLLM, ""},
		{"other engine", "vllm==0.6.3\n", deploy.EngineSGLang, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, e, ok := requirementsPin([]byte(tc.text), tc.e)
			got := ""
			if ok {
				got = tc.text[s:e]
			}
			if got != tc.want {
				t.Errorf("pin = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestLockPins(t *testing.T) {
	uv := "version = 1\n\n[[package]]\nname = \"torch\"\nversion = \"2.4.0\"\n\n[[package]]\nname = \"vllm\"\nversion = \"0.6.3\"\nsource = { registry = \"https://pypi.org/simple\" }\n"
	if s, e, ok := tomlLockPin([]byte(uv), deploy.EngineVLLM); !ok || uv[s:e] != "0.6.3" {
		t.Errorf("uv.lock: %v %q", ok, uv[s:e])
	}
	if _, _, ok := tomlLockPin([]byte(uv), deploy.EngineSGLang); ok {
		t.Error("uv.lock: sglang found in a lock without it")
	}
	pipfile := `{"_meta": {"hash": {"sha256": "x"}}, "default": {"torch": {"version": "==2.4.0"}, "sglang": {"extras": ["all"], "hashes": ["sha256:a"], "version": "==0.3.0"}}, "develop": {}}`
	if s, e, ok := pipfileLockPin([]byte(pipfile), deploy.EngineSGLang); !ok || pipfile[s:e] != "==0.3.0" {
		t.Errorf("Pipfile.lock: %v", ok)
	}
	// A "version" elsewhere (the torch entry, _meta) is not the engine's.
	if _, _, ok := pipfileLockPin([]byte(pipfile), deploy.EngineVLLM); ok {
		t.Error("Pipfile.lock: vllm found in a lock without it")
	}
	// Broken or deep documents end the walk without a pin.
	for _, bad := range []string{`{"default": {"sglang": {"version": ==0.3.0}}}`, `[[[[[[[[[[[[[[[[[[[[`, `{"default": "sglang"}`, `{"default": {"sglang": {"a": {"version": "==0.3.0"}}}}`} {
		if _, _, ok := pipfileLockPin([]byte(bad), deploy.EngineSGLang); ok {
			t.Errorf("Pipfile.lock %q: a pin", bad)
		}
	}
}

// besidePin reads the files beside a launch script or a Dockerfile that
// names them, never beside a manifest, and only inside the checked paths.
func TestBesidePin(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	script := write("app/serve.sh", "vllm serve m\n")
	write("app/requirements-gpu.txt", "vllm==0.6.4\n")
	write("app/requirements.txt", "fastapi\nvllm==0.6.3\n")
	manifest := write("app/deploy.yaml", "kind: Pod\n")
	docker := write("img/Dockerfile", "FROM python:3.10\nCOPY requirements.txt .\n")
	write("img/requirements.txt", "vllm==0.6.2\n")
	other := write("other/Dockerfile", "FROM python:3.10\n")
	write("other/requirements.txt", "vllm==0.6.2\n")

	set := source.NewSet().Confine(confined.New([]string{dir}))
	for _, p := range []string{docker, other} {
		data, _ := os.ReadFile(p)
		set.Add(source.NewFile(p, data, source.SyntaxDockerfile))
	}
	v, where, span, ok := besidePin(set, script, deploy.EngineVLLM, nil)
	if !ok || v != "0.6.3" || span.Line != 2 || span.Col != 7 || span.EndCol != 12 {
		t.Errorf("script: %q %q %+v %v", v, where, span, ok)
	}
	if _, _, _, ok := besidePin(set, manifest, deploy.EngineVLLM, nil); ok {
		t.Error("a manifest took the release of the requirements beside it")
	}
	if v, _, _, ok := besidePin(set, docker, deploy.EngineVLLM, nil); !ok || v != "0.6.2" {
		t.Errorf("Dockerfile naming requirements.txt: %q %v", v, ok)
	}
	if _, _, _, ok := besidePin(set, other, deploy.EngineVLLM, nil); ok {
		t.Error("a Dockerfile that never names requirements.txt took its release")
	}
	// Checked paths that do not hold the script's directory (a file
	// checked makes its own directory a root, internal/confined).
	narrow := source.NewSet().Confine(confined.New([]string{filepath.Join(dir, "img")}))
	if _, _, _, ok := besidePin(narrow, script, deploy.EngineVLLM, nil); ok {
		t.Error("read requirements.txt outside the checked paths")
	}
	// With the run's cache, a second script of the directory takes the
	// same pin from the listing the first made: a uv.lock written after
	// that listing is not seen.
	dirs := map[string][]string{}
	second := write("app/serve2.sh", "vllm serve m\n")
	if v, _, _, ok := besidePin(set, script, deploy.EngineVLLM, dirs); !ok || v != "0.6.3" {
		t.Fatalf("cached first script: %q %v", v, ok)
	}
	write("app/uv.lock", "[[package]]\nname = \"vllm\"\nversion = \"0.9.0\"\n")
	if v, _, _, ok := besidePin(set, second, deploy.EngineVLLM, dirs); !ok || v != "0.6.3" {
		t.Errorf("second script of the directory: %q %v, want the listed 0.6.3", v, ok)
	}
	if got := dirs[filepath.Join(dir, "app")]; strings.Join(got, ",") != "requirements.txt,requirements-gpu.txt" {
		t.Errorf("listing %q", got)
	}
	// Without the cache the lock file, believed before requirements, wins.
	if v, _, _, ok := besidePin(set, second, deploy.EngineVLLM, nil); !ok || v != "0.9.0" {
		t.Errorf("uncached: %q %v, want uv.lock's 0.9.0", v, ok)
	}
}

// A check run leaves each server's release, and where it was read, on the
// server.
func TestResolveReleaseSetsTheServer(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "serve.sh"), []byte("#!/bin/sh\nvllm serve m --swap-space 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "requirements.txt"), []byte("vllm==0.6.3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	set := source.NewSet().Confine(confined.New([]string{dir}))
	data, _ := os.ReadFile(filepath.Join(dir, "serve.sh"))
	set.Add(source.NewFile(filepath.Join(dir, "serve.sh"), data, source.SyntaxShell))
	s := &deploy.Server{Engine: deploy.EngineVLLM, Span: deploy.Span{File: filepath.Join(dir, "serve.sh"), Line: 2, Col: 1}}
	resolveRelease(s, nil, nil, set, nil, nil)
	r := s.Release
	if r.Version != "0.6.3" || !strings.HasPrefix(r.Source, "requirements.txt 0.6.3 at ") || r.Span.Line != 1 || r.Span.Col != 7 {
		t.Errorf("release %q %q %+v", r.Version, r.Source, r.Span)
	}
	resolveRelease(s, nil, nil, set, map[deploy.Engine]string{deploy.EngineVLLM: "0.11.0"}, nil)
	if r := s.Release; r.Version != "0.11.0" || r.Source != "--engine-release vllm=0.11.0" || !r.Span.IsZero() || r.From != "0.6.3" {
		t.Errorf("after --engine-release: %q %q %+v from %q", r.Version, r.Source, r.Span, r.From)
	}
}

// A pip pin in a Dockerfile points at its version, the text a finding
// about the release asks to change.
func TestPipPinSpansTheVersion(t *testing.T) {
	f := source.NewFile("Dockerfile", []byte("FROM python:3.11\nRUN pip install vllm==0.6.3\n"), source.SyntaxDockerfile)
	version, _, span, ok := pipPin(f, deploy.EngineVLLM)
	if !ok || version != "0.6.3" || span.Line != 2 || span.Col != 23 || span.EndCol != 28 {
		t.Fatalf("pipPin = %q %+v %v, want 0.6.3 at 2:23-28", version, span, ok)
	}
}
