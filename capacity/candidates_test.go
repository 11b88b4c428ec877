package capacity

import (
	"slices"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

// candidateServer is an SGLang server on an H100 whose model is a
// placeholder its files leave to the orchestrator, with the models they
// allow listed, as the OME parser leaves a runtime no InferenceService
// names.
func candidateServer(ids ...string) *deploy.Server {
	s := server("", "H100", "--tp-size", "4")
	s.Model = deploy.Unknown("$(MODEL_PATH)", deploy.Span{File: "rt.yaml", Line: 9, Col: 30, EndLine: 9, EndCol: 43})
	s.ModelCandidates, s.ModelCandidatesCertain = ids, true
	s.ModelNote = "the selector may accept " + strings.Join(ids, " or ")
	return s
}

// A set the files allow with one model undecided, or a single model, is
// no set of every model that may run: the server stays unsized, though
// the candidates would agree.
func TestCandidatesUncertainUnsized(t *testing.T) {
	s := candidateServer("meta-llama/Llama-3.1-70B-Instruct", "meta-llama/Llama-3.3-70B-Instruct")
	s.ModelCandidatesCertain = false
	if est := EstimateServer(s, Options{}); est.PoolTokens != nil || containsText(est.Assumptions, "the model is one of") {
		t.Errorf("undecided: pool %v, %q", deref(est.PoolTokens), est.Assumptions)
	}
	if est := EstimateServer(candidateServer("meta-llama/Llama-3.3-70B-Instruct"), Options{}); est.PoolTokens != nil {
		t.Errorf("one candidate: pool %v", deref(est.PoolTokens))
	}
}

// Llama 3.1 and 3.3 70B Instruct have the same configuration but for
// their names: whichever runs, the pool is the one each gives named.
func TestCandidatesSamePoolSized(t *testing.T) {
	s := candidateServer("meta-llama/Llama-3.1-70B-Instruct", "meta-llama/Llama-3.3-70B-Instruct")
	est := EstimateServer(s, Options{})
	named := EstimateServer(server("meta-llama/Llama-3.3-70B-Instruct", "H100", "--tp-size", "4"), Options{})
	if named.PoolTokens == nil || est.PoolTokens == nil || *est.PoolTokens != *named.PoolTokens {
		t.Fatalf("pool %v, named %v\n%s", deref(est.PoolTokens), deref(named.PoolTokens), strings.Join(est.Assumptions, "\n"))
	}
	if est.Model != "" || len(est.Missing) != 0 || est.ContextLength == nil || *est.ContextLength != *named.ContextLength {
		t.Errorf("model %q, missing %q, context %v", est.Model, est.Missing, deref(est.ContextLength))
	}
	if !containsText(est.Assumptions, "the model is one of meta-llama/Llama-3.1-70B-Instruct, meta-llama/Llama-3.3-70B-Instruct") ||
		!containsText(est.Assumptions, "the selector may accept") {
		t.Errorf("assumptions %q", est.Assumptions)
	}
	// A fix is judged on the same candidates: the fraction that holds
	// a pool is the one the named model needs.
	need := *named.PoolTokens + 100_000
	f, _, ok := est.FractionForPool(need, 0.95)
	g, _, ok2 := named.FractionForPool(need, 0.95)
	if !ok || !ok2 || f != g {
		t.Errorf("fraction for %d tokens: candidates %v (%v), named %v (%v)", need, f, ok, g, ok2)
	}
}

// A base and its instruct share weights and cell, so the pool is the
// same, but not their context window (Qwen2.5-14B-Instruct declares
// 32,768, the base 131,072): whether KV101 fires depends on which runs,
// so the server is not sized, and the estimate says why.
func TestCandidatesContextDiffers(t *testing.T) {
	est := EstimateServer(candidateServer("Qwen/Qwen2.5-14B-Instruct", "Qwen/Qwen2.5-14B"), Options{})
	if est.PoolTokens != nil || len(est.Missing) != 1 || est.Missing[0] != "model" {
		t.Fatalf("pool %v, missing %q", deref(est.PoolTokens), est.Missing)
	}
	if !containsText(est.Assumptions, "Qwen/Qwen2.5-14B-Instruct: ") || !containsText(est.Assumptions, "context 32,768; Qwen/Qwen2.5-14B: ") ||
		!containsText(est.Assumptions, "context 131,072; they differ") {
		t.Errorf("assumptions %q", est.Assumptions)
	}
}

// Models of other sizes give other pools: the pool stays unknown, and
// the estimate says what each would get.
func TestCandidatesDifferUnsized(t *testing.T) {
	est := EstimateServer(candidateServer("meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-70B-Instruct"), Options{})
	if est.PoolTokens != nil || len(est.Missing) == 0 || est.Missing[0] != "model" {
		t.Fatalf("pool %v, missing %q", deref(est.PoolTokens), est.Missing)
	}
	if !containsText(est.Assumptions, "sized with each model the files allow: meta-llama/Llama-3.1-8B-Instruct: ") || !containsText(est.Assumptions, "they differ") {
		t.Errorf("assumptions %q", est.Assumptions)
	}
	// One candidate kvlint cannot size leaves the pool unknown too,
	// however the others agree.
	est = EstimateServer(candidateServer("meta-llama/Llama-3.1-70B-Instruct", "meta-llama/Llama-3.3-70B-Instruct", "example-org/unlisted-70b"), Options{})
	if est.PoolTokens != nil || !containsText(est.Assumptions, "example-org/unlisted-70b: not sized (model unknown)") {
		t.Errorf("pool %v, assumptions %q", deref(est.PoolTokens), est.Assumptions)
	}
}

// The what-if on another GPU goes through the candidates too: a server
// sized only by its candidates is sized on the GPU tried.
func TestCandidatesWithGPU(t *testing.T) {
	s := candidateServer("meta-llama/Llama-3.1-70B-Instruct", "meta-llama/Llama-3.3-70B-Instruct")
	s.GPU = deploy.Value{}
	est := EstimateServer(s, Options{})
	if est.PoolTokens != nil {
		t.Fatalf("no GPU, pool %v", deref(est.PoolTokens))
	}
	on := EstimateServer(s, Options{GPU: "H100"})
	named := EstimateServer(server("meta-llama/Llama-3.3-70B-Instruct", "", "--tp-size", "4"), Options{GPU: "H100"})
	if on.PoolTokens == nil || named.PoolTokens == nil || *on.PoolTokens != *named.PoolTokens {
		t.Errorf("on H100: %v, named %v", deref(on.PoolTokens), deref(named.PoolTokens))
	}
	// KV105's what-if recomputes the unsized estimate on a GPU: it goes
	// through the candidates, reusing the resolutions the estimate kept.
	what, ok := est.WithGPU("H100")
	if !ok || what.PoolTokens == nil || *what.PoolTokens != *named.PoolTokens {
		t.Errorf("what-if on H100: %v (%v), named %v", deref(what.PoolTokens), ok, deref(named.PoolTokens))
	}
	if est.inputs == nil || est.inputs.model == nil || len(est.inputs.model.candidates) != 2 {
		t.Errorf("the candidates' resolutions are not kept for With")
	}
}

// vLLM sizes its cache in whole blocks: Hermes 2 Pro adds 32 tokens to
// Llama 3 8B's vocabulary, a few hundred KiB of weights that leave the
// block count as it is. The pool is known; the weights, which differ,
// are not.
func TestCandidatesWeightsDifferPoolSame(t *testing.T) {
	ids := []string{"meta-llama/Meta-Llama-3-8B-Instruct", "NousResearch/Hermes-2-Pro-Llama-3-8B"}
	s := vllmServer("", "H100")
	s.Model = deploy.Unknown("$(MODEL_PATH)", deploy.Span{File: "rt.yaml", Line: 9, Col: 30, EndLine: 9, EndCol: 43})
	s.ModelCandidates, s.ModelCandidatesCertain = ids, true
	est := EstimateServer(s, Options{})
	a := EstimateServer(vllmServer(ids[0], "H100"), Options{})
	b := EstimateServer(vllmServer(ids[1], "H100"), Options{})
	if a.PoolTokens == nil || b.PoolTokens == nil || *a.PoolTokens != *b.PoolTokens || *a.WeightsBytesPerGPU == *b.WeightsBytesPerGPU {
		t.Fatalf("premise: pools %v %v, weights %v %v", deref(a.PoolTokens), deref(b.PoolTokens), deref(a.WeightsBytesPerGPU), deref(b.WeightsBytesPerGPU))
	}
	if est.PoolTokens == nil || *est.PoolTokens != *a.PoolTokens || est.WeightsBytesPerGPU != nil || est.KVBlocks == nil {
		t.Errorf("pool %v weights %v blocks %v", deref(est.PoolTokens), deref(est.WeightsBytesPerGPU), deref(est.KVBlocks))
	}
	if !containsText(est.Assumptions, "differ in the weights per GPU") {
		t.Errorf("assumptions %q", est.Assumptions)
	}
}

// With no GPU, candidates of one cell and one set of weights need only
// the GPU declared; candidates that differ need the model too.
func TestCandidatesNeedOnlyGPU(t *testing.T) {
	s := candidateServer("meta-llama/Llama-3.1-70B-Instruct", "meta-llama/Llama-3.3-70B-Instruct")
	s.GPU = deploy.Value{}
	est := EstimateServer(s, Options{})
	if est.PoolTokens != nil || len(est.Missing) != 1 || est.Missing[0] != "gpu" || !containsText(est.Assumptions, "the GPU alone decides the pool") {
		t.Errorf("same cell and weights: pool %v, missing %q, %q", deref(est.PoolTokens), est.Missing, est.Assumptions)
	}
	s = candidateServer("meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-70B-Instruct")
	s.GPU = deploy.Value{}
	est = EstimateServer(s, Options{})
	if !slices.Contains(est.Missing, "gpu") || !slices.Contains(est.Missing, "model") || containsText(est.Assumptions, "the GPU alone") {
		t.Errorf("other sizes: missing %q, %q", est.Missing, est.Assumptions)
	}
}

// With no GPU, candidates of one cell and weights but other context
// windows are not decided by the GPU alone: the model stays missing.
func TestCandidatesNeedOnlyGPUSameContext(t *testing.T) {
	s := candidateServer("Qwen/Qwen2.5-14B-Instruct", "Qwen/Qwen2.5-14B")
	s.GPU = deploy.Value{}
	est := EstimateServer(s, Options{})
	if !slices.Contains(est.Missing, "model") || containsText(est.Assumptions, "the GPU alone") {
		t.Errorf("missing %q, %q", est.Missing, est.Assumptions)
	}
}
