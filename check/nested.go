package check

import (
	"errors"
	"os"
	"path/filepath"
	"sync"

	"github.com/kvlint/kvlint/config"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/internal/limits"
	"github.com/kvlint/kvlint/source"
)

// configTree answers "which .kvlint.yaml governs this file?" when a run
// covers directories with configurations of their own (a monorepo with one
// per service, or examples/ with one per example): the nearest file above
// the file wins, as in other linters, else the run's configuration.
//
// A nested file decides what is about the servers below it — the GPU, the
// model mappings, and the tenancy and isolation of their deployments. What
// is about the run (exclude, ignore, fail_on, expected_concurrency, helm,
// images) comes from the run's configuration.
type configTree struct {
	run    *config.Config
	nested bool // false when --config named one file for everything

	files *source.Set // receives the nested files read

	mu    sync.Mutex
	byDir map[string]*config.Config // directory → governing configuration
	errs  []*diag.Diagnostic
}

func newConfigTree(run *config.Config, nested bool, files *source.Set) *configTree {
	return &configTree{run: run, nested: nested, files: files, byDir: map[string]*config.Config{}}
}

// forFile is the configuration that governs file.
func (t *configTree) forFile(file string) *config.Config {
	if !t.nested || file == "" {
		return t.run
	}
	dir, err := filepath.Abs(filepath.Dir(file))
	if err != nil {
		return t.run
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.forDir(dir)
}

// forDir is the configuration that governs the files of dir (absolute): its
// own .kvlint.yaml, else its parent's answer. Every directory's answer is
// kept, so a repository of many directories costs one look per directory,
// not one per directory above each file. t.mu is held.
func (t *configTree) forDir(dir string) *config.Config {
	if c, ok := t.byDir[dir]; ok {
		return c
	}
	c := t.run
	p, err := config.InDir(dir)
	switch {
	case err != nil:
		// Cannot tell what is here: the run's configuration, as for a
		// file that does not load.
	case p == "":
		if parent := filepath.Dir(dir); parent != dir {
			c = t.forDir(parent)
		}
	case !t.isRun(p):
		if loaded, err := t.load(relative(p)); err == nil {
			c = loaded
		} else {
			t.errs = append(t.errs, asError(p, err))
		}
	}
	t.byDir[dir] = c
	return c
}

// load is config.Load reading through the run's file set, so that an error
// in the file can be quoted.
func (t *configTree) load(p string) (*config.Config, error) {
	f, err := t.files.Read(p, source.SyntaxYAML)
	if err != nil {
		return nil, diag.Errorf(deploy.Span{File: p}, "%s", limits.Describe(err))
	}
	return config.FromText(p, f.Data)
}

func (t *configTree) isRun(p string) bool {
	if t.run.Path == "" {
		return false
	}
	a, err1 := filepath.Abs(p)
	b, err2 := filepath.Abs(t.run.Path)
	return err1 == nil && err2 == nil && a == b
}

// forServers is the configuration that governs all of servers, or the run's
// when they fall under different ones.
func (t *configTree) forServers(servers []*deploy.Server) *config.Config {
	var c *config.Config
	for _, s := range servers {
		sc := t.forFile(s.Span.File)
		if c != nil && sc != c {
			return t.run
		}
		c = sc
	}
	if c == nil {
		return t.run
	}
	return c
}

// asError is a configuration's error as a diagnostic: config.Load places
// its errors; anything else is about the file as a whole.
func asError(file string, err error) *diag.Diagnostic {
	var de *diag.Diagnostic
	if errors.As(err, &de) {
		return de
	}
	return &diag.Diagnostic{Span: deploy.Span{File: file}, Message: err.Error()}
}

// relative names an absolute path from the working directory when it lies
// below it, as the paths a user gives are named in diagnostics.
func relative(p string) string {
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	if rel, err := filepath.Rel(wd, p); err == nil && filepath.IsLocal(rel) {
		return rel
	}
	return p
}
