package capacity

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// The catalogs are data, not code: capacity/data/README.md describes the
// format and where each fact comes from.
var (
	//go:embed data/models.json
	modelsJSON []byte
	//go:embed data/gpus.json
	gpusJSON []byte
)

// Catalog is kvlint's embedded knowledge of models and GPUs.
type Catalog struct {
	models  []Model
	gpus    []GPU
	byID    map[string]int   // lower-cased id or alias → models index
	byLast  map[string][]int // lower-cased last path component → models indexes
	gpuKeys map[string][]gpuKey
	// instances are the cloud instance types with GPUs (instances.go).
	instances []InstanceType
}

// gpuKey is one way of naming a GPU; assumed marks a bare name that could
// also mean a sibling with other memory.
type gpuKey struct {
	index   int
	assumed bool
}

var (
	defaultOnce    sync.Once
	defaultCatalog *Catalog
)

// Default returns the embedded catalog, decoded once. The embedded data is
// checked by the package tests, so a decoding failure is a build defect and
// panics at first use rather than silently yielding an empty catalog.
func Default() *Catalog {
	defaultOnce.Do(func() {
		c, err := NewCatalog(modelsJSON, gpusJSON)
		if err != nil {
			panic("capacity: embedded catalog: " + err.Error())
		}
		defaultCatalog = c
	})
	return defaultCatalog
}

// NewCatalog decodes catalogs in the format of capacity/data (JSON arrays of
// Model and GPU). Unknown fields are errors, so a misspelt key in the data
// can't silently drop a fact.
func NewCatalog(modelsData, gpusData []byte) (*Catalog, error) {
	c := &Catalog{byID: map[string]int{}, byLast: map[string][]int{}, gpuKeys: map[string][]gpuKey{}}
	if err := decodeStrict(modelsData, &c.models); err != nil {
		return nil, fmt.Errorf("models: %w", err)
	}
	if err := decodeStrict(gpusData, &c.gpus); err != nil {
		return nil, fmt.Errorf("gpus: %w", err)
	}
	if err := decodeStrict(instanceTypesJSON, &c.instances); err != nil {
		return nil, fmt.Errorf("instance types: %w", err)
	}
	for i := range c.models {
		m := &c.models[i]
		if m.ID == "" || m.Layers <= 0 || m.Heads <= 0 || m.HiddenSize <= 0 || m.Source == "" {
			return nil, fmt.Errorf("model %d (%q): id, num_hidden_layers, num_attention_heads, hidden_size and source are required", i, m.ID)
		}
		for _, id := range append([]string{m.ID}, m.Aliases...) {
			key := strings.ToLower(id)
			if _, dup := c.byID[key]; dup {
				return nil, fmt.Errorf("model id %q listed twice", id)
			}
			c.byID[key] = i
			last := strings.ToLower(lastPathComponent(id))
			c.byLast[last] = appendUnique(c.byLast[last], i)
		}
	}
	for i := range c.gpus {
		g := &c.gpus[i]
		if g.Name == "" || g.Source == "" {
			return nil, fmt.Errorf("gpu %d (%q): name and source are required", i, g.Name)
		}
		// GKE accelerator names are matched verbatim (lookupGPU), not
		// normalized: "nvidia-tesla-a100" means the 40 GB card, while the
		// bare "A100" it would normalize to is ambiguous.
		names := [][]string{{g.Name}, g.SMINames, g.Aliases, g.GFDProducts, g.AMDProducts}
		for _, list := range names {
			for _, n := range list {
				c.addGPUKey(n, i, false)
			}
		}
		for _, n := range g.AssumedAliases {
			c.addGPUKey(n, i, true)
		}
	}
	return c, nil
}

func (c *Catalog) addGPUKey(name string, index int, assumed bool) {
	key := normalizeGPUName(name)
	for _, k := range c.gpuKeys[key] {
		if k.index == index {
			return
		}
	}
	c.gpuKeys[key] = append(c.gpuKeys[key], gpuKey{index: index, assumed: assumed})
}

func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

func appendUnique(list []int, i int) []int {
	for _, x := range list {
		if x == i {
			return list
		}
	}
	return append(list, i)
}

