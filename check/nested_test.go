package check

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kvlint/kvlint/config"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/source"
)

func TestConfigTreeNearestFileGoverns(t *testing.T) {
	root := t.TempDir()
	for dir, body := range map[string]string{"a": "tenancy: single\n", "b": "tenancy: multi\n"} {
		if err := os.MkdirAll(filepath.Join(root, dir, "deep"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, dir, config.FileName), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := &config.Config{GPU: "H100-80GB"}
	server := func(dir string) *deploy.Server {
		return &deploy.Server{Span: deploy.Span{File: filepath.Join(root, dir, "deep", "pod.yaml"), Line: 1}}
	}

	tree := newConfigTree(run, true, source.NewSet())
	if got := tree.forServers([]*deploy.Server{server("a")}); got.Tenancy != deploy.TenancySingle {
		t.Errorf("a/deep governed by %+v, want a/.kvlint.yaml", got)
	}
	if got := tree.forServers([]*deploy.Server{server("b")}); got.Tenancy != deploy.TenancyMulti {
		t.Errorf("b/deep governed by %+v, want b/.kvlint.yaml", got)
	}
	// Servers under different files: neither speaks for the deployment.
	if got := tree.forServers([]*deploy.Server{server("a"), server("b")}); got != run {
		t.Errorf("a mixed deployment is governed by %+v, want the run's configuration", got)
	}
	// --config turns the lookup off.
	if got := newConfigTree(run, false, source.NewSet()).forFile(server("a").Span.File); got != run {
		t.Errorf("with --config, a/deep is governed by %+v, want the run's configuration", got)
	}
	// A broken nested file is an input error, and the run's configuration applies.
	if err := os.WriteFile(filepath.Join(root, "b", config.FileName), []byte("tennancy: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fresh := newConfigTree(run, true, source.NewSet())
	if got := fresh.forFile(server("b").Span.File); got != run || len(fresh.errs) != 1 {
		t.Errorf("broken nested file: got %+v, errors %v", got, fresh.errs)
	}
}
