package capacity

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/kvlint/kvlint/deploy"
)

// The embedded JSON is what the generator makes of the TSV today.
func TestInstanceTypesGenerated(t *testing.T) {
	tsv, err := os.ReadFile("data/instance-types.tsv")
	if err != nil {
		t.Fatal(err)
	}
	out, err := GenerateInstanceTypes(tsv, gpusJSON)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, instanceTypesJSON) {
		t.Error("data/instance-types.json is stale: go run ./capacity/data/gen/instancetypes")
	}
	for _, it := range Default().instances {
		if !strings.HasPrefix(it.Source, "https://") {
			t.Errorf("%s cites no page: %q", it.Name, it.Source)
		}
	}
}

func TestInstanceTypesRejectBadRows(t *testing.T) {
	head := "provider\tinstance_type\tgpu\tgpus\tgpu_memory_gb\tsource\n"
	for name, row := range map[string]string{
		"no source":      "aws\tp5.48xlarge\tH100-SXM-80GB\t8\t80\t\n",
		"unknown gpu":    "aws\tp5.48xlarge\tH100\t8\t80\thttps://x\n",
		"memory differs": "aws\tp5.48xlarge\tH100-SXM-80GB\t8\t40\thttps://x\n",
		"no count":       "aws\tp5.48xlarge\tH100-SXM-80GB\t0\t80\thttps://x\n",
		"provider":       "ibm\tp5.48xlarge\tH100-SXM-80GB\t8\t80\thttps://x\n",
		"twice":          "aws\tp5.48xlarge\tH100-SXM-80GB\t8\t80\thttps://x\naws\tP5.48xlarge\tH100-SXM-80GB\t8\t80\thttps://x\n",
	} {
		if _, err := GenerateInstanceTypes([]byte(head+row), gpusJSON); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// A worked example per provider, each checked against the provider's page.
func TestInstanceTypeExamples(t *testing.T) {
	for _, tt := range []struct {
		name, gpu string
		gpus      int
	}{
		{"p4d.24xlarge", "A100-SXM4-40GB", 8},
		{"p5.48xlarge", "H100-SXM-80GB", 8},
		{"a3-highgpu-8g", "H100-SXM-80GB", 8},
		{"g2-standard-4", "L4", 1},
		{"g2-standard-24", "L4", 2},
		{"Standard_ND96isr_H100_v5", "H100-SXM-80GB", 8},
		{"standard_nd96isr_h100_v5", "H100-SXM-80GB", 8},
		{"BM.GPU.H100.8", "H100-SXM-80GB", 8},
		{"BM.GPU4.8", "A100-SXM4-40GB", 8},
		{"Standard_ND96isr_MI300X_v5", "MI300X", 8},
	} {
		it, g, ok := Default().InstanceType(tt.name)
		if !ok || g.Name != tt.gpu || it.GPUs != tt.gpus {
			t.Errorf("InstanceType(%q) = %+v, %+v, %v; want %d × %s", tt.name, it, g, ok, tt.gpus, tt.gpu)
		}
	}
	if _, _, ok := Default().InstanceType("m5.xlarge"); ok {
		t.Error("m5.xlarge has no GPU")
	}
}

func gpuServer(gpu, key string, cands ...string) *deploy.Server {
	s := server("meta-llama/Llama-3.1-8B-Instruct", "")
	s.GPU = deploy.Known(gpu, deploy.Span{File: "d.yaml", Line: 9, Col: 40})
	if len(cands) > 0 {
		s.GPU.Known = false
	}
	s.GPUKey, s.GPUCandidates = key, cands
	return s
}

func TestGPUFromFiles(t *testing.T) {
	for _, tt := range []struct {
		name     string
		s        *deploy.Server
		opt      Options
		gpu, src string
		memMiB   int64
	}{
		{"instance type", gpuServer("p5.48xlarge", "node.kubernetes.io/instance-type"), Options{},
			"H100-SXM-80GB", "node.kubernetes.io/instance-type p5.48xlarge at d.yaml:9:40 (8 × H100-SXM-80GB per node", 81559},
		{"beta instance type", gpuServer("g2-standard-4", "beta.kubernetes.io/instance-type"), Options{},
			"L4", "beta.kubernetes.io/instance-type g2-standard-4 at d.yaml:9:40 (1 × L4", 23034},
		{"--gpu does not override", gpuServer("NVIDIA-A100-SXM4-80GB", "nvidia.com/gpu.product"), Options{GPU: "L4"},
			"A100-SXM4-80GB", "nvidia.com/gpu.product NVIDIA-A100-SXM4-80GB at d.yaml:9:40", 81920},
		{"--gpu where the files name none", server("meta-llama/Llama-3.1-8B-Instruct", ""), Options{GPU: "L4"},
			"L4", "--gpu (the files name none)", 23034},
		{".kvlint.yaml gpu:", server("meta-llama/Llama-3.1-8B-Instruct", ""), Options{GPU: "L4", GPUSource: ".kvlint.yaml gpu:"},
			"L4", ".kvlint.yaml gpu: (the files name none)", 23034},
		{"--gpu where the files' GPU is unreadable", gpuServer("x9.huge", "node.kubernetes.io/instance-type"), Options{GPU: "L4"},
			"L4", "--gpu (the files name none kvlint can read)", 23034},
		{"gke accelerator", gpuServer("nvidia-l4", "cloud.google.com/gke-accelerator"), Options{},
			"L4", "cloud.google.com/gke-accelerator nvidia-l4 at d.yaml:9:40", 23034},
		{"karpenter", gpuServer("h100", "karpenter.k8s.aws/instance-gpu-name"), Options{},
			"H100-SXM-80GB", "karpenter.k8s.aws/instance-gpu-name h100", 81559},
		{"gpu.memory alone", gpuServer("97871", "nvidia.com/gpu.memory"), Options{},
			"NVIDIA GPU with 97,871 MiB", "nvidia.com/gpu.memory 97871", 97871},
		{"amd label", gpuServer("AMD_Instinct_MI300X_OAM", "amd.com/gpu.product-name"), Options{},
			"MI300X", "amd.com/gpu.product-name AMD_Instinct_MI300X_OAM", 196592},
		{"beta amd label", gpuServer("Instinct_MI300X", "beta.amd.com/gpu.product-name"), Options{},
			"MI300X", "beta.amd.com/gpu.product-name Instinct_MI300X", 196592},
		{"slurm gres name", gpuServer("h100-80gb-hbm3", ""), Options{},
			"H100-SXM-80GB", "the deployment h100-80gb-hbm3", 81559},
		{"candidates, same memory", gpuServer("a,b", "node.kubernetes.io/instance-type", "p5.48xlarge", "a3-highgpu-8g"), Options{},
			"H100-SXM-80GB", "any of p5.48xlarge (H100-SXM-80GB, 81,559 MiB), a3-highgpu-8g (H100-SXM-80GB, 81,559 MiB)", 81559},
	} {
		t.Run(tt.name, func(t *testing.T) {
			est := EstimateServer(tt.s, tt.opt)
			if est.GPU != tt.gpu || !strings.HasPrefix(est.GPUSource, tt.src) && !strings.Contains(est.GPUSource, tt.src) {
				t.Errorf("GPU %q from %q; want %q from %q\n%q", est.GPU, est.GPUSource, tt.gpu, tt.src, est.Assumptions)
			}
			if est.GPUMemoryBytes == nil || *est.GPUMemoryBytes != tt.memMiB<<20 {
				t.Errorf("memory %v, want %d MiB", est.GPUMemoryBytes, tt.memMiB)
			}
		})
	}
}

func TestGPUCandidatesDiffer(t *testing.T) {
	s := gpuServer("p4d.24xlarge,p4de.24xlarge", "node.kubernetes.io/instance-type", "p4d.24xlarge", "p4de.24xlarge")
	est := EstimateServer(s, Options{GPU: "L4"})
	if est.GPU != "L4" || est.GPUSource != "--gpu (the files name none kvlint can read)" {
		t.Errorf("GPU %q from %q", est.GPU, est.GPUSource)
	}
	est = EstimateServer(s, Options{})
	if est.GPU != "" || est.GPUMemoryBytes != nil {
		t.Errorf("GPU %q known though the candidates differ in memory", est.GPU)
	}
	if !containsText(est.Assumptions, "p4d.24xlarge (A100-SXM4-40GB, 40,960 MiB), p4de.24xlarge (A100-SXM4-80GB, 81,920 MiB)") {
		t.Errorf("candidates not listed: %q", est.Assumptions)
	}
}

// A first candidate kvlint does not know leaves the GPU unknown (an OME
// runtime's affinity allowing BM.GPU.B4.8 first used to crash here).
func TestGPUCandidatesFirstUnknown(t *testing.T) {
	s := gpuServer("x9.huge,p5.48xlarge", "node.kubernetes.io/instance-type", "x9.huge", "p5.48xlarge")
	est := EstimateServer(s, Options{})
	if est.GPU != "" || est.GPUMemoryBytes != nil {
		t.Errorf("GPU %q known though one candidate is unknown", est.GPU)
	}
	if !containsText(est.Assumptions, "x9.huge (not in kvlint's catalog), p5.48xlarge (H100-SXM-80GB, 81,559 MiB)") {
		t.Errorf("candidates not listed: %q", est.Assumptions)
	}
}

func TestMIGSlice(t *testing.T) {
	s := gpuServer("NVIDIA-A100-SXM4-80GB", "nvidia.com/gpu.product")
	s.GPUSlice = deploy.Known("1g.10gb", deploy.Span{File: "d.yaml", Line: 20, Col: 26})
	est := EstimateServer(s, Options{})
	if est.GPUMemoryBytes == nil || *est.GPUMemoryBytes != 81920/8<<20 {
		t.Errorf("slice memory %v, want 10,240 MiB", est.GPUMemoryBytes)
	}
	if est.GPUSource != "nvidia.com/mig-1g.10gb at d.yaml:20:26" {
		t.Errorf("source %q", est.GPUSource)
	}
	s = server("meta-llama/Llama-3.1-8B-Instruct", "")
	s.GPUSlice = deploy.Known("2g.20gb+me", deploy.Span{File: "d.yaml", Line: 20, Col: 26})
	est = EstimateServer(s, Options{})
	if est.GPUMemoryBytes == nil || *est.GPUMemoryBytes != 20_000_000_000>>20<<20 {
		t.Errorf("slice memory %v, want the nominal 20 GB", est.GPUMemoryBytes)
	}
	for in, want := range map[string]int64{"1g.10gb": 10, "7g.80gb": 80, "1g.5gb+me": 5, "3g": 0, "1g.tengb": 0} {
		if got, _ := migGB(in); got != want {
			t.Errorf("migGB(%q) = %d, want %d", in, got, want)
		}
	}
}
