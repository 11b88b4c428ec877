package capacity

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kvlint/kvlint/deploy"
)

// byCandidates sizes a server that names no model its estimate can
// resolve but whose files allow a known set of them (deploy.Server
// ModelCandidates: the base models OME's runtime selector accepts for a
// runtime no InferenceService names). Each candidate is estimated as if
// the server named it. When all give the same pool (the Llama 3.1 and 3.3
// 70B instructs), the pool does not
// depend on which one runs: the estimate is the first candidate's with
// the model unknown, and what differs between them that no verdict turns
// on (a few bytes of weights, float16 for bfloat16) is left unknown and
// named. When the pools differ, or anything a rule judges does (the
// context window of a base and its instruct), the server stays unsized,
// and the estimate lists each candidate's pool.
// Only a set the files allow for certain is used (estimateServer): with
// one candidate undecided, the model that runs may be outside the set.
//
// own is set when est resolved its model itself rather than took it from
// an estimate With recomputes: the candidates' resolutions are then kept
// on it, so that the estimates With makes reuse them instead of resolving
// every candidate again for each fraction a fix tries.
func byCandidates(s *deploy.Server, opt Options, est Estimate, own bool) Estimate {
	var shared map[string]*modelResolution
	if est.inputs != nil && est.inputs.model != nil {
		shared = est.inputs.model.candidates
		if shared == nil && own {
			shared = map[string]*modelResolution{}
			est.inputs.model.candidates = shared
		}
	}
	ids := s.ModelCandidates
	ests := make([]Estimate, len(ids))
	for i, id := range ids {
		c := *s
		c.Model = deploy.Value{Raw: id, Known: true, Span: s.Model.Span, Origin: s.Model.Origin}
		c.ModelNote, c.ModelCandidates = "", nil
		var res *modelResolution
		if shared != nil {
			res = shared[id]
		}
		ests[i] = estimateOne(&c, opt, res)
		if res == nil && own && shared != nil && ests[i].inputs != nil && ests[i].inputs.model != nil {
			shared[id] = ests[i].inputs.model
		}
	}
	if !samePool(ests) {
		var each []string
		for i, id := range ids {
			var p string
			switch e := &ests[i]; {
			case e.PoolTokens != nil && e.ContextLength != nil:
				p = Thousands(*e.PoolTokens) + " tokens, context " + Thousands(*e.ContextLength)
			case e.PoolTokens != nil:
				p = Thousands(*e.PoolTokens) + " tokens"
			case e.StartupError != "":
				p = "none: the server would not start"
			case len(e.Missing) > 0:
				p = "not sized (" + strings.Join(e.Missing, ", ") + " unknown)"
			default:
				p = "not sized"
			}
			each = append(each, id+": "+p)
		}
		if needOnlyGPU(ests) {
			// The GPU decides the pool alone: the model
			// need not be declared for it.
			est.Missing = slices.DeleteFunc(est.Missing, func(m string) bool { return m == "model" })
			est.assume("each model the files allow (%s) gives the same cell and weights: the GPU alone decides the pool", strings.Join(ids, ", "))
			return est
		}
		est.assume("sized with each model the files allow: %s; they differ in the pool or in what the rules judge of it, so the server is not sized until the model is declared", strings.Join(each, "; "))
		return est
	}
	out := ests[0]
	out.Model = ""
	out.inputs = est.inputs
	if in, c := out.inputs, ests[0].inputs; in != nil && c != nil {
		in.heads, in.kvHeads = c.heads, c.kvHeads
		in.maxModelLen, in.maxModelLenSet = c.maxModelLen, c.maxModelLenSet
		for _, o := range ests[1:] {
			if o.inputs == nil || o.inputs.heads != c.heads || o.inputs.kvHeads != c.kvHeads {
				in.heads, in.kvHeads = 0, 0
			}
			if o.inputs == nil || o.inputs.maxModelLenSet != c.maxModelLenSet || o.inputs.maxModelLen != c.maxModelLen {
				in.maxModelLen, in.maxModelLenSet = 0, false
			}
		}
	}
	lead := fmt.Sprintf("the model is one of %s, the models the files allow; each gives the same pool, so the pool is known though the model is not (inferred: a model outside this set may run instead, one the files do not list or one whose architecture kvlint does not know); the steps below are %s's", strings.Join(ids, ", "), ids[0])
	notes := []string{lead}
	if s.ModelNote != "" {
		notes = []string{s.ModelNote, lead}
	}
	out.Assumptions = append(notes, out.Assumptions...)
	out.Derivation = append([]string{lead}, out.Derivation...)
	if differ := unsetDiffering(&out, ests[1:], ids); len(differ) > 0 {
		out.assume("the models the files allow differ in %s, which stay unknown until the model is declared; the pool does not", strings.Join(differ, ", "))
	}
	return out
}

