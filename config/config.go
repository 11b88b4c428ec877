// Package config reads .kvlint.yaml, the per-repository settings of kvlint.
package config

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"gopkg.in/yaml.v3"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/internal/confined"
	"github.com/kvlint/kvlint/internal/limits"
	"github.com/kvlint/kvlint/parsers/yamlsrc"
)

// FileName is the name kvlint looks for in the working directory and its parents.
const FileName = ".kvlint.yaml"

// Config is the content of .kvlint.yaml. Zero values mean "not set", so
// command-line flags can override only what they name.
type Config struct {
	// Tenancy is "multi" (the default: requests from tenants that must not see
	// each other share servers) or "single".
	Tenancy deploy.Tenancy `yaml:"tenancy"`
	// ExpectedConcurrency is how many requests of full context length the
	// deployment must serve at once, when --max-running-requests doesn't say.
	ExpectedConcurrency int `yaml:"expected_concurrency"`
	// Workload is the traffic the deployments under this file carry, which
	// verify runs them at (see Workload); a deployments: entry may set its
	// own.
	Workload Workload `yaml:"workload"`
	// GPU names the GPU every server runs on when its manifests don't say.
	GPU string `yaml:"gpu"`
	// FailOn is the lowest severity that makes `kvlint check` exit 1.
	FailOn string `yaml:"fail_on"`
	// Exclude holds gitignore-style patterns of paths not to check.
	Exclude []string `yaml:"exclude"`
	// Models maps a model name as written in a launch command (a local path
	// such as /models/llama, or an unknown id) to either a path of a HF
	// config.json (or its directory), relative to this file, or the id of a
	// model in kvlint's catalog.
	Models map[string]string `yaml:"models"`
	// HFCache lists Hugging Face hub cache directories (each holding
	// models--ORG--NAME/), relative to this file, searched for a model id
	// a server names; they are read only inside the checked paths.
	HFCache []string `yaml:"hf_cache"`
	// Ignore suppresses findings by path and rule, with a reason and an
	// optional expiry date (see IgnoreEntry).
	Ignore []IgnoreEntry `yaml:"ignore"`
	// Isolation says how tenants are kept apart (see isolation.go).
	Isolation Isolation `yaml:"isolation"`
	// Deployments overrides tenancy and isolation per deployment, keyed by
	// the name kvlint gives it (shown by kvlint check and capacity).
	Deployments map[string]DeploymentSettings `yaml:"deployments"`
	// Helm maps a chart directory (relative to this file) to the values it
	// is rendered with (see HelmRelease).
	Helm map[string]HelmReleases `yaml:"helm"`
	// Images tells what images the built-in table does not know run when
	// a deployment gives them no command (see ImageEntry).
	Images ImageEntries `yaml:"images"`
	// EngineRelease is the engine release the servers run when the image
	// tag and the Dockerfile do not say (see EngineReleases).
	EngineRelease EngineReleases `yaml:"engine_release"`

	// Path is where the file was read from ("" when none was found); Dir is
	// its directory, against which relative paths in it resolve.
	Path string `yaml:"-"`
	Dir  string `yaml:"-"`
	// Text is the file's content, kept so that the reporters can quote it
	// without reading it again.
	Text []byte `yaml:"-"`
}

// Find looks for .kvlint.yaml in dir and its parents and loads the first one.
// No file is not an error: it returns an empty Config.
func Find(dir string) (*Config, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	for {
		p := filepath.Join(abs, FileName)
		if _, err := os.Lstat(p); err == nil {
			return loadFound(p)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		parent := filepath.Dir(abs)
		if parent == abs {
			return &Config{}, nil
		}
		abs = parent
	}
}

// Load reads one configuration file. Unknown keys are errors, so a typo
// (`tennancy:`) is not silently ignored. Errors are *diag.Diagnostic at the
// place in the file that must change.
func Load(path string) (*Config, error) {
	data, err := limits.ReadFile(path)
	if err != nil {
		return nil, diag.Errorf(deploy.Span{File: path}, "%s", limits.Describe(err))
	}
	return FromText(path, data)
}

// loadFound is Load for a configuration found by looking (not named with
// --config): it is read through a confinement to its own directory, so a
// .kvlint.yaml in the tree that is a link to another file, or a named pipe,
// is refused, never read (internal/confined).
func loadFound(path string) (*Config, error) {
	data, err := confined.New([]string{filepath.Dir(path)}).ReadFile(path)
	if err != nil {
		return nil, diag.Errorf(deploy.Span{File: path}, "%s", limits.Describe(err))
	}
	return FromText(path, data)
}

// FromText is Load for a file already read: data is the content of path.
func FromText(path string, data []byte) (*Config, error) {
	c, err := Parse(path, data)
	if err != nil {
		return nil, err
	}
	c.Path = path
	c.Dir = filepath.Dir(path)
	c.Text = data
	return c, nil
}

// Parse decodes configuration text; name is the file it came from. Errors
// are *diag.Diagnostic at the place in the text they are about.
func Parse(name string, data []byte) (*Config, error) {
	src := yamlsrc.NewSource(name, data)
	docs, errs := src.Documents()
	if len(errs) > 0 {
		return nil, errs[0]
	}
	var root *yaml.Node
	for _, d := range docs {
		if d.Root == nil {
			continue
		}
		if root != nil {
			return nil, diag.Errorf(src.LineSpan(d.Line), "%s holds one YAML document; this is a second one", FileName)
		}
		root = d.Root
	}
	// Decoded a second time, into the struct: yaml.v3 checks unknown keys
	// (KnownFields) only when decoding text, not a node. The first pass
	// gives the nodes the errors are placed on; the file is small.
	var c Config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return nil, positioned(src, root, err)
	}
	if err := c.validate(); err != nil {
		return nil, positioned(src, root, err)
	}
	return &c, nil
}

func (c *Config) validate() error {
	switch c.Tenancy {
	case "", deploy.TenancyMulti, deploy.TenancySingle:
	default:
		return fieldErrorf([]string{"tenancy"}, "tenancy must be %q or %q, not %q", deploy.TenancyMulti, deploy.TenancySingle, c.Tenancy)
	}
	if c.ExpectedConcurrency < 0 {
		return fieldErrorf([]string{"expected_concurrency"}, "expected_concurrency must not be negative, got %d", c.ExpectedConcurrency)
	}
	return c.validateIsolation()
}
