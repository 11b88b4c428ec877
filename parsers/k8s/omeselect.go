package k8s

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/parsers/yamlsrc"
)

// An OME runtime that no InferenceService names is still a server of some
// model: the OME controller runs it for the base models its runtime
// selector finds compatible (an InferenceService that names only its model
// gets the best-scoring compatible runtime with autoSelect; one that names
// the runtime too gets it if compatible). kvlint pairs such a runtime with
// the base models of the checked files the selector would accept, and names
// the model only when exactly one does.
//
// The selector is sgl-project/ome@17b77edad23bae262e0c9adb7f12039397a5d33d
// pkg/runtimeselector: matcher.go IsCompatible (a runtime that is not
// disabled, one of whose supportedModelFormats compareSupportedModelFormats
// accepts and whose modelSizeRange checkModelSize accepts), selector.go
// evaluateRuntime (auto-selection also needs autoSelect) and ValidateRuntime
// (an explicit spec.runtime needs compatibility only). A base model's
// modelFormat, modelFramework, modelArchitecture and modelParameterSize are
// its spec's when written, else what OME's model agent reads from the
// downloaded config.json (pkg/modelagent/config_parser.go
// extractModelMetadataFromHF: format safetensors 1.0.0, framework
// transformers at config.json's transformers_version, architectures[0], the
// counted parameters), filled in by pkg/controller/v1beta1/basemodel/
// controller.go updateSpecWithConfig only where the spec is empty.

// ModelFacts looks a Hugging Face id up in kvlint's model catalog; ok is
// false for an id the catalog does not know.
type ModelFacts func(id string) (fact ModelFact, ok bool)

// ModelFact is what the catalog holds of a model that OME's selector reads.
type ModelFact struct {
	// Architecture is config.json's architectures[0].
	Architecture string
	// Params is the parameter count, 0 when unknown.
	Params int64
	// Quantization is the quantization the checkpoint's config states
	// (its quant_method, or ModelOpt's quant_algo), "" for none.
	Quantization string
	// Inferred says the catalog matched the id by its variant rules, not
	// by a config.json of the id itself.
	Inferred bool
}

// omeBase is one BaseModel or ClusterBaseModel with what its spec writes.
type omeBase struct {
	name, kind string
	model      deploy.Value // the hf:// id
	storePath  string
	namespace  string
	// The spec's selector fields; "" when not written.
	arch, size, quant           string
	formatName, formatVersion   string
	frameworkName, frameworkVer string
	diffusion                   bool
}

// readOMEBase reads the selector fields of a base model's spec
// (pkg/apis/ome/v1beta1/model.go BaseModelSpec).
func readOMEBase(src *yamlsrc.Source, n *yaml.Node, kind, name string, m deploy.Value, storePath string) omeBase {
	spec := yamlsrc.Get(n, "spec")
	str := func(keys ...string) string {
		s, _ := yamlsrc.Str(yamlsrc.Path(spec, keys...))
		return strings.TrimSpace(s)
	}
	ns, _ := yamlsrc.Str(yamlsrc.Path(n, "metadata", "namespace"))
	return omeBase{
		name: name, kind: kind, model: m, storePath: storePath, namespace: ns,
		arch: str("modelArchitecture"), size: str("modelParameterSize"), quant: str("quantization"),
		formatName: str("modelFormat", "name"), formatVersion: str("modelFormat", "version"),
		frameworkName: str("modelFramework", "name"), frameworkVer: str("modelFramework", "version"),
		diffusion: yamlsrc.Get(spec, "diffusionPipeline") != nil,
	}
}

// omeFormat is one of a runtime's supportedModelFormats
// (pkg/apis/ome/v1beta1/servingruntime_types.go SupportedModelFormat).
type omeFormat struct {
	node                        *yaml.Node
	formatName, formatVersion   string
	hasFormat                   bool
	frameworkName, frameworkVer string
	hasFramework                bool
	versionOp                   bool // an operator other than Equal on a version
	arch, quant                 string
	diffusion                   bool
	autoSelect                  bool
	autoSelectOff               bool // autoSelect: false written
	// priority, and the weights of a format and framework match
	// (runtimeselector/types.go NewConfig defaults: 1, 10, 5).
	priority, formatWeight, frameworkWeight int64
}

