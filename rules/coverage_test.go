package rules

import (
	"context"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

func TestEvaluateCoveragePointsAtTheMention(t *testing.T) {
	at := deploy.Span{File: "k8s/sglang.yaml", Line: 9, Col: 16, EndLine: 9, EndCol: 38}
	facts := []MentionFact{{Kind: "image", Text: "lmsysorg/sglang:latest", Engine: "sglang", Span: at}}
	got, err := engine(t).EvaluateCoverage(context.Background(), Coverage{Mentions: facts})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("findings %+v, want one", got)
	}
	f := got[0]
	if f.Rule != "KV501" || f.Severity != "info" || f.Span != at || f.Server != -1 {
		t.Errorf("finding %+v, want KV501 info at %v for no server", f, at)
	}
	want := "names lmsysorg/sglang:latest but kvlint found no launch here: the image's entrypoint is not known: declare it under images: in .kvlint.yaml"
	if f.Message != want {
		t.Errorf("message %q, want %q", f.Message, want)
	}
	if none, err := engine(t).EvaluateCoverage(context.Background(), Coverage{}); err != nil || len(none) != 0 {
		t.Errorf("no facts: %v, %v", none, err)
	}
}

func TestEvaluateCoveragePointsAtTheRemoteModule(t *testing.T) {
	at := deploy.Span{File: "infra/main.tf", Line: 2, Col: 12, EndLine: 2, EndCol: 43}
	c := Coverage{Unanalysed: []UnanalysedFact{{Kind: "terraform-module", Name: "vpc", Source: "terraform-aws-modules/vpc/aws", Span: at}}}
	got, err := engine(t).EvaluateCoverage(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("findings %+v, want one", got)
	}
	f := got[0]
	if f.Rule != "KV502" || f.Severity != "info" || f.Span != at || f.Server != -1 {
		t.Errorf("finding %+v, want KV502 info at %v for no server", f, at)
	}
	want := `module "vpc" (source "terraform-aws-modules/vpc/aws") is not analysed: kvlint reads only local modules, so anything it deploys was not checked`
	if f.Message != want {
		t.Errorf("message %q, want %q", f.Message, want)
	}
}
