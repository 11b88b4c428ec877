package capacity

import (
	"maps"
	"math"
	"strconv"

	"github.com/kvlint/kvlint/deploy"
)

// estimateInputs are what an estimate was computed from: With recomputes
// it from the same server and options with some flags changed.
type estimateInputs struct {
	server *deploy.Server
	opt    Options
	// maxModelLen is vLLM's "estimated maximum model length" for the
	// memory the cache has; set by poolVLLM when the length is known.
	maxModelLen    int64
	maxModelLenSet bool
	// heads and kvHeads are the model's attention and KV heads; 0 unknown.
	heads, kvHeads int
	// model is the server's model as resolveModel found it, shared by the
	// estimates With makes from this one; nil until it is resolved.
	model *modelResolution
}

// modelResolution is what resolving a server's model found: the model (nil
// when none), the name it resolved to, and the notes resolving it wrote;
// and the speculative draft, when the server has one. Only the estimate
// that made it changes it, before it returns, so the estimates With makes
// from it share it.
type modelResolution struct {
	model       *Model
	resolved    string
	assumptions []string
	derivation  []string
	missing     []string
	draft       *draftResolution
	// candidates are the resolutions of the models the files allow a
	// server that names none (byCandidates), by id; nil until sized.
	candidates map[string]*modelResolution
}

// draftResolution is what resolving a draft named name found: the draft
// (nil when none) and the notes resolving it wrote.
type draftResolution struct {
	name        string
	model       *Model
	assumptions []string
}

// Change sets one canonical flag to a typed value for With, or removes it
// (the engine's default then applies).
type Change struct {
	Flag   string
	Typed  deploy.Typed
	Raw    string
	Remove bool
	// GPUs, when above 0, is no flag: the GPU count the server is given
	// (a fix that raises --tp-size raises the container's request with it).
	GPUs int
}

// SetGPUCount is a Change that gives the server n GPUs per node.
func SetGPUCount(n int) Change { return Change{GPUs: n} }

// SetInt is a Change that sets flag to n.
func SetInt(flag string, n int64) Change {
	return Change{Flag: flag, Typed: deploy.TypedInt(n), Raw: strconv.FormatInt(n, 10)}
}

// SetFloat is a Change that sets flag to f, written with the fewest digits
// that read back as f.
func SetFloat(flag string, f float64) Change {
	return Change{Flag: flag, Typed: deploy.TypedFloat(f), Raw: strconv.FormatFloat(f, 'f', -1, 64)}
}

// Unset is a Change that removes flag.
func Unset(flag string) Change { return Change{Flag: flag, Remove: true} }

// With recomputes the estimate as if the server's flags carried changes,
// by the same steps EstimateServer takes: a fix is judged by the arithmetic
// that judged the finding, never by a second formula. ok is false for an
// estimate not computed from a server.
func (e *Estimate) With(changes ...Change) (Estimate, bool) {
	if e == nil || e.inputs == nil || e.inputs.server == nil {
		return Estimate{}, false
	}
	s := *e.inputs.server
	s.Args = maps.Clone(s.Args)
	if s.Args == nil {
		s.Args = map[string]deploy.Value{}
	}
	for _, c := range changes {
		if c.GPUs > 0 {
			s.GPUCount = deploy.Value{Raw: strconv.Itoa(c.GPUs), Known: true, Span: s.GPUCount.Span}
			s.GPUCountCandidates = nil
			continue
		}
		if c.Remove {
			delete(s.Args, c.Flag)
			continue
		}
		old := s.Args[c.Flag]
		s.Args[c.Flag] = deploy.Value{Raw: c.Raw, Known: true, Typed: c.Typed, Span: old.Span}
	}
	return estimateServer(&s, e.inputs.opt, e.inputs.model), true
}

// FractionFlag is the flag that sets the share of GPU memory an engine
// sizes its KV cache from: SGLang's --mem-fraction-static, vLLM's
// --gpu-memory-utilization; "" for other engines.
func FractionFlag(engine deploy.Engine) string {
	switch engine {
	case deploy.EngineSGLang:
		return "--mem-fraction-static"
	case deploy.EngineVLLM:
		return "--gpu-memory-utilization"
	}
	return ""
}

// PoolAtFraction is the estimate with the memory fraction set to f: the
// pool the engine would allocate then (PoolTokens), or why it would not
// start (StartupError).
func (e *Estimate) PoolAtFraction(f float64) (Estimate, bool) {
	flag := FractionFlag(e.Engine)
	if flag == "" {
		return Estimate{}, false
	}
	return e.With(SetFloat(flag, f))
}

// FractionStep is the granularity of the memory fractions kvlint offers:
// hundredths, as deployments write them (0.85, 0.9).
const FractionStep = 0.01

// FractionForPool finds the smallest fraction, in hundredths and at most
// ceiling, at which the pool holds need tokens (with changes applied too)
// and the server starts. ok is false when no fraction up to ceiling does.
func (e *Estimate) FractionForPool(need int64, ceiling float64, changes ...Change) (float64, Estimate, bool) {
	flag := FractionFlag(e.Engine)
	if flag == "" || need <= 0 {
		return 0, Estimate{}, false
	}
	holds := func(h int) (Estimate, bool) {
		f := float64(h) / 100
		est, ok := e.With(append([]Change{SetFloat(flag, f)}, changes...)...)
		if !ok || est.StartupError != "" || est.PoolTokens == nil {
			return est, false
		}
		return est, *est.PoolTokens >= need
	}
	hi := int(math.Floor(ceiling*100 + 1e-9))
	if hi > 100 {
		hi = 100
	}
	top, ok := holds(hi)
	if hi < 1 || !ok {
		return 0, Estimate{}, false
	}
	// The pool grows with the fraction: binary search for the smallest
	// hundredth that holds need.
	lo := 0 // does not hold (a fraction of 0 leaves no pool)
	best, bestEst := hi, top
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if est, ok := holds(mid); ok {
			hi, best, bestEst = mid, mid, est
		} else {
			lo = mid
		}
	}
	return float64(best) / 100, bestEst, true
}

// EstimatedMaxModelLen is the longest max_model_len vLLM's KV cache holds
// in the memory it has: what vLLM's startup error calls "the estimated
// maximum model length". ok is false when the cache was not sized.
func (e *Estimate) EstimatedMaxModelLen() (int64, bool) {
	if e == nil || e.inputs == nil || !e.inputs.maxModelLenSet {
		return 0, false
	}
	return e.inputs.maxModelLen, true
}

// SplitsHeads reports whether tp GPUs can split the model's attention:
// SGLang's attention layers assert num_attention_heads % tp == 0 and that
// the KV heads either split evenly over tp or tp is a multiple of them
// (sgl-project/sglang@00239548 python/sglang/srt/models/llama.py
// LlamaAttention.__init__; the other dense models repeat the asserts).
// known is false when the model's heads are not known.
func (e *Estimate) SplitsHeads(tp int) (ok, known bool) {
	if e == nil || e.inputs == nil || e.inputs.heads <= 0 || tp < 1 {
		return false, false
	}
	h, kv := e.inputs.heads, e.inputs.kvHeads
	if h%tp != 0 {
		return false, true
	}
	if kv > 0 {
		if kv >= tp && kv%tp != 0 || kv < tp && tp%kv != 0 {
			return false, true
		}
	}
	return true, true
}
