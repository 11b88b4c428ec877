package capacity

// WithGPU recomputes the estimate as if the server ran on gpu, a catalog
// GPU name, by the same steps EstimateServer takes. Like kvlint --gpu it
// applies only where the server's files name no GPU: a GPU the files
// declare is not overridden. ok is false for an estimate not computed from
// a server, or for a GPU the catalog does not know.
//
// It answers "what would this server's pool be on that GPU?" for a server
// whose files name none, so a finding can say which GPUs the deployment
// holds on without kvlint assuming one.
func (e *Estimate) WithGPU(gpu string) (Estimate, bool) {
	if e == nil || e.inputs == nil || e.inputs.server == nil {
		return Estimate{}, false
	}
	opt := e.inputs.opt
	cat := opt.Catalog
	if cat == nil {
		cat = Default()
	}
	if _, ok := cat.GPU(gpu); !ok {
		return Estimate{}, false
	}
	opt.GPU, opt.GPUSource = gpu, "a what-if"
	return EstimateServer(e.inputs.server, opt), true
}
