package compose

import (
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/parsers/yamlsrc"
)

// gpuCount is the number of GPUs the service's container gets:
//   - deploy.resources.reservations.devices entries whose capabilities
//     include gpu: count (a number, or "all"), or the length of device_ids;
//     with neither, compose reserves every matching device;
//   - the gpus attribute: "all" or a list of such device entries;
//   - runtime: nvidia alone exposes NVIDIA_VISIBLE_DEVICES, "all" in the CUDA
//     images unless the environment lists device ids.
//
// Counts that depend on the host ("all") are unknown.
func (p *parser) gpuCount(svc *yaml.Node, e containerEnv) deploy.Value {
	devices := yamlsrc.Path(svc, "deploy", "resources", "reservations", "devices")
	if v, ok := p.deviceCount(devices, true); ok {
		return v
	}
	if g := yamlsrc.Get(svc, "gpus"); g != nil {
		if g.Kind == yaml.ScalarNode {
			v := p.scalar(g)
			v.Known = false // "all": every GPU of the host
			return v
		}
		if v, ok := p.deviceCount(g, false); ok {
			return v
		}
	}
	if rt, ok := yamlsrc.Str(yamlsrc.Get(svc, "runtime")); ok && rt == "nvidia" {
		if vis, ok := e["NVIDIA_VISIBLE_DEVICES"]; ok && vis.Known && vis.Raw != "all" && vis.Raw != "" {
			return deploy.Value{Raw: strconv.Itoa(len(strings.Split(vis.Raw, ","))), Known: true, Span: vis.Span}
		}
		return deploy.Unknown("all", p.src.ContentSpan(yamlsrc.Get(svc, "runtime")))
	}
	return deploy.Value{}
}

// deviceCount sums the GPUs of a list of device requests. needGPU requires
// the gpu capability (deploy.resources devices may be other hardware).
func (p *parser) deviceCount(list *yaml.Node, needGPU bool) (deploy.Value, bool) {
	if list == nil || list.Kind != yaml.SequenceNode {
		return deploy.Value{}, false
	}
	total, found := 0, false
	var unknown *deploy.Value
	var span deploy.Span
	for _, d := range list.Content {
		d = yamlsrc.Resolve(d)
		if d == nil || d.Kind != yaml.MappingNode {
			continue
		}
		if needGPU && !hasCapability(d, "gpu") {
			continue
		}
		found = true
		if c := yamlsrc.Get(d, "count"); c != nil && c.Kind == yaml.ScalarNode {
			v := p.scalar(c)
			n, err := strconv.Atoi(v.Raw)
			if !v.Known || err != nil {
				v.Known = false
				unknown = &v
				continue
			}
			total += n
			if span.IsZero() {
				span = v.Span
			}
			continue
		}
		if ids := yamlsrc.Get(d, "device_ids"); ids != nil && ids.Kind == yaml.SequenceNode {
			total += len(ids.Content)
			if span.IsZero() {
				span = p.src.NodeSpan(ids)
			}
			continue
		}
		v := deploy.Unknown("all", p.src.NodeSpan(d))
		unknown = &v
	}
	if !found {
		return deploy.Value{}, false
	}
	if unknown != nil {
		return *unknown, true
	}
	return deploy.Value{Raw: strconv.Itoa(total), Known: true, Span: span}, true
}

func hasCapability(d *yaml.Node, want string) bool {
	caps := yamlsrc.Get(d, "capabilities")
	if caps == nil || caps.Kind != yaml.SequenceNode {
		return false
	}
	for _, c := range caps.Content {
		if s, ok := yamlsrc.Str(c); ok && s == want {
			return true
		}
	}
	return false
}
