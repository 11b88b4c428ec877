package k8s

import (
	"slices"
	"testing"
)

// gpuPod is a pod running SGLang with the given spec lines before its
// containers and the given resources lines in its container.
func gpuPod(spec, resources string) string {
	return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n" + spec +
		"  containers:\n    - name: c\n      image: lmsysorg/sglang\n" +
		"      command: [python3, -m, sglang.launch_server, --model-path, m]\n" + resources
}

func TestGPUFromNodeLabels(t *testing.T) {
	for _, tt := range []struct {
		name, spec, key, raw string
		known                bool
		at                   pos
		cands                []string
	}{
		{"gpu.product selector", "  nodeSelector:\n    nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3\n",
			"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3", true, pos{7, 29, 50}, nil},
		{"gpu.memory selector", "  nodeSelector:\n    nvidia.com/gpu.memory: \"81920\"\n",
			"nvidia.com/gpu.memory", "81920", true, pos{7, 29, 34}, nil},
		{"gke accelerator", "  nodeSelector:\n    cloud.google.com/gke-accelerator: nvidia-l4\n",
			"cloud.google.com/gke-accelerator", "nvidia-l4", true, pos{7, 39, 48}, nil},
		{"karpenter", "  nodeSelector:\n    karpenter.k8s.aws/instance-gpu-name: h100\n",
			"karpenter.k8s.aws/instance-gpu-name", "h100", true, pos{7, 42, 46}, nil},
		{"instance type", "  nodeSelector:\n    node.kubernetes.io/instance-type: p5.48xlarge\n",
			"node.kubernetes.io/instance-type", "p5.48xlarge", true, pos{7, 39, 50}, nil},
		{"beta instance type", "  nodeSelector:\n    beta.kubernetes.io/instance-type: g2-standard-4\n",
			"beta.kubernetes.io/instance-type", "g2-standard-4", true, pos{7, 39, 52}, nil},
		{"amd label", "  nodeSelector:\n    amd.com/gpu.product-name: AMD_Instinct_MI300X_OAM\n",
			"amd.com/gpu.product-name", "AMD_Instinct_MI300X_OAM", true, pos{7, 31, 54}, nil},
		{"beta amd label", "  nodeSelector:\n    beta.amd.com/gpu.product-name: Instinct_MI300X\n",
			"beta.amd.com/gpu.product-name", "Instinct_MI300X", true, pos{7, 36, 51}, nil},
		{"product wins over instance type", "  nodeSelector:\n    node.kubernetes.io/instance-type: p4de.24xlarge\n    nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB\n",
			"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB", true, pos{8, 29, 50}, nil},
		{"affinity one value", "  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n          - matchExpressions:\n              - key: node.kubernetes.io/instance-type\n                operator: In\n                values: [a3-highgpu-8g]\n",
			"node.kubernetes.io/instance-type", "a3-highgpu-8g", true, pos{13, 26, 39}, nil},
		{"affinity several values", "  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n          - matchExpressions:\n              - key: node.kubernetes.io/instance-type\n                operator: In\n                values: [p4d.24xlarge, p4de.24xlarge]\n",
			"node.kubernetes.io/instance-type", "p4d.24xlarge,p4de.24xlarge", false, pos{13, 26, 53}, []string{"p4d.24xlarge", "p4de.24xlarge"}},
		{"NotIn is no pin", "  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n          - matchExpressions:\n              - key: node.kubernetes.io/instance-type\n                operator: NotIn\n                values: [p4d.24xlarge]\n",
			"", "", false, pos{}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			servers, errs := parseString(gpuPod(tt.spec, ""))
			if len(errs) > 0 || len(servers) != 1 {
				t.Fatalf("servers %d, errors %v", len(servers), errs)
			}
			s := servers[0]
			if s.GPUKey != tt.key || !slices.Equal(s.GPUCandidates, tt.cands) {
				t.Errorf("key %q candidates %q, want %q %q", s.GPUKey, s.GPUCandidates, tt.key, tt.cands)
			}
			if tt.key == "" {
				if s.GPU.IsSet() {
					t.Errorf("GPU %+v from a selector that pins none", s.GPU)
				}
				return
			}
			checkValue(t, "gpu", s.GPU, tt.raw, tt.known, "in.yaml", tt.at)
		})
	}
}

func TestGPUResources(t *testing.T) {
	for _, tt := range []struct {
		name, res string
		count     string
		countAt   pos
		slice     string
		sliceAt   pos
	}{
		{"nvidia", "      resources:\n        limits:\n          nvidia.com/gpu: 2\n", "2", pos{12, 27, 28}, "", pos{}},
		{"amd", "      resources:\n        limits:\n          amd.com/gpu: 4\n", "4", pos{12, 24, 25}, "", pos{}},
		{"mig", "      resources:\n        limits:\n          nvidia.com/mig-1g.10gb: 1\n", "1", pos{12, 35, 36}, "1g.10gb", pos{12, 26, 33}},
		{"mig request", "      resources:\n        requests:\n          nvidia.com/mig-3g.40gb: \"1\"\n", "1", pos{12, 36, 37}, "3g.40gb", pos{12, 26, 33}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			servers, errs := parseString(gpuPod("", tt.res))
			if len(errs) > 0 || len(servers) != 1 {
				t.Fatalf("servers %d, errors %v", len(servers), errs)
			}
			s := servers[0]
			checkValue(t, "gpu count", s.GPUCount, tt.count, true, "in.yaml", tt.countAt)
			if tt.slice == "" {
				if s.GPUSlice.IsSet() {
					t.Errorf("slice %+v", s.GPUSlice)
				}
				return
			}
			checkValue(t, "gpu slice", s.GPUSlice, tt.slice, true, "in.yaml", tt.sliceAt)
		})
	}
}
