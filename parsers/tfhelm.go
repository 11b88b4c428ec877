package parsers

import (
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/engine"
	"github.com/kvlint/kvlint/parsers/helm"
	"github.com/kvlint/kvlint/parsers/terraform"
)

// terraformOptions are the settings a Terraform module is evaluated with:
// the command line's var files and environment, and Helm for its
// helm_release resources (wired here so parsers/terraform does not link
// Helm itself).
func terraformOptions(opt Options) terraform.Options {
	render := func(r terraform.HelmRelease, read engine.ReadFile) ([]*deploy.Server, []*diag.Diagnostic) {
		return renderHelmRelease(r, read, opt)
	}
	return terraform.Options{VarFiles: opt.TFVarFiles, Environ: opt.Environ, Helm: render, Files: opt.Files, Images: opt.Images, Roots: opt.Roots}
}

// renderHelmRelease renders a helm_release's chart through parsers/helm.
func renderHelmRelease(r terraform.HelmRelease, read engine.ReadFile, opt Options) ([]*deploy.Server, []*diag.Diagnostic) {
	rel := helm.Release{Chart: r.Chart, Name: r.Name, Namespace: r.Namespace, Files: opt.Files, Images: opt.Images}
	for _, v := range r.Values {
		rel.Values = append(rel.Values, helm.Values{File: v.File, Data: v.Data, Locate: v.Locate, Unknown: v.Unknown})
	}
	for _, s := range r.Set {
		rel.Set = append(rel.Set, helm.Set{Expr: s.Expr, String: s.String, Span: s.Span, Unknown: s.Unknown})
	}
	return helm.Render(rel, read)
}