// Models returns every catalog model, sorted by id.
func (c *Catalog) Models() []*Model {
	out := make([]*Model, len(c.models))
	for i := range c.models {
		m := c.models[i]
		out[i] = &m
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// GPUs returns every catalog GPU, in catalog order.
func (c *Catalog) GPUs() []*GPU {
	out := make([]*GPU, len(c.gpus))
	for i := range c.gpus {
		g := c.gpus[i]
		out[i] = &g
	}
	return out
}

// modelMatch says how a name matched a catalog model.
type modelMatch int

const (
	matchNone  modelMatch = iota
	matchID               // the id, case-insensitively
	matchAlias            // another id of the same configuration
	matchPath             // a path whose last component is a catalog id's
)

// Model finds a model by Hugging Face id (case-insensitive), or by a local
// path or other repository whose last component equals the last component of
// exactly one catalog id ("/models/Llama-3.1-8B-Instruct"). The second kind
// of match is a guess about what the directory holds: EstimateServer reports
// it as an assumption. The result is a copy.
func (c *Catalog) Model(name string) (*Model, bool) {
	m, _ := c.lookupModel(name)
	return m, m != nil
}

func (c *Catalog) lookupModel(name string) (*Model, modelMatch) {
	name = strings.TrimSpace(name)
	if name == "" {
		return nil, matchNone
	}
	if i, ok := c.byID[strings.ToLower(name)]; ok {
		m := c.models[i]
		if strings.EqualFold(m.ID, name) {
			return &m, matchID
		}
		return &m, matchAlias
	}
	// A local path, another repository's copy, or a bare directory name.
	last := strings.ToLower(lastPathComponent(name))
	if idx := c.byLast[last]; last != "" && len(idx) == 1 {
		m := c.models[idx[0]]
		return &m, matchPath
	}
	return nil, matchNone
}

// GPU finds a GPU by product name, marketing name or label value, written in
// any of the usual ways: "H100", "H100-80GB", "NVIDIA H100 80GB HBM3",
// "NVIDIA-H100-80GB-HBM3", "nvidia-h100-80gb". A name shared by GPUs with
// different memory ("A100", "V100") matches nothing.
func (c *Catalog) GPU(nameOrLabel string) (*GPU, bool) {
	g, _ := c.lookupGPU(nameOrLabel)
	return g, g != nil
}

// gpuMatch describes a GPU lookup: assumed is set when the name was a bare
// one that could also mean a sibling; candidates lists the catalog names of
// an ambiguous name.
type gpuMatch struct {
	assumed    bool
	candidates []string
}

func (c *Catalog) lookupGPU(name string) (*GPU, gpuMatch) {
	var gke []string
	for i := range c.gpus {
		for _, n := range c.gpus[i].GKEAccelerators {
			if strings.EqualFold(strings.TrimSpace(name), n) {
				gke = append(gke, c.gpus[i].Name)
			}
		}
	}
	switch len(gke) {
	case 0:
	case 1:
		for i := range c.gpus {
			if c.gpus[i].Name == gke[0] {
				g := c.gpus[i]
				return &g, gpuMatch{}
			}
		}
	default:
		return nil, gpuMatch{candidates: gke} // nvidia-tesla-v100: 16 or 32 GB
	}
	key := normalizeGPUName(name)
	if key == "" {
		return nil, gpuMatch{}
	}
	keys := c.gpuKeys[key]
	switch len(keys) {
	case 0:
		return nil, gpuMatch{}
	case 1:
		g := c.gpus[keys[0].index]
		return &g, gpuMatch{assumed: keys[0].assumed}
	}
	// Several GPUs answer to the name; an exact (not assumed) name wins.
	var exact []gpuKey
	for _, k := range keys {
		if !k.assumed {
			exact = append(exact, k)
		}
	}
	if len(exact) == 1 {
		g := c.gpus[exact[0].index]
		return &g, gpuMatch{}
	}
	var cands []string
	for _, k := range keys {
		cands = append(cands, c.gpus[k.index].Name)
	}
	return nil, gpuMatch{candidates: cands}
}

// GPUByNodeLabel finds the GPU a Kubernetes node label (a nodeSelector or
// node-affinity term) names. Known keys: nvidia.com/gpu.product (GPU feature
// discovery; "-SHARED" is ignored, MIG slices match nothing because their
// memory is a fraction of the card's), cloud.google.com/gke-accelerator,
// karpenter.k8s.aws/instance-gpu-name and eks.amazonaws.com/instance-gpu-name,
// node.kubernetes.io/instance-type (and the beta key), amd.com/gpu.product-name
// (and beta.amd.com/…), and the product-name labels of CoreWeave
// (gpu.nvidia.com/class), SkyPilot (skypilot.co/accelerator), Ray
// (ray.io/accelerator-type) and Azure Karpenter (karpenter.azure.com/sku-gpu-name).
// Other keys, and values that fit several GPUs with different memory, match
// nothing.
func (c *Catalog) GPUByNodeLabel(key, value string) (*GPU, bool) {
	value = strings.TrimSpace(value)
	if value == "" {
		return nil, false
	}
	switch key {
	case "nvidia.com/gpu.product":
		if strings.Contains(strings.ToUpper(value), "-MIG-") {
			return nil, false
		}
		return c.gpuByList(value, func(g *GPU) []string { return append(append([]string{}, g.GFDProducts...), g.SMINames...) })
	case "cloud.google.com/gke-accelerator":
		g, m := c.lookupGPU(value)
		return g, g != nil && !m.assumed
	case "karpenter.k8s.aws/instance-gpu-name", "eks.amazonaws.com/instance-gpu-name":
		return c.gpuByList(value, func(g *GPU) []string { return g.KarpenterGPUNames })
	case "node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type":
		return c.gpuByInstanceType(value)
	case "amd.com/gpu.product-name", "beta.amd.com/gpu.product-name":
		return c.gpuByList(value, func(g *GPU) []string { return g.AMDProducts })
	case "skypilot.co/accelerator":
		g, _, _ := c.SkyPilotGPU(value)
		return g, g != nil
	case "gpu.nvidia.com/class", "ray.io/accelerator-type", "karpenter.azure.com/sku-gpu-name":
		return c.GPU(value)
	}
	return nil, false
}

// gpuByList matches value (normalized) against one kind of name.
func (c *Catalog) gpuByList(value string, names func(*GPU) []string) (*GPU, bool) {
	want := normalizeGPUName(value)
	found := -1
	for i := range c.gpus {
		for _, n := range names(&c.gpus[i]) {
			if normalizeGPUName(n) == want {
				if found >= 0 && found != i && c.gpus[found].MemoryMiB != c.gpus[i].MemoryMiB {
					return nil, false // e.g. karpenter "a100": 40 or 80 GB
				}
				if found < 0 {
					found = i
				}
			}
		}
	}
	if found < 0 {
		return nil, false
	}
	g := c.gpus[found]
	return &g, true
}

// gpuByInstanceType maps a cloud instance type to its GPU through the
// instance-type table (data/instance-types.tsv).
func (c *Catalog) gpuByInstanceType(value string) (*GPU, bool) {
	_, g, ok := c.InstanceType(value)
	return g, ok
}