// omeRuntimeSpec is what the selector reads of a runtime.
type omeRuntimeSpec struct {
	formats          []omeFormat
	sizeMin, sizeMax string
	hasRange         bool
	disabled         bool
}

func readOMERuntime(rt *yaml.Node) omeRuntimeSpec {
	spec := yamlsrc.Get(rt, "spec")
	var out omeRuntimeSpec
	if d, _ := yamlsrc.Str(yamlsrc.Get(spec, "disabled")); d == "true" {
		out.disabled = true
	}
	if r := yamlsrc.Resolve(yamlsrc.Get(spec, "modelSizeRange")); r != nil && r.Kind == yaml.MappingNode {
		out.hasRange = true
		out.sizeMin, _ = yamlsrc.Str(yamlsrc.Get(r, "min"))
		out.sizeMax, _ = yamlsrc.Str(yamlsrc.Get(r, "max"))
	}
	for _, f := range seqItems(yamlsrc.Get(spec, "supportedModelFormats")) {
		f = yamlsrc.Resolve(f)
		if f == nil || f.Kind != yaml.MappingNode {
			continue
		}
		str := func(keys ...string) string {
			s, _ := yamlsrc.Str(yamlsrc.Path(f, keys...))
			return strings.TrimSpace(s)
		}
		of := omeFormat{node: f,
			formatName: str("modelFormat", "name"), formatVersion: str("modelFormat", "version"),
			frameworkName: str("modelFramework", "name"), frameworkVer: str("modelFramework", "version"),
			arch: str("modelArchitecture"), quant: str("quantization"),
			diffusion:  yamlsrc.Get(f, "diffusionPipeline") != nil,
			autoSelect: str("autoSelect") == "true",
		}
		of.autoSelectOff = str("autoSelect") == "false"
		of.priority, of.formatWeight, of.frameworkWeight = 1, 10, 5
		if p, err := strconv.ParseInt(str("priority"), 10, 32); err == nil {
			of.priority = p
		}
		if w, err := strconv.ParseInt(str("modelFormat", "weight"), 10, 64); err == nil && w != 0 {
			of.formatWeight = w
		}
		if w, err := strconv.ParseInt(str("modelFramework", "weight"), 10, 64); err == nil && w != 0 {
			of.frameworkWeight = w
		}
		of.hasFormat = yamlsrc.Get(f, "modelFormat") != nil
		of.hasFramework = yamlsrc.Get(f, "modelFramework") != nil
		for _, op := range []string{str("modelFormat", "operator"), str("modelFramework", "operator")} {
			if op != "" && op != "Equal" {
				of.versionOp = true
			}
		}
		out.formats = append(out.formats, of)
	}
	return out
}

// tri is a three-valued answer: what the files decide, or that they don't.
type tri int

const (
	triNo tri = iota
	triUnknown
	triYes
)

// and is the conjunction: the least of the two.
func and(a, b tri) tri { return min(a, b) }

// omeMatch is how one base model fares against one runtime.
type omeMatch struct {
	base    *omeBase
	verdict tri
	// archKnown says the model's architecture is known (written or from
	// the catalog).
	archKnown bool
	// why lists the facts the verdict rests on that the files do not
	// write (read from the catalog, or assumed of config.json).
	why []string
	// open lists what leaves an unknown verdict undecided.
	open []string
	// at is the runtime's value the match rests on: the accepting
	// format's modelArchitecture.
	at *yaml.Node
}

// addOpen notes what leaves the verdict undecided, once: a runtime with
// several supported formats meets the same open question in each.
func (m *omeMatch) addOpen(what string) {
	if !slices.Contains(m.open, what) {
		m.open = append(m.open, what)
	}
}

