package capacity

// WithGPU recomputes the estimate as if the server ran on gpu, a catalog
// GPU name, by the same steps EstimateServer takes. Like kvlint --gpu it
// stands in only where the files name no GPU kvlint can read: a GPU they
// declare is not overridden, but one it cannot resolve is (the caller
// decides whether such a what-if means anything). ok is false for an
// estimate not computed from a server, or for a GPU the catalog does not
// know. The model its estimate resolved is reused: it depends on no GPU.
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
	return estimateServer(e.inputs.server, opt, e.inputs.model), true
}
