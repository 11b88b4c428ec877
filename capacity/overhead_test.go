package capacity

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// preloadObservation is one public log's pre-load figure: the free memory
// SGLang measured after init_torch_distributed ("Load weight begin. avail
// mem", the smallest over the ranks), on a GPU of the catalog.
type preloadObservation struct {
	source string
	gpu    string
	ranks  int     // the tensor-parallel size (PP 1 in every observation)
	avail  float64 // GiB ("GB" in SGLang's logs is 2^30 bytes)
}

// sglangPreloadObservations are the inputs of sglangContextGiB and
// sglangPeerBufferGiB: the context is the mean gap of the rows without NVLink
// peers, the peer buffer the H200 TP8 row's remaining gap over its 7 peers.
var sglangPreloadObservations = []preloadObservation{
	// SGLang's docs notebook send_request as rendered on 2025-01-23
	// (docs.sglang.ai/start/send_request.html, kept in a public clipping of
	// that day): Llama-3.1-8B-Instruct, TP1, on an 80 GB H100.
	{"docs.sglang.ai/start/send_request.html, 2025-01-23 rendering", "H100-SXM-80GB", 1, 78.81},
	// QwQ-32B on a g6.12xlarge, SGLang 0.4.3.post4: four PCIe L4s, where
	// SGLang disables its custom all-reduce.
	{"didier-durand/llms-in-clouds@b001c8690e894d234cf3a2e2345d259173acf293:docs/sglang.md", "L4", 4, 21.63},
	// Eight 143,771 MiB Hopper GPUs (H200, or H20-3e, which reports the same
	// total and is also an NVLink part), 2025-10-16; ranks 1–6 read 137.29 GB,
	// the distributed MIN the engine uses.
	{"https://github.com/sgl-project/sglang/pull/11716", "H200-SXM-141GB", 8, 137.29},
}

func TestSGLangPreloadGapFit(t *testing.T) {
	const tolerance = 0.1 // GiB
	var table strings.Builder
	for _, o := range sglangPreloadObservations {
		g, ok := Default().GPU(o.gpu)
		if !ok {
			t.Fatalf("%s: catalog has no GPU %s", o.source, o.gpu)
		}
		total := float64(g.MemoryMiB) / 1024
		logged := total - o.avail
		model := sglangPreloadGapGiB(g, o.ranks)
		fmt.Fprintf(&table, "%-15s ranks %d: logged gap %.2f GiB, modelled %.2f GiB (%+.2f)  %s\n", o.gpu, o.ranks, logged, model, model-logged, o.source)
		if math.Abs(model-logged) > tolerance {
			t.Errorf("%s (%s, %d ranks): modelled pre-load gap %.2f GiB, logged %.2f GiB", o.source, o.gpu, o.ranks, model, logged)
		}
	}
	t.Logf("SGLang pre-load gap, memory.total − free memory after init_torch_distributed:\n%s", table.String())
}

// TestStartupLogsPreload checks the startup-log rows that give the pre-load
// memory and the weights' footprint against the two figures kvlint models.
func TestStartupLogsPreload(t *testing.T) {
	n := 0
	for i, l := range readStartupLogs(t) {
		if l.PreloadGiB == nil && l.WeightsGiB == nil {
			continue
		}
		n++
		g, ok := Default().GPU(l.GPU)
		if !ok {
			t.Fatalf("row %d: catalog has no GPU %s", i, l.GPU)
		}
		est := l.estimate()
		if l.PreloadGiB != nil {
			ranks := max(1, est.TP)
			logged := float64(g.MemoryMiB)/1024 - *l.PreloadGiB
			model := sglangPreloadGapGiB(g, ranks)
			t.Logf("row %d: pre-load gap logged %.2f GiB, modelled %.2f GiB", i, logged, model)
			if math.Abs(model-logged) > 0.1 {
				t.Errorf("row %d (%s): modelled pre-load gap %.2f GiB, logged %.2f GiB", i, l.Source, model, logged)
			}
		}
		if l.WeightsGiB != nil {
			if est.WeightsBytesPerGPU == nil {
				t.Errorf("row %d (%s): weights not estimated", i, l.Source)
				continue
			}
			model := float64(*est.WeightsBytesPerGPU)/gib + sglangLoadExtraGiB
			t.Logf("row %d: loaded weights logged %.2f GiB, modelled %.2f GiB (parameters + %.2f GiB)", i, *l.WeightsGiB, model, sglangLoadExtraGiB)
			if math.Abs(model-*l.WeightsGiB) > 0.25 {
				t.Errorf("row %d (%s): modelled loaded weights %.2f GiB, logged %.2f GiB", i, l.Source, model, *l.WeightsGiB)
			}
		}
	}
	if n == 0 {
		t.Error("no startup-log row gives the pre-load memory or the weights")
	}
}

// Only the tensor-parallel group allocates NVLink peer buffers: a TP2 × PP4
// server on eight H100s has one peer, not seven; PCIe cards none.
func TestSGLangNVLinkPeersFollowTP(t *testing.T) {
	h100, _ := Default().GPU("H100-80GB")
	l4, _ := Default().GPU("L4")
	for _, tt := range []struct {
		g    *GPU
		tp   int
		want int
	}{{h100, 1, 0}, {h100, 2, 1}, {h100, 8, 7}, {h100, 16, 7}, {l4, 4, 0}} {
		if got := sglangNVLinkPeers(tt.g, tt.tp); got != tt.want {
			t.Errorf("%s tp %d: %d peers, want %d", tt.g.Name, tt.tp, got, tt.want)
		}
	}
	pp := EstimateServer(server("meta-llama/Llama-3.1-8B-Instruct", "H100-80GB", "--tp-size", "2", "--pp-size", "4"), Options{})
	if !containsText(pp.Assumptions, "1 NVLink peers") {
		t.Errorf("TP2 × PP4 should count one NVLink peer:\n%q", pp.Assumptions)
	}
}
