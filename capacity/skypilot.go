package capacity

import "strings"

// skyPilotGPUs reads the SkyPilot accelerator names whose memory kvlint's
// own catalog cannot tell from the name: in SkyPilot's catalog each name is
// one card. Every cloud's fetcher of skypilot-org/skypilot names the cards
// it lists (sky/catalog/data_fetchers):
//
//   - fetch_gcp.py@a2f08cfd1e81 _gpu_info_from_name: A100 40 × 1024 MiB,
//     A100-80GB 80 × 1024, H100 and H100-MEGA 80 × 1024 (GCP's
//     nvidia-h100-80gb and nvidia-h100-mega-80gb, renamed in
//     _get_gpus_for_zone), V100 16 × 1024;
//   - fetch_aws.py@5512c52c96e1 get_additional_columns and _patch_p4de:
//     p4de.24xlarge is A100-80GB (SizeInMiB 81920), p3dn.24xlarge is
//     V100-32GB, so the plain A100 (p4d) and V100 (p3) are the smaller cards.
//
// The SXM forms stand for both: an A100 or H100 PCIe card of the same
// memory has the same memory.total.
var skyPilotGPUs = map[string]string{
	"a100":      "A100-SXM4-40GB",
	"a100-80gb": "A100-SXM4-80GB",
	"h100":      "H100-SXM-80GB",
	"h100-mega": "H100-SXM-80GB",
	"v100":      "V100-16GB",
	"v100-32gb": "V100-32GB",
}

// SkyPilotGPU resolves a SkyPilot accelerator name (a task's
// resources.accelerators, or the skypilot.co/accelerator node label, which
// holds the name in lower case) by SkyPilot's meaning of it; names SkyPilot
// shares with kvlint's catalog resolve there. note says when SkyPilot's
// catalog decided a name kvlint alone reads otherwise.
func (c *Catalog) SkyPilotGPU(name string) (g *GPU, how gpuMatch, note string) {
	name = strings.TrimSpace(name)
	if canon, ok := skyPilotGPUs[strings.ToLower(name)]; ok {
		if g, ok := c.GPU(canon); ok {
			return g, gpuMatch{}, "(SkyPilot's " + name + ", as its catalog lists it)"
		}
	}
	g, how = c.lookupGPU(name)
	return g, how, ""
}