// match decides, as matcher.go IsCompatible does, whether rt accepts b.
func (m *OMEModels) match(rt omeRuntimeSpec, b *omeBase) omeMatch {
	out := omeMatch{base: b}
	var fact ModelFact
	known := false
	if m.facts != nil {
		fact, known = m.facts(b.model.Raw)
	}
	arch := b.arch
	if arch == "" && known && fact.Architecture != "" {
		arch = fact.Architecture
		how := "kvlint's catalog"
		if fact.Inferred {
			how = "kvlint's catalog by its variant rules"
		}
		out.why = append(out.why, fmt.Sprintf("architecture %s from %s, inferred: the spec writes none and OME reads it from config.json", arch, how))
	} else if arch != "" {
		out.why = append(out.why, fmt.Sprintf("architecture %s written in its spec", arch))
	}
	out.archKnown = arch != ""
	// Size: the spec's modelParameterSize, else the counted parameters.
	size, sizeKnown := 0.0, false
	if b.size != "" {
		size, sizeKnown = omeParseSize(b.size), true
	} else if known && fact.Params > 0 {
		size, sizeKnown = float64(fact.Params), true
	}
	sizeOK := triYes
	if rt.hasRange {
		switch {
		case !sizeKnown:
			sizeOK = triUnknown
			out.addOpen(fmt.Sprintf("its parameter count, which modelSizeRange %s–%s bounds, is not known", rt.sizeMin, rt.sizeMax))
		case (rt.sizeMin != "" && size < omeParseSize(rt.sizeMin)) || (rt.sizeMax != "" && size > omeParseSize(rt.sizeMax)):
			sizeOK = triNo
		default:
			what := "written in its spec"
			if b.size == "" {
				what = "from kvlint's catalog"
			}
			out.why = append(out.why, fmt.Sprintf("%.1fB parameters %s, within modelSizeRange %s–%s", size/1e9, what, rt.sizeMin, rt.sizeMax))
		}
	}
	verdict := triNo
	assumedFramework, assumedQuant := false, false
	quant, quantKnown := b.quant, b.quant != ""
	if !quantKnown && known {
		quant, quantKnown = omeQuantization(fact.Quantization)
	}
	for _, f := range rt.formats {
		v := triYes
		// compareDiffusionPipeline: a runtime that requires a pipeline
		// needs a model with one; the agent records one for diffusers
		// checkpoints only, not the catalog's language models.
		if f.diffusion && !b.diffusion {
			if known {
				v = triNo
			} else {
				v = and(v, triUnknown)
				out.addOpen("whether it is a diffusion pipeline is not known")
			}
		}
		// Architecture: both unset, or equal.
		switch {
		case arch == "":
			v = and(v, triUnknown) // the agent fills one in from config.json
		case f.arch != arch:
			v = triNo
		}
		// Quantization: both unset, or equal.
		switch {
		case !quantKnown && known:
			// A quantization the agent's mapping may or may not name.
			v = and(v, triUnknown)
			out.addOpen(fmt.Sprintf("what OME records of its %s quantization is not known", fact.Quantization))
		case !quantKnown && f.quant == "":
			// The agent records config.json's quantization_config,
			// which kvlint does not hold for this id: taken to state
			// none, as the runtime requires, and said so.
			assumedQuant = true
		case !quantKnown:
			v = and(v, triUnknown)
			out.addOpen(fmt.Sprintf("whether it is quantized as %s is not known", f.quant))
		case quant != f.quant:
			v = triNo
		}
		// Format: the runtime must name one, with the model's name;
		// versions both unset, or equal (the agent records 1.0.0).
		fname, fver := b.formatName, b.formatVersion
		if fname == "" {
			fname = "safetensors"
		}
		if fver == "" {
			fver = "1.0.0"
		}
		switch {
		case !f.hasFormat || f.formatName != fname:
			v = triNo
		case f.formatVersion == "":
			v = triNo // the model's version is always set
		case f.versionOp:
			v = and(v, triUnknown)
		case !omeVersionEqual(f.formatVersion, fver):
			v = triNo
		}
		// Framework: both unset, or the same name and version. The
		// agent records transformers at config.json's
		// transformers_version, which kvlint does not hold: taken to be
		// the runtime's.
		fwName := b.frameworkName
		if fwName == "" {
			fwName = "transformers"
		}
		switch {
		case !f.hasFramework || f.frameworkName != fwName:
			v = triNo
		case b.frameworkVer != "" && f.frameworkVer != "" && !f.versionOp && !omeVersionEqual(f.frameworkVer, b.frameworkVer):
			v = triNo
		case b.frameworkVer == "" && f.frameworkVer != "":
			assumedFramework = true
		}
		if fv := and(v, sizeOK); fv > verdict {
			verdict, out.at = fv, yamlsrc.Get(f.node, "modelArchitecture")
		}
	}
	if verdict != triNo && assumedQuant {
		out.why = append(out.why, "no quantization assumed: kvlint does not know whether its config.json states one")
	}
	if verdict != triNo && assumedFramework {
		out.why = append(out.why, "config.json's transformers_version taken to satisfy the runtime's modelFramework version")
	}
	out.verdict = verdict
	return out
}

