package report

import (
	"fmt"
	"math"

	"github.com/kvlint/kvlint/capacity"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/fixes"
)

// barWidth is the drawn width of a whole GPU's memory, in SVG units.
const barWidth = 640.0

// htmlServer is one server of a deployment: where it is launched and, for
// a server with a KV pool, its GPU memory as a stacked bar.
type htmlServer struct {
	Name, Position, Role, Engine, Model, GPU string
	Pool                                     string
	// Bar is nil for a server kvlint does not size (a router); NoBar says why.
	Bar   *htmlBar
	NoBar string
	// StartupError is what the engine would stop with at startup.
	StartupError string
	Missing      []string
}

// htmlBar is one GPU's memory: the segments left to right, over the GPU's
// memory when it is known.
type htmlBar struct {
	Width    float64
	Total    string // "79.6 GiB per GPU", or why there is no scale
	Segments []htmlSegment
	// Demand is the context × concurrency marker; nil when it cannot be
	// placed (DemandNote says why).
	Demand     *htmlMarker
	DemandNote string
}

// htmlSegment is one part of the memory. Kind is weights, kv, unused,
// reserve or unknown; an unknown part is drawn hatched over the memory
// the known parts leave, never as a zero-width part.
type htmlSegment struct {
	Kind  string
	X, W  float64
	Label string
}

// htmlMarker is the demand drawn against the pool.
type htmlMarker struct {
	X      float64
	Label  string
	Beyond bool // the demand needs more memory than the GPU has
	Fits   bool // the demand fits the pool
}

// memPart is one part of a GPU's memory in bytes; known false is a part
// kvlint could not size.
type memPart struct {
	kind, label string
	bytes       float64
	known       bool
}

func htmlServerOf(s *deploy.Server, e capacity.Estimate, estimated bool, expected int) htmlServer {
	hs := htmlServer{
		Name: s.Name, Position: position(s.Span), Role: string(s.Role), Engine: string(s.Engine),
		Model: orUnknown(e.Model), GPU: gpu(e), Pool: pool(e), StartupError: e.StartupError, Missing: e.Missing,
	}
	switch {
	case s.Role == deploy.RoleRouter:
		hs.NoBar = "a router holds no KV pool"
		return hs
	case !estimated:
		hs.NoBar = "not sized"
		return hs
	}
	hs.Bar = memoryBar(s, e, expected)
	return hs
}

// memoryParts splits one GPU's memory the way SGLang's startup does: the KV
// budget is the free memory after the weights load less the slack
// pre_model_load_memory × (1 − mem_fraction_static) kept for activations
// (modal-projects/sglang@04d07afc python/sglang/srt/mem_cache/
// kv_cache_configurator.py _profile_available_bytes; capacity/pool.go
// computes it), the pool is that budget in whole tokens, and
// --max-total-tokens may cap it below the budget (_apply_token_constraints).
// So: the weights, the KV pool, the part of the budget a cap leaves unused,
// and the rest (activations, CUDA graphs, the CUDA context and the slack).
// A vLLM server's budget (capacity/vllm_pool.go) splits the same way.
func memoryParts(e capacity.Estimate) []memPart {
	weights := memPart{kind: "weights", label: "weights"}
	if e.WeightsBytesPerGPU != nil {
		weights.bytes, weights.known = float64(*e.WeightsBytesPerGPU), true
	}
	kv := memPart{kind: "kv", label: "KV pool"}
	var unused *memPart
	budgetKnown := e.KVBudgetBytes != nil
	budget := 0.0
	if budgetKnown {
		budget = math.Max(0, float64(*e.KVBudgetBytes))
	}
	switch {
	case e.PoolTokens != nil && e.CellBytesPerToken != nil:
		kv.bytes, kv.known = float64(*e.PoolTokens)*float64(*e.CellBytesPerToken), true
		kv.label = fmt.Sprintf("KV pool %s tokens", capacity.Thousands(*e.PoolTokens))
		if budgetKnown && budget-kv.bytes > budget/100 {
			unused = &memPart{kind: "unused", label: "KV budget the pool leaves unused", bytes: budget - kv.bytes, known: true}
		}
	case budgetKnown:
		// The budget is known but not how many tokens it holds (an unknown
		// --max-total-tokens may lower it): draw the budget, say so.
		kv.bytes, kv.known = budget, true
		kv.label = "KV budget (pool tokens unknown)"
	}
	parts := []memPart{weights, kv}
	if unused != nil {
		parts = append(parts, *unused)
	}
	rest := memPart{kind: "reserve", label: "activations, CUDA context and reserve"}
	if e.GPUMemoryBytes != nil && weights.known && budgetKnown {
		if r := float64(*e.GPUMemoryBytes) - weights.bytes - budget; r >= 0 {
			rest.bytes, rest.known = r, true
		}
	}
	return append(parts, rest)
}

