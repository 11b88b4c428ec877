package sarif

import (
	"encoding/json"
	"testing"
)

// TestFixesCarryArtifactChanges checks that the examples' capacity fixes
// reach SARIF as fixes with artifactChanges whose replacements name a
// deleted region and the text to insert (TestSchema validates the same
// logs against the OASIS schema).
func TestFixesCarryArtifactChanges(t *testing.T) {
	t.Chdir(repoRoot)
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID string `json:"ruleId"`
				Fixes  []struct {
					Description struct {
						Text string `json:"text"`
					} `json:"description"`
					ArtifactChanges []struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
						Replacements []struct {
							DeletedRegion struct {
								StartLine   int `json:"startLine"`
								StartColumn int `json:"startColumn"`
								EndColumn   int `json:"endColumn"`
							} `json:"deletedRegion"`
							InsertedContent *struct {
								Text string `json:"text"`
							} `json:"insertedContent"`
						} `json:"replacements"`
					} `json:"artifactChanges"`
				} `json:"fixes"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(encode(t, logOf(t, repoRoot, "examples/incident")), &log); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, run := range log.Runs {
		for _, r := range run.Results {
			for _, f := range r.Fixes {
				n++
				if f.Description.Text == "" || len(f.ArtifactChanges) == 0 {
					t.Errorf("%s: fix without description or changes: %+v", r.RuleID, f)
				}
				for _, ch := range f.ArtifactChanges {
					if ch.ArtifactLocation.URI == "" || len(ch.Replacements) == 0 {
						t.Errorf("%s: change without uri or replacements: %+v", r.RuleID, ch)
					}
					for _, rep := range ch.Replacements {
						if rep.DeletedRegion.StartLine < 1 || rep.InsertedContent == nil || rep.InsertedContent.Text == "" {
							t.Errorf("%s: bad replacement %+v", r.RuleID, rep)
						}
					}
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no result of examples/incident carries a fix")
	}
}
