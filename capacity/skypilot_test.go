package capacity

import (
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

// SkyPilot's names resolve by its catalog: its A100 is the 40 GB card,
// which kvlint's catalog alone cannot tell from the 80 GB one.
func TestSkyPilotGPU(t *testing.T) {
	cat := Default()
	for name, want := range map[string]string{
		"A100": "A100-SXM4-40GB", "a100-80gb": "A100-SXM4-80GB", "H100": "H100-SXM-80GB",
		"V100": "V100-16GB", "V100-32GB": "V100-32GB", "L40S": "L40S", "A10g": "A10G", "L4": "L4",
	} {
		g, _, _ := cat.SkyPilotGPU(name)
		if g == nil || g.Name != want {
			t.Errorf("%s: %+v, want %s", name, g, want)
		}
	}
	if g, how, _ := cat.SkyPilotGPU("A40"); g != nil || len(how.candidates) != 0 {
		t.Errorf("A40 is not in the catalog: %+v", g)
	}
	if g, ok := cat.GPUByNodeLabel("skypilot.co/accelerator", "a100"); !ok || g.Name != "A100-SXM4-40GB" {
		t.Errorf("skypilot.co/accelerator a100: %+v", g)
	}
}

func skyServer(names []string, count string, counts []string) *deploy.Server {
	s := vllmServer("meta-llama/Llama-3.1-8B-Instruct", "", "--max-model-len", "8192")
	sp := deploy.Span{File: "task.yaml", Line: 3, Col: 17, EndLine: 3, EndCol: 40}
	s.GPU, s.GPUKey = deploy.Unknown(strings.Join(names, ","), sp), deploy.GPUKeySkyPilot
	if len(names) == 1 {
		s.GPU.Known = true
	} else {
		s.GPUCandidates = names
	}
	s.GPUCount = deploy.Known(count, sp)
	if len(counts) > 0 {
		s.GPUCount.Known, s.GPUCountCandidates = false, counts
	}
	return s
}

func TestSkyPilotCandidates(t *testing.T) {
	// L40 and L40S report the same memory: the server is sized.
	est := EstimateServer(skyServer([]string{"L40", "L40S"}, "1", nil), Options{})
	if est.GPU == "" || est.PoolTokens == nil || est.GPUCount != 1 || len(est.GPUCandidates) != 0 {
		t.Errorf("L40/L40S: gpu %q pool %v count %d %q", est.GPU, deref(est.PoolTokens), est.GPUCount, est.Assumptions)
	}
	// L4 and A100 differ: unknown, with both named for KV105.
	est = EstimateServer(skyServer([]string{"L4", "A100"}, "1", nil), Options{})
	if est.GPU != "" || est.PoolTokens != nil || !containsText(est.Assumptions, "the task's accelerators (resources.accelerators at task.yaml:3:17) allows several GPUs") ||
		strings.Join(est.GPUCandidates, "; ") != "L4; A100-SXM4-40GB" {
		t.Errorf("L4/A100: gpu %q candidates %q %q", est.GPU, est.GPUCandidates, est.Assumptions)
	}
	// A plain A100 is SkyPilot's 40 GB card, not "any of" two.
	est = EstimateServer(skyServer([]string{"A100"}, "1", nil), Options{})
	if est.GPU != "A100-SXM4-40GB" || !containsText(est.Derivation, "SkyPilot's A100, as its catalog lists it") {
		t.Errorf("A100: %q %q", est.GPU, est.Derivation)
	}
	// Counts that differ are unknown, and named.
	est = EstimateServer(skyServer([]string{"L40", "L40S"}, "4,8", []string{"4", "8"}), Options{})
	if est.GPUCount != 0 || !containsText(est.Assumptions, "the GPU count depends on which of the allowed accelerators the server gets: any of 4, 8") {
		t.Errorf("counts: %d %q", est.GPUCount, est.Assumptions)
	}
}
