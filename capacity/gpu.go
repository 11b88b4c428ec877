package capacity

import (
	"strconv"
	"strings"
)

// GPU is one GPU model with the memory the engine sees and the names that
// identify it in deployments. The catalog stores GPUs in this form
// (capacity/data/gpus.json, facts from the reference gpus.tsv).
type GPU struct {
	Name   string `json:"name"` // canonical catalog name, e.g. H100-SXM-80GB
	Vendor string `json:"vendor"`
	// MemoryMiB is nvidia-smi memory.total (for AMD, rocm-smi VRAM total /
	// 2^20): the figure SGLang's get_device_memory_capacity reads. 0 = unknown.
	MemoryMiB int64 `json:"memory_mib,omitempty"`
	// MemoryMiBAlternatives are other totals the same GPU reports with other
	// drivers; MemoryMiB is the one kvlint uses.
	MemoryMiBAlternatives []int64 `json:"memory_mib_alternatives,omitempty"`
	MarketingGB           int     `json:"marketing_gb,omitempty"`

	SMINames []string `json:"smi_names,omitempty"` // nvidia-smi --query-gpu=name
	Aliases  []string `json:"aliases,omitempty"`   // names people write (--gpu, .kvlint.yaml)
	// AssumedAliases are bare names that could also mean a sibling with other
	// memory ("H100" is also an H100 NVL): a match through one of them is
	// reported as an assumption.
	AssumedAliases []string `json:"assumed_aliases,omitempty"`

	GFDProducts     []string `json:"gfd_products,omitempty"`     // nvidia.com/gpu.product
	GKEAccelerators []string `json:"gke_accelerators,omitempty"` // cloud.google.com/gke-accelerator
	// KarpenterGPUNames are karpenter.k8s.aws/instance-gpu-name values (also
	// EKS Auto Mode's eks.amazonaws.com/instance-gpu-name);
	// KarpenterGPUMemoryMiB is the instance-gpu-memory that tells the
	// variants of one name apart (a100: 40960 or 81920).
	KarpenterGPUNames     []string `json:"karpenter_gpu_names,omitempty"`
	KarpenterGPUMemoryMiB int64    `json:"karpenter_gpu_memory_mib,omitempty"`
	AMDProducts           []string `json:"amd_products,omitempty"` // amd.com/gpu.product-name

	// ComputeCapability is the CUDA compute capability ("9.0"); "" for AMD or
	// when unknown.
	ComputeCapability string `json:"compute_capability,omitempty"`
	Source            string `json:"source"`

	// DenseBF16TFLOPS is the dense (not 2:4-sparse) BF16 tensor throughput and
	// MemoryBandwidthGBs the memory bandwidth, both from the vendor's data sheet
	// (PerfSource); 0 when the catalog does not carry them. verify's timing model
	// reads them: prefill is bound by the first, decode by the second.
	DenseBF16TFLOPS    float64 `json:"dense_bf16_tflops,omitempty"`
	MemoryBandwidthGBs float64 `json:"memory_bandwidth_gbs,omitempty"`
	PerfSource         string  `json:"perf_source,omitempty"`
}

// MemoryBytes is the memory total in bytes (0 when unknown).
func (g *GPU) MemoryBytes() int64 { return g.MemoryMiB << 20 }

// ccMajor is the compute capability's major version, 0 when unknown.
func (g *GPU) ccMajor() int {
	major, _, _ := strings.Cut(g.ComputeCapability, ".")
	n, err := strconv.Atoi(major)
	if err != nil {
		return 0
	}
	return n
}

// isSM100 mirrors SGLang's is_sm100_supported (CUDA compute capability 10.x:
// B200, B300, GB200, GB300), which picks Blackwell-only attention backends.
func (g *GPU) isSM100() bool { return g.Vendor == "NVIDIA" && g.ccMajor() == 10 }

// isCUDA says the engine runs its CUDA code paths on this GPU (not ROCm).
func (g *GPU) isCUDA() bool { return g.Vendor == "NVIDIA" }

// normalizeGPUName folds the ways one GPU is written into one key:
// "NVIDIA-H100-80GB-HBM3", "nvidia h100 80gb hbm3", "H100_80GB_HBM3" →
// "h100-80gb-hbm3". Vendor words are dropped, any run of other characters
// becomes "-", and GFD's "-SHARED" suffix (time-slicing) is removed.
func normalizeGPUName(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	parts := strings.Split(b.String(), "-")
	for len(parts) > 1 {
		switch parts[0] {
		case "nvidia", "tesla", "amd", "instinct", "geforce":
			parts = parts[1:]
			continue
		}
		break
	}
	if n := len(parts); n > 1 && parts[n-1] == "shared" {
		parts = parts[:n-1]
	}
	return strings.Join(parts, "-")
}

// vkeGPUNameLabel is the node label Volcengine's Kubernetes engine (VKE)
// gives a GPU node: "machine.cluster.vke.volcengine.com/gpu-name | GPU
// 显卡名称" (the GPU card's name; https://volcengine.com/docs/6460/1358690,
// VKE's system labels).
const vkeGPUNameLabel = "machine.cluster.vke.volcengine.com/gpu-name"

// vkeGPUName reads a VKE gpu-name value as a GPU name kvlint's catalog
// knows. VKE writes the vendor's name with dashes and the memory in
// gigabytes with a bare G ("Tesla-A100-80G", "NVIDIA-H20-SXM5-96GB",
// "NVIDIA-A10", as public deployments for VKE pin them): a trailing G is
// read as GB, and an H20's SXM5 form factor is dropped, since H20 ships
// only as SXM5 and the catalog names it H20-96GB.
func vkeGPUName(v string) string {
	parts := strings.Split(strings.TrimSpace(v), "-")
	if n := len(parts); n > 1 {
		last := parts[n-1]
		if len(last) > 1 && (last[len(last)-1] == 'G' || last[len(last)-1] == 'g') && isDigits(last[:len(last)-1]) {
			parts[n-1] = last + "B"
		}
	}
	out := parts[:0]
	for i, p := range parts {
		if strings.EqualFold(p, "SXM5") && i > 0 && strings.EqualFold(parts[i-1], "H20") {
			continue
		}
		out = append(out, p)
	}
	return strings.Join(out, "-")
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