// pairSelected pairs the servers of runtime (rt, named runtime) with the
// base models the selector would accept: the one model when exactly one
// does, else the candidates, listed on the server for the user to choose.
func (m *OMEModels) pairSelected(src *yamlsrc.Source, rt *yaml.Node, runtime string, servers []*deploy.Server) {
	if rt == nil || len(m.bases) == 0 {
		return
	}
	spec := readOMERuntime(rt)
	if spec.disabled || len(spec.formats) == 0 {
		return
	}
	ns, _ := yamlsrc.Str(yamlsrc.Path(rt, "metadata", "namespace"))
	kind, _ := yamlsrc.Str(yamlsrc.Get(rt, "kind"))
	var yes, maybe []omeMatch
	unknownArch := 0
	for i := range m.bases {
		b := &m.bases[i]
		// A namespaced runtime serves InferenceServices of its own
		// namespace, whose BaseModels live there too
		// (runtimeselector/fetcher.go FetchRuntimes).
		if kind == "ServingRuntime" && b.kind == "BaseModel" && ns != "" && b.namespace != "" && ns != b.namespace {
			continue
		}
		mt := m.match(spec, b)
		switch {
		case mt.verdict == triYes:
			yes = append(yes, mt)
		case mt.verdict == triUnknown && mt.archKnown:
			maybe = append(maybe, mt)
		case mt.verdict == triUnknown:
			unknownArch++
		}
	}
	auto := false
	for _, f := range spec.formats {
		auto = auto || f.autoSelect
	}
	how := "with autoSelect off, OME runs it only for an InferenceService that names it"
	if auto {
		how = "with autoSelect on, OME also chooses it for an InferenceService that names only the model"
	}
	if unknownArch > 0 {
		how += fmt.Sprintf("; %d other base model(s) of the checked files have an architecture kvlint does not know and were not considered", unknownArch)
	}
	all := append(append([]omeMatch{}, yes...), maybe...)
	if ids := distinctIDs(all); len(ids) == 1 && len(maybe) == 0 {
		mt := yes[0]
		b := mt.base
		note := fmt.Sprintf("no InferenceService names runtime %s: its model is read as %s (base model %s at %s), the one base model of the checked files that OME's runtime selector accepts for it (ome@17b77edad23b pkg/runtimeselector/matcher.go IsCompatible: %s); %s",
			runtime, b.model.Raw, b.name, b.model.Span, strings.Join(mt.why, "; "), how)
		at := mt.at
		if at == nil {
			at = yamlsrc.Get(rt, "kind")
		}
		for _, s := range servers {
			if !omeModelDir(b.storePath)(s.Model) {
				continue
			}
			v := b.model
			v.Origin = deploy.Origin{}.
				Add(deploy.Step{Kind: deploy.StepReference, Span: src.ContentSpan(at), Inferred: true}).
				Add(deploy.At(deploy.StepReference, s.Model.Span))
			s.Model = v
			s.ModelNote = note
		}
		return
	}
	if len(all) == 0 {
		return
	}
	var list []string
	for _, mt := range all {
		c := fmt.Sprintf("%s (base model %s at %s", mt.base.model.Raw, mt.base.name, mt.base.model.Span)
		if len(mt.open) > 0 {
			c += ", undecided: " + strings.Join(mt.open, ", ")
		}
		list = append(list, c+")")
	}
	note := fmt.Sprintf("no InferenceService names runtime %s, and OME's runtime selector (ome@17b77edad23b pkg/runtimeselector/matcher.go IsCompatible) may accept more than one base model of the checked files for it: %s; %s; kvlint does not pick one, and sizes the server only if every one gives the same pool: declare the model under models: in .kvlint.yaml",
		runtime, strings.Join(list, "; "), how)
	for _, s := range servers {
		if !omeModelDir("")(s.Model) {
			continue
		}
		s.ModelCandidates = distinctIDs(all)
		s.ModelCandidatesCertain = len(maybe) == 0
		s.ModelNote = note
	}
}