// memoryBar lays the parts out over the GPU's memory. Unknown parts share,
// hatched, what the known ones leave; with the GPU's memory unknown the
// bar has no scale and is drawn hatched whole, the known parts named.
func memoryBar(s *deploy.Server, e capacity.Estimate, expected int) *htmlBar {
	b := &htmlBar{Width: barWidth}
	parts := memoryParts(e)
	if e.GPUMemoryBytes == nil || *e.GPUMemoryBytes <= 0 {
		label := "GPU memory unknown"
		for _, p := range parts {
			if p.known {
				label += fmt.Sprintf("; %s %s", p.label, gibText(p.bytes))
			}
		}
		b.Total = "GPU memory unknown: no scale"
		b.Segments = []htmlSegment{{Kind: "unknown", X: 0, W: barWidth, Label: label}}
		b.DemandNote = demandNote(s, e, expected, "the GPU's memory is unknown")
		return b
	}
	total := float64(*e.GPUMemoryBytes)
	b.Total = gibText(total) + " per GPU"
	known := 0.0
	for _, p := range parts {
		if p.known {
			known += p.bytes
		}
	}
	scale := barWidth / math.Max(total, known)
	x := 0.0
	var unknownNames []string
	unknownAt := -1
	for _, p := range parts {
		if !p.known {
			unknownNames = append(unknownNames, p.label)
			if unknownAt < 0 {
				unknownAt = len(b.Segments)
				b.Segments = append(b.Segments, htmlSegment{Kind: "unknown"})
			}
			continue
		}
		b.Segments = append(b.Segments, htmlSegment{Kind: p.kind, W: p.bytes * scale, Label: fmt.Sprintf("%s %s", p.label, gibText(p.bytes))})
	}
	if unknownAt >= 0 {
		left := math.Max(0, total-known)
		b.Segments[unknownAt].W = left * scale
		b.Segments[unknownAt].Label = fmt.Sprintf("unknown: %s (%s not accounted for)", joinAnd(unknownNames), gibText(left))
	}
	for i := range b.Segments {
		b.Segments[i].X = tenth(x)
		x += b.Segments[i].W
		b.Segments[i].W = tenth(b.Segments[i].W)
	}
	b.Demand, b.DemandNote = demandMarker(s, e, expected, parts, scale)
	return b
}

// demandMarker places context × concurrency (in tokens, turned to bytes by
// the bytes per token) from where the pool starts.
func demandMarker(s *deploy.Server, e capacity.Estimate, expected int, parts []memPart, scale float64) (*htmlMarker, string) {
	tokens, what, ok := demand(s, e, expected)
	if !ok {
		return nil, what
	}
	switch {
	case e.CellBytesPerToken == nil:
		return nil, demandNote(s, e, expected, "the bytes per token are unknown")
	case !parts[0].known:
		return nil, demandNote(s, e, expected, "the weights are unknown")
	}
	need := float64(tokens) * float64(*e.CellBytesPerToken)
	m := &htmlMarker{X: tenth((parts[0].bytes + need) * scale)}
	if m.X > barWidth {
		m.X, m.Beyond = barWidth, true
	}
	m.Label = fmt.Sprintf("demand %s tokens (%s): %s", capacity.Thousands(tokens), what, gibText(need))
	if e.PoolTokens != nil {
		m.Fits = tokens <= *e.PoolTokens
		if m.Fits {
			m.Label += ", within the pool"
		} else {
			m.Label += fmt.Sprintf(", %s× the pool", ratio(float64(tokens)/float64(*e.PoolTokens)))
		}
	}
	if m.Beyond {
		m.Label += ", beyond the GPU's memory"
	}
	return m, ""
}

// tenth rounds a coordinate to a tenth of a unit: finer than a screen
// shows, and the page stays readable.
func tenth(x float64) float64 { return math.Round(x*10) / 10 }

func ratio(r float64) string {
	return fmt.Sprintf("%.1f", r)
}

// demandNote says why the marker is not drawn, with the demand when it is
// known.
func demandNote(s *deploy.Server, e capacity.Estimate, expected int, why string) string {
	tokens, what, ok := demand(s, e, expected)
	if !ok {
		return what
	}
	return fmt.Sprintf("demand %s tokens (%s) not drawn: %s", capacity.Thousands(tokens), what, why)
}

// demand is the tokens one scheduler must hold at once, counted as KV102
// and the capacity fixes count it (fixes.ConcurrencyDemand), with a label
// that says where the count comes from. With no concurrency declared it is
// one full-context request, and the label says so.
func demand(s *deploy.Server, e capacity.Estimate, expected int) (int64, string, bool) {
	d, ok := fixes.ConcurrencyDemand(s, &e, expected)
	if !ok {
		return 0, "demand unknown: the context length is unknown", false
	}
	ctx := capacity.Thousands(d.Context)
	switch {
	case d.MaxRunning:
		return d.Tokens(), fmt.Sprintf("context %s × %d running (--max-running-requests)", ctx, d.Per), true
	case d.Expected > 0:
		return d.Tokens(), fmt.Sprintf("context %s × %d concurrent (expected_concurrency %d over %d schedulers)", ctx, d.Per, d.Expected, d.Schedulers), true
	}
	return d.Tokens(), fmt.Sprintf("context %s × 1: concurrency not declared", ctx), true
}

func joinAnd(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	out := names[0]
	for _, n := range names[1 : len(names)-1] {
		out += ", " + n
	}
	return out + " and " + names[len(names)-1]
}
