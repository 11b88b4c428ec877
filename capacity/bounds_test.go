package capacity

import "testing"

// A model whose config.json gives the cell but not the weights (a layout
// whose parameters kvlint does not count, no checkpoint): the pool is
// not computed, but the GPU's memory bounds it.
func TestMemoryBound(t *testing.T) {
	opt := Options{BaseDir: "testdata", ModelConfigs: map[string]string{"/models/big": "models/config-only"}}
	// 8 KV heads × (128+128) × 80 layers × 2 B = 327,680 B/token.
	est := EstimateServer(server("/models/big", "L4", "--mem-fraction-static", "0.8"), opt)
	if est.PoolTokens != nil || est.WeightsBytesPerGPU != nil {
		t.Fatalf("pool %v weights %v: the weights are unknown", deref(est.PoolTokens), deref(est.WeightsBytesPerGPU))
	}
	if deref(est.CellBytesPerToken) != int64(327680) {
		t.Fatalf("cell %v\n%q", deref(est.CellBytesPerToken), est.Derivation)
	}
	l4, ok := Default().GPU("L4")
	if !ok {
		t.Fatal("no L4 in the catalog")
	}
	mib := l4.MemoryMiB
	want := int64(float64(mib<<20)*0.8/327680) / int64(est.PageSize) * int64(est.PageSize)
	if deref(est.PoolUpperBound) != want || est.PoolBoundBasis != BoundMemory {
		t.Errorf("bound %v (%q), want %d from memory", deref(est.PoolUpperBound), est.PoolBoundBasis, want)
	}
	if !containsText(est.Derivation, "whatever the weights") {
		t.Errorf("derivation %q", est.Derivation)
	}
	// A lower --max-total-tokens stays the bound.
	est = EstimateServer(server("/models/big", "L4", "--mem-fraction-static", "0.8", "--max-total-tokens", "4096"), opt)
	if deref(est.PoolUpperBound) != int64(4096) || est.PoolBoundBasis != BoundMaxTotalTokens {
		t.Errorf("capped: bound %v (%q)", deref(est.PoolUpperBound), est.PoolBoundBasis)
	}
	// No GPU: no memory, no bound.
	est = EstimateServer(server("/models/big", "", "--mem-fraction-static", "0.8"), opt)
	if est.PoolUpperBound != nil {
		t.Errorf("no GPU: bound %v", deref(est.PoolUpperBound))
	}
	// Known weights: the pool itself, no memory bound.
	est = EstimateServer(server("meta-llama/Llama-3.1-8B-Instruct", "L4"), Options{})
	if est.PoolTokens == nil || est.PoolBoundBasis != "" {
		t.Errorf("sized: pool %v basis %q", deref(est.PoolTokens), est.PoolBoundBasis)
	}
}

// vLLM: the same model on an L4 bounds the cache by memory × utilization.
func TestMemoryBoundVLLM(t *testing.T) {
	opt := Options{BaseDir: "testdata", ModelConfigs: map[string]string{"/models/big": "models/config-only"}}
	est := EstimateServer(vllmServer("/models/big", "L4", "--gpu-memory-utilization", "0.9"), opt)
	if est.PoolTokens != nil {
		t.Fatalf("pool %v: the weights are unknown", deref(est.PoolTokens))
	}
	l4, _ := Default().GPU("L4")
	// 80 layers × 16-token blocks × 2 KV × 8 heads × 128 × 2 B per layer-token.
	perLayer := int64(2 * 8 * 128 * 2)
	want := int64(float64(l4.MemoryMiB<<20)*0.9) / (16 * perLayer) / 80 * 16
	if deref(est.PoolUpperBound) != want || est.PoolBoundBasis != BoundMemory {
		t.Errorf("bound %v (%q), want %d\n%q", deref(est.PoolUpperBound), est.PoolBoundBasis, want, est.Derivation)
	}
	// --num-gpu-blocks-override is the cache: no memory bound.
	est = EstimateServer(vllmServer("/models/big", "L4", "--num-gpu-blocks-override", "100"), opt)
	if est.PoolBoundBasis != BoundGPUBlocksOverride {
		t.Errorf("override: basis %q", est.PoolBoundBasis)
	}
}