// needOnlyGPU reports whether the candidates lack only the GPU and agree
// on the cell, the weights per GPU and the context window: on any one GPU
// they then give one pool and one verdict, and declaring the GPU sizes
// the server.
func needOnlyGPU(ests []Estimate) bool {
	key := func(e *Estimate) string {
		return fmt.Sprint(e.Engine, e.TP, e.DP, e.PP, e.PageSize, opt(e.CellBytesPerToken), opt(e.WeightsBytesPerGPU),
			opt(e.ContextLength), e.ContextSource)
	}
	for i := range ests {
		e := &ests[i]
		if len(e.Missing) != 1 || e.Missing[0] != "gpu" || e.CellBytesPerToken == nil || e.WeightsBytesPerGPU == nil || key(e) != key(&ests[0]) {
			return false
		}
	}
	return true
}

// samePool reports whether every estimate has the same pool and the same
// verdicts: the pool, its cell (whose dtype may be float16 for one and
// bfloat16 for another), the GPU, parallelism and memory fraction, and
// the context window and what follows from it, whether the server
// starts included. A base and its instruct whose context windows differ
// (Qwen2.5-14B's 131,072, its instruct's 32,768) may differ in whether
// KV101 fires, so they do not size the server. The weights may differ a
// little (a vocabulary a few tokens larger) where vLLM's whole blocks
// round the difference away.
func samePool(ests []Estimate) bool {
	key := func(e *Estimate) string {
		return fmt.Sprint(e.Engine, e.GPU, e.GPUCount, e.TP, e.DP, e.PP, e.PageSize,
			opt(e.MemFractionStatic), opt(e.GPUMemoryBytes), opt(e.CellBytesPerToken), opt(e.PoolTokens), opt(e.PoolUpperBound), e.PoolBoundBasis,
			opt(e.SWAPoolTokens), opt(e.KVBlocks), opt(e.LoggedKVTokens), opt(e.MaxRunningRequests),
			opt(e.ContextLength), e.ContextSource, opt(e.MaxRequestTokens), opt(e.FullContextRequests),
			opt(e.RequestBlocks), e.StartupError, e.StartupArg)
	}
	for i := range ests {
		if ests[i].PoolTokens == nil || key(&ests[i]) != key(&ests[0]) {
			return false
		}
	}
	return true
}

// unsetDiffering clears the fields out (the first candidate's estimate)
// shares with no other candidate, which no rule's verdict turns on: the
// weights per GPU, the memory left for the pool, the pool's dtype. It
// names each one with the candidates' values.
func unsetDiffering(out *Estimate, others []Estimate, ids []string) []string {
	all := append([]Estimate{*out}, others...)
	var differ []string
	// field clears a field when the candidates disagree on it, and names
	// it with each candidate's value as show writes it.
	field := func(name string, same func(a, b *Estimate) bool, show func(e *Estimate) string, clear func(e *Estimate)) {
		for i := range others {
			if !same(out, &others[i]) {
				var vals []string
				for j := range all {
					vals = append(vals, ids[j]+" "+show(&all[j]))
				}
				clear(out)
				differ = append(differ, name+" ("+strings.Join(vals, ", ")+")")
				return
			}
		}
	}
	count := func(name string, get func(*Estimate) **int64) {
		field(name, func(a, b *Estimate) bool {
			x, y := *get(a), *get(b)
			return (x == nil) == (y == nil) && (x == nil || *x == *y)
		}, func(e *Estimate) string { return optThousands(*get(e)) }, func(e *Estimate) { *get(e) = nil })
	}
	count("the weights per GPU", func(e *Estimate) **int64 { return &e.WeightsBytesPerGPU })
	count("the memory left for the pool", func(e *Estimate) **int64 { return &e.KVBudgetBytes })
	field("the pool's dtype, of the same size", func(a, b *Estimate) bool { return a.KVDtype == b.KVDtype },
		func(e *Estimate) string { return e.KVDtype }, func(e *Estimate) { e.KVDtype = "" })
	return differ
}

func opt[T any](p *T) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprint(*p)
}

func optThousands(p *int64) string {
	if p == nil {
		return "unknown"
	}
	return Thousands(*p)
}
