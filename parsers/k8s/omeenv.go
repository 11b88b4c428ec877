package k8s

import (
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/parsers/yamlsrc"
)

// omeComponent is the engineConfig or decoderConfig a container of an OME
// serving runtime sits under, and whether it is that component's leader or
// worker (a multi-node component) or its runner alone.
type omeComponent struct {
	config *yaml.Node
	leader bool
	worker bool
	// accelerated is set when the runtime lists accelerator classes: the
	// InferenceService may then pick one, and the controller does not set
	// PARALLELISM_SIZE the way omeEnv computes it.
	accelerated bool
}

// omeComponentOf finds the component of a container at path in an OME
// ServingRuntime or ClusterServingRuntime; ok is false elsewhere.
func omeComponentOf(o *object, path []step) (omeComponent, bool) {
	if !isOME(o.apiVersion) || o.kind != "ServingRuntime" && o.kind != "ClusterServingRuntime" {
		return omeComponent{}, false
	}
	var c omeComponent
	for i, s := range path {
		switch {
		case s.key == "engineConfig" || s.key == "decoderConfig":
			c.config = yamlsrc.Get(s.node, s.key)
		case c.config != nil && s.key == "leader" && path[i].node == c.config:
			c.leader = true
		case c.config != nil && s.key == "worker" && path[i].node == c.config:
			c.worker = true
		}
	}
	if c.config == nil {
		return omeComponent{}, false
	}
	classes := yamlsrc.Path(o.root, "spec", "acceleratorRequirements", "acceleratorClasses")
	c.accelerated = classes != nil && !yamlsrc.IsNull(classes)
	return c, true
}

// omeEnv is what OME's controller sets in the env of a runtime's
// container c, overwriting an entry the container writes itself
// (isvcutils.UpdateEnvVars): PARALLELISM_SIZE, the container's GPUs times
// the pods of the component, 1 + worker.size (sgl-project/ome@17b77edad23b
// pkg/controller/v1beta1/inferenceservice/components/engine.go
// setParallelismEnvVarForEngine and getWorkerSize, decoder.go likewise;
// set only when no accelerator class is selected, which the selector does
// only for a runtime with acceleratorRequirements.acceleratorClasses:
// pkg/acceleratorclassselector/selector.go GetAcceleratorClass, and only
// for a container with GPUs). A multi-node component runs as a
// LeaderWorkerSet of 1 + worker.size pods (reconcilers/lws/lws_reconciler.go
// createLWS), whose controller adds LWS_GROUP_SIZE and LWS_WORKER_INDEX (0
// on the leader) as lwsEnv says. A variable the controller may not set is
// left out, so the container's own value (or the unresolved $(VAR)) stands.
func (p *parser) omeEnv(comp omeComponent, c *yaml.Node) []envVar {
	var out []envVar
	workers, workersKnown, workersAt := 0, true, deploy.Span{}
	if n := yamlsrc.Path(comp.config, "worker", "size"); n != nil {
		v := p.scalar(n)
		w, err := strconv.Atoi(v.Raw)
		workers, workersKnown, workersAt = w, v.Known && err == nil && w >= 0, v.Span
	}
	gpus := p.gpuCount(c)
	if n, err := strconv.Atoi(gpus.Raw); err == nil && gpus.Known && n > 0 && workersKnown && !comp.accelerated {
		parallel := deploy.Known(strconv.Itoa(n*(1+workers)), deploy.Span{})
		parallel.Origin = parallel.Origin.Add(deploy.At(deploy.StepWritten, gpus.Span)).Add(deploy.At(deploy.StepWritten, workersAt))
		out = append(out, envVar{name: "PARALLELISM_SIZE", v: parallel})
	}
	if !comp.leader && !comp.worker {
		return out
	}
	index := deploy.Unknown("$(LWS_WORKER_INDEX)", deploy.Span{})
	if comp.leader {
		index = deploy.Known("0", deploy.Span{})
	}
	size := deploy.Unknown("$(LWS_GROUP_SIZE)", deploy.Span{})
	if workersKnown {
		size = deploy.Known(strconv.Itoa(1+workers), deploy.Span{})
		size.Origin = size.Origin.Add(deploy.At(deploy.StepWritten, workersAt))
	}
	return append(out,
		envVar{name: "LWS_LEADER_ADDRESS", v: deploy.Unknown("$(LWS_LEADER_ADDRESS)", deploy.Span{})},
		envVar{name: "LWS_GROUP_SIZE", v: size},
		envVar{name: "LWS_WORKER_INDEX", v: index})
}
