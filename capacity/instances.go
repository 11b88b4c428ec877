package capacity

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// instanceTypesJSON is generated from data/instance-types.tsv by
// data/gen/instancetypes (GenerateInstanceTypes).
//
//go:embed data/instance-types.json
var instanceTypesJSON []byte

// InstanceType is a cloud machine type with GPUs attached: what the
// provider's documentation says it carries.
type InstanceType struct {
	Provider string `json:"provider"` // aws, gcp, azure, oci
	Name     string `json:"instance_type"`
	GPU      string `json:"gpu"`  // catalog name (gpus.json)
	GPUs     int    `json:"gpus"` // GPUs per instance
	// GPUMemoryGB is the per-GPU memory the provider states; the estimate
	// uses the catalog GPU's nvidia-smi total, this only checks the row.
	GPUMemoryGB int    `json:"gpu_memory_gb"`
	Source      string `json:"source"` // the provider's page
}

var instanceColumns = []string{"provider", "instance_type", "gpu", "gpus", "gpu_memory_gb", "source"}

// GenerateInstanceTypes turns the hand-maintained TSV (data/instance-types.tsv)
// into the embedded JSON, checking every row: known provider, a count, a
// GPU in gpus (the GPU catalog JSON) whose marketed memory is the row's,
// an https source, and no type listed twice.
func GenerateInstanceTypes(tsv, gpus []byte) ([]byte, error) {
	var catalog []GPU
	if err := decodeStrict(gpus, &catalog); err != nil {
		return nil, fmt.Errorf("gpus: %w", err)
	}
	byName := map[string]*GPU{}
	for i := range catalog {
		byName[catalog[i].Name] = &catalog[i]
	}
	var rows []InstanceType
	seen := map[string]bool{}
	header := false
	for n, line := range strings.Split(string(tsv), "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if !header {
			if strings.Join(cols, ",") != strings.Join(instanceColumns, ",") {
				return nil, fmt.Errorf("line %d: header %q, want %q", n+1, cols, instanceColumns)
			}
			header = true
			continue
		}
		if len(cols) != len(instanceColumns) {
			return nil, fmt.Errorf("line %d: %d columns, want %d", n+1, len(cols), len(instanceColumns))
		}
		row := InstanceType{Provider: cols[0], Name: cols[1], GPU: cols[2], Source: cols[5]}
		var err error
		if row.GPUs, err = strconv.Atoi(cols[3]); err != nil || row.GPUs < 1 {
			return nil, fmt.Errorf("line %d: gpus %q is not a positive count", n+1, cols[3])
		}
		if row.GPUMemoryGB, err = strconv.Atoi(cols[4]); err != nil || row.GPUMemoryGB < 1 {
			return nil, fmt.Errorf("line %d: gpu_memory_gb %q is not a positive number", n+1, cols[4])
		}
		switch row.Provider {
		case "aws", "gcp", "azure", "oci":
		default:
			return nil, fmt.Errorf("line %d: unknown provider %q", n+1, row.Provider)
		}
		g := byName[row.GPU]
		switch {
		case g == nil:
			return nil, fmt.Errorf("line %d: GPU %q is not in the GPU catalog", n+1, row.GPU)
		case g.MarketingGB != 0 && g.MarketingGB != row.GPUMemoryGB:
			return nil, fmt.Errorf("line %d: %s has %d GB per GPU, the catalog's %s %d GB", n+1, row.Name, row.GPUMemoryGB, g.Name, g.MarketingGB)
		case !strings.HasPrefix(row.Source, "https://"):
			return nil, fmt.Errorf("line %d: source %q is not a page address", n+1, row.Source)
		}
		key := strings.ToLower(row.Name)
		if seen[key] {
			return nil, fmt.Errorf("line %d: %s listed twice", n+1, row.Name)
		}
		seen[key] = true
		rows = append(rows, row)
	}
	var b bytes.Buffer
	b.WriteString("[\n")
	for i, r := range rows {
		line, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		b.WriteString(" ")
		b.Write(line)
		if i < len(rows)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("]\n")
	return b.Bytes(), nil
}

// InstanceType finds a cloud instance type by name (case-insensitively:
// Azure writes its sizes in both cases) and the catalog GPU it carries.
func (c *Catalog) InstanceType(name string) (*InstanceType, *GPU, bool) {
	name = strings.TrimSpace(name)
	for i := range c.instances {
		it := c.instances[i]
		if !strings.EqualFold(it.Name, name) {
			continue
		}
		for j := range c.gpus {
			if c.gpus[j].Name == it.GPU {
				g := c.gpus[j]
				return &it, &g, true
			}
		}
		return &it, nil, false
	}
	return nil, nil, false
}
