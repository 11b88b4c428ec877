package sarif

import (
	gosarif "github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/kvlint/kvlint/diag"
)

// maxFixes bounds the fixes one result carries: SARIF viewers list them
// under the result, and a finding has a handful at most.
const maxFixes = 8

// fixes are a finding's writable fixes as SARIF fix objects (SARIF 2.1.0
// §3.55): one artifactChange per file, each replacement a deletedRegion
// (empty for an insertion) and its insertedContent. A fix kvlint will not
// write has no edit to give, so it is left out (its description is in the
// text and JSON reports).
func (b *builder) fixes(fs []diag.Fix) []*gosarif.Fix {
	var out []*gosarif.Fix
	for _, f := range fs {
		if f.Unwritable != "" || len(f.Replacements) == 0 || len(out) == maxFixes {
			continue
		}
		var changes []*gosarif.ArtifactChange
		byFile := map[string]*gosarif.ArtifactChange{}
		for _, r := range f.Replacements {
			reg := b.region(r.Span)
			if reg == nil {
				changes = nil
				break
			}
			ch := byFile[r.Span.File]
			if ch == nil {
				ch = gosarif.NewArtifactChange(b.loc.artifact(r.Span.File))
				byFile[r.Span.File] = ch
				changes = append(changes, ch)
			}
			ch.WithReplacement(gosarif.NewReplacement(reg).WithInsertedContent(gosarif.NewArtifactContent().WithText(r.NewText)))
		}
		if len(changes) == 0 {
			continue
		}
		out = append(out, gosarif.NewFix().WithDescriptionText(f.Description).WithArtifactChanges(changes))
	}
	return out
}
