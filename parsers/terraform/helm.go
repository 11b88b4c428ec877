package terraform

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/kvlint/kvlint/deploy"
)

// HelmRenderer renders a helm_release whose chart is a local directory and
// returns the servers in what it renders.
type HelmRenderer func(r HelmRelease) ([]*deploy.Server, []*deploy.Error)

// HelmRelease is what a helm_release resource asks Helm to render.
type HelmRelease struct {
	Chart     string // the chart directory
	Name      string
	Namespace string
}

// helmRelease reads a helm_release. Rendering needs the Helm path; without
// it the release is an error, never silently passed over.
func (m *module) helmRelease(b *hclsyntax.Block, ctx *hcl.EvalContext, address string) {
	hdr := hcl.RangeBetween(b.TypeRange, b.LabelRanges[len(b.LabelRanges)-1])
	if m.opt.HelmRender == nil {
		m.errorf(m.fs.span(hdr), "helm_release rendering is not available: the servers %s deploys were not checked", address)
		return
	}
}
