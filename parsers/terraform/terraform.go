// Package terraform finds engine launches in a Terraform module: the
// kubernetes_* resources (deployment, stateful set, daemon set, pod, job,
// cron job), kubernetes_manifest, kubectl_manifest, and helm_release with a
// local chart, in the module and the local modules it calls.
//
// A module is a directory. Its *.tf files are parsed with hashicorp/hcl/v2
// and evaluated as Terraform would plan them, as far as that is possible
// without providers, state or a network:
//   - input variables come from their defaults, then TF_VAR_name in the
//     environment, terraform.tfvars, terraform.tfvars.json, *.auto.tfvars
//     and *.auto.tfvars.json in lexical order, then each --tf-var-file in
//     order; the last one wins (Terraform's variable precedence);
//   - locals are evaluated in dependency order; a cycle is an error at the
//     local that starts it;
//   - the functions these files use come from go-cty's standard library,
//     plus Terraform's own file, templatefile, yamlencode, yamldecode,
//     fileexists and friends, with file access confined to the module
//     directory (a child module's relative paths are taken from the root,
//     as Terraform takes them from the working directory);
//   - count and for_each with known values give one instance each;
//   - a module call with a local source (./ or ../) is evaluated once per
//     instance, its variables set from the call's arguments, its servers
//     reported with the chain through the caller's argument, its outputs
//     readable by the caller; nesting, cycles and the number of instances
//     are bounded, each an error at the call. A remote source (registry,
//     git::, https://, s3::) is never downloaded: its outputs are unknown;
//     a call that names an engine is an error (not analysed), any other
//     is returned as a RemoteModule, which the run reports as a KV502 note.
//
// What cannot be known statically is an unknown value, never a guess: data
// sources, resource attributes, remote modules' outputs, terraform.workspace,
// timestamp() and uuid(), and count/for_each that depend on them. Such a
// value reaches the server as deploy.Value{Known: false} with the
// expression's source text as Raw.
//
// Provenance: every leaf of every value carries the place it was written
// (as a cty mark), and the references it travelled through. A flag whose
// value was set in terraform.tfvars is reported there (the line the user
// edits), with the variable declaration, any locals, and the resource
// argument as its Origin chain.
//
// A helm_release with a local chart is rendered through parsers/helm with
// the release's values documents and set entries, their positions kept.
//
// The Kubernetes resources are turned into the manifest the provider would
// send (spec { template { spec { container { ... } } } } becomes
// spec.template.spec.containers[]) and handed to parsers/k8s, so every
// Kubernetes rule (env $(VAR) expansion, sh -c scripts, GPU node labels)
// applies unchanged; its spans are mapped back to the HCL.
package terraform

import (
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/engine"
	"github.com/kvlint/kvlint/source"
)

// Source is the value of deploy.Server.Source for servers found here.
const Source = deploy.SourceTerraform

// Options are the settings a run applies to every module it checks.
type Options struct {
	// VarFiles are --tf-var-file files, applied in order after the
	// module's own tfvars files. Relative paths are relative to the
	// working directory, as for terraform -var-file.
	VarFiles []string
	// Environ is the environment ("NAME=value") TF_VAR_name variables are
	// read from; nil reads none. Tests inject it; the CLI passes the
	// process environment.
	Environ []string
	// Helm renders helm_release charts (parsers wires parsers/helm in).
	// Nil reports every helm_release with a local chart as an error, never
	// passing over it.
	Helm HelmRenderer
	// Files, when set, receives every file the module reads from disk,
	// for the reporters to quote; nil keeps none.
	Files *source.Set
	// Images is the image table that gives a kubernetes_* container
	// writing no command its image's entrypoint; nil has only the
	// built-in rows.
	Images *engine.ImageTable
	// Roots are the checked trees: a module call may name a local module
	// anywhere inside one of them, not only inside the calling module's
	// directory. Empty confines calls to the root module's directory.
	Roots []string
}

// RemoteModule is a module call whose source is not a local path (a
// registry address, git::, https://, s3::): Terraform downloads it at
// init, kvlint never does, so whatever it deploys is not analysed. A call
// that names an engine is an error instead (remoteModule).
type RemoteModule struct {
	Name   string      // the call's label: module "vpc"
	Source string      // the source as written
	Span   deploy.Span // the source attribute's value
}

// Result is what a module holds: the servers its resources launch, the
// input that could not be analysed, and the remote module calls it makes.
type Result struct {
	Servers []*deploy.Server
	Errors  []*diag.Diagnostic
	Remote  []RemoteModule
}

// ParseModule evaluates the Terraform module in dir and returns the servers
// its resources launch. Errors are input that could not be analysed (a
// syntax error, a function that failed, a cycle among locals); the rest of
// the module is still read.
func ParseModule(dir string, opt Options) ([]*deploy.Server, []*diag.Diagnostic) {
	r := Analyse(dir, opt)
	return r.Servers, r.Errors
}

// Analyse is ParseModule that also returns the remote module calls, once
// per call whatever the number of instances of the module that makes it.
func Analyse(dir string, opt Options) Result {
	m := newModule(dir, opt)
	if !m.load() {
		return Result{Errors: m.errs}
	}
	m.stack = []string{m.abs}
	m.inputs()
	m.evaluate()
	m.resources()
	return Result{Servers: m.servers, Errors: distinct(m.errs), Remote: distinctRemote(m.remote)}
}

// distinctRemote keeps the first note of each call: a child module
// evaluated once per instance reports its own remote calls each time.
func distinctRemote(rs []RemoteModule) []RemoteModule {
	seen := map[deploy.Span]bool{}
	var out []RemoteModule
	for _, r := range rs {
		if seen[r.Span] {
			continue
		}
		seen[r.Span] = true
		out = append(out, r)
	}
	return out
}

// distinct drops repeated errors: a child module evaluated once per
// instance of its call reports the same problem of its own files each
// time.
func distinct(errs []*diag.Diagnostic) []*diag.Diagnostic {
	seen := map[string]bool{}
	out := errs[:0]
	for _, e := range errs {
		k := e.Span.String() + "\x00" + e.Message
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, e)
	}
	return out
}