// distinctIDs lists the model ids of ms, each once, in order.
func distinctIDs(ms []omeMatch) []string {
	var out []string
	seen := map[string]bool{}
	for _, mt := range ms {
		if id := mt.base.model.Raw; !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// omeParseSize reads a size as matcher.go parseModelSize does: a number
// with an optional T, B or M suffix; anything else is 0.
func omeParseSize(s string) float64 {
	mult := 1.0
	switch {
	case strings.HasSuffix(s, "T"):
		mult, s = 1e12, strings.TrimSuffix(s, "T")
	case strings.HasSuffix(s, "B"):
		mult, s = 1e9, strings.TrimSuffix(s, "B")
	case strings.HasSuffix(s, "M"):
		mult, s = 1e6, strings.TrimSuffix(s, "M")
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0
	}
	return f * mult
}

// omeVersionEqual compares dotted versions as pkg/modelver CompareVersion
// does for Equal: numerically part by part, missing parts as 0; text
// that is not numeric compares as written.
func omeVersionEqual(a, b string) bool {
	pa, pb := strings.Split(strings.TrimPrefix(a, "v"), "."), strings.Split(strings.TrimPrefix(b, "v"), ".")
	for i := 0; i < max(len(pa), len(pb)); i++ {
		x, y := "0", "0"
		if i < len(pa) {
			x = pa[i]
		}
		if i < len(pb) {
			y = pb[i]
		}
		nx, ex := strconv.ParseUint(x, 10, 64)
		ny, ey := strconv.ParseUint(y, 10, 64)
		if ex == nil && ey == nil {
			if nx != ny {
				return false
			}
			continue
		}
		if x != y {
			return false
		}
	}
	return true
}

// omeQuantization is what OME's model agent records of a checkpoint's
// quantization (config_parser.go extractModelMetadataFromHF: a type
// containing int4 is int4, one containing fp8 is fp8, any other none),
// from the method kvlint's catalog holds. ok is false for a method that
// is neither and may still be written another way in config.json.
func omeQuantization(method string) (string, bool) {
	m := strings.ToLower(method)
	switch {
	case m == "":
		return "", true
	case strings.Contains(m, "int4"):
		return "int4", true
	case strings.Contains(m, "fp8"):
		return "fp8", true
	}
	return "", false
}

// omeRuntime is a runtime of the checked files as the selector sees it.
type omeRuntime struct {
	name      string
	cluster   bool
	namespace string
	spec      omeRuntimeSpec
}

// selectRuntime is the runtime OME's selector picks for base model b of
// an InferenceService (namespace ns) that names none
// (ome@17b77edad23b pkg/runtimeselector/selector.go SelectRuntime,
// GetCompatibleRuntimes, evaluateRuntime; scorer.go CalculateScore,
// CompareRuntimes): among the runtimes that accept the model and have a
// format with autoSelect, namespaced ones before cluster ones, then the
// highest score, then the size range nearest the model, then the name.
// It returns "" when no runtime of the files is picked for certain (none
// fits, or whether one fits is undecided, or the order is).
func (m *OMEModels) selectRuntime(runtimes []omeRuntime, b *omeBase, ns string) (string, string) {
	type cand struct {
		rt    *omeRuntime
		score int64
		size  float64 // sum of the distances to the range's ends; -1 unknown
	}
	var cands []cand
	for i := range runtimes {
		rt := &runtimes[i]
		if rt.spec.disabled || (!rt.cluster && ns != "" && rt.namespace != "" && rt.namespace != ns) {
			continue
		}
		auto := false
		for _, f := range rt.spec.formats {
			auto = auto || f.autoSelect
		}
		if !auto {
			continue
		}
		mt := m.match(rt.spec, b)
		switch mt.verdict {
		case triNo:
			continue
		case triUnknown:
			return "", ""
		}
		c := cand{rt: rt, score: omeScore(rt.spec, b), size: -1}
		if c.score <= 0 {
			continue
		}
		if size, ok := m.size(b); ok && rt.spec.hasRange {
			c.size = abs(omeParseSize(rt.spec.sizeMin)-size) + abs(omeParseSize(rt.spec.sizeMax)-size)
		} else if ok {
			c.size = 0
		}
		cands = append(cands, c)
	}
	if len(cands) == 0 {
		return "", ""
	}
	// better reports whether a ranks before b, and whether the files
	// decide it.
	better := func(a, b cand) (bool, bool) {
		switch {
		case a.rt.cluster != b.rt.cluster:
			return !a.rt.cluster, true
		case a.score != b.score:
			return a.score > b.score, true
		case a.size < 0 || b.size < 0:
			return false, false
		case a.size != b.size:
			return a.size < b.size, true
		}
		return a.rt.name < b.rt.name, true
	}
	best := cands[0]
	for _, c := range cands[1:] {
		win, decided := better(c, best)
		if !decided {
			return "", ""
		}
		if win {
			best = c
		}
	}
	return best.rt.name, fmt.Sprintf("OME's runtime selector picks %s for base model %s among the %d runtime(s) of the checked files that accept it with autoSelect (ome@17b77edad23b pkg/runtimeselector/selector.go SelectRuntime: score %d)", best.rt.name, b.name, len(cands), best.score)
}

// size is the model's parameter count: its spec's, else the catalog's.
func (m *OMEModels) size(b *omeBase) (float64, bool) {
	if b.size != "" {
		return omeParseSize(b.size), true
	}
	if m.facts != nil {
		if f, ok := m.facts(b.model.Raw); ok && f.Params > 0 {
			return float64(f.Params), true
		}
	}
	return 0, false
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// omeScore is scorer.go CalculateScore for a model the runtime accepts:
// the best, over the formats whose autoSelect is not false, of the format
// weight and the framework weight times the priority, for a format and
// framework that match the model's (the agent's safetensors and
// transformers unless the spec says otherwise).
func omeScore(rt omeRuntimeSpec, b *omeBase) int64 {
	fname, fw := b.formatName, b.frameworkName
	if fname == "" {
		fname = "safetensors"
	}
	if fw == "" {
		fw = "transformers"
	}
	var best int64
	for _, f := range rt.formats {
		if f.autoSelectOff || !f.hasFormat || f.formatName != fname || !f.hasFramework || f.frameworkName != fw {
			continue
		}
		if s := (f.formatWeight + f.frameworkWeight) * f.priority; s > best {
			best = s
		}
	}
	return best
}
