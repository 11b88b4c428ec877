// Package deploy is kvlint's normalized model of an LLM-serving deployment:
// every parser produces it, capacity and the rules read it, and nothing in it
// knows which file format a value came from.
package deploy

import (
	"fmt"
	"iter"
	"maps"
	"slices"
)

// Span locates text a user wrote. Lines and columns are 1-based; columns count
// bytes. EndLine/EndCol point one past the last character, on the same line for
// a single token. A zero Span means "not written anywhere" (a default).
type Span struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Col     int    `json:"column"`
	EndLine int    `json:"end_line"`
	EndCol  int    `json:"end_column"`
}

// IsZero reports whether the span points at nothing.
func (s Span) IsZero() bool { return s.Line == 0 }

// String renders the span as file:line:col, the form editors jump to.
func (s Span) String() string {
	if s.IsZero() {
		return s.File
	}
	return fmt.Sprintf("%s:%d:%d", s.File, s.Line, s.Col)
}

// Value is one scalar a user wrote, with where it was written.
//
// Known is false for a placeholder that could not be resolved statically
// ({{ .Values.x }}, ${var.x}, $VAR, $(VAR)): Raw then holds the text as
// written, and no consumer may interpret it as a number or a name.
// Span is where a finding about the value points (the line to edit); Origin
// is the rest of the chain that produced it, each step with its kind (the
// template action that used a values line, the assignment a $VAR read).
//
// Typed is the value as the engine's parser converted it (an int, a bool, a
// list, …), set by engine for flag values; it is KindNone for an unknown
// value, one the parser rejects, and anything not parsed as a flag value.
// Consumers read numbers and switches from Typed, never from Raw; Raw is
// for quoting what the user wrote. Reports do not carry it.
type Value struct {
	Raw    string `json:"value"`
	Known  bool   `json:"known"`
	Typed  Typed  `json:"-"`
	Span   Span   `json:"span"`
	Origin Origin `json:"origin,omitempty"`
}

// Known returns a known value written at span.
func Known(raw string, span Span) Value { return Value{Raw: raw, Known: true, Span: span} }

// Unknown returns a value whose text could not be resolved.
func Unknown(raw string, span Span) Value { return Value{Raw: raw, Span: span} }

// IsSet reports whether the value was written at all (known or not).
func (v Value) IsSet() bool { return v.Known || v.Raw != "" || !v.Span.IsZero() }

// Engine names the program a server runs.
type Engine string

const (
	EngineSGLang       Engine = "sglang"        // sglang.launch_server / sglang serve
	EngineSGLangRouter Engine = "sglang-router" // sglang_router.launch_router
	EngineVLLM         Engine = "vllm"          // vllm serve / vllm.entrypoints.openai.api_server
	// EngineDynamoFrontend is NVIDIA Dynamo's HTTP frontend (python -m
	// dynamo.frontend), the router of a Dynamo deployment.
	EngineDynamoFrontend Engine = "dynamo-frontend"
)

// Role is a server's part in a deployment.
type Role string

const (
	RoleColocated Role = "colocated" // prefill and decode in one server
	RolePrefill   Role = "prefill"
	RoleDecode    Role = "decode"
	RoleRouter    Role = "router"
)

// FlagIssue is something argv parsing noticed about how a flag was written.
// The rules turn these into KV40x findings; Span is the flag as written.
type FlagIssue struct {
	Kind       FlagIssueKind `json:"kind"`
	Flag       string        `json:"flag"`    // canonical name when resolved, else as written
	Written    string        `json:"written"` // the option string as the user typed it
	Message    string        `json:"message"`
	Suggestion string        `json:"suggestion,omitempty"` // "did you mean" target, canonical
	Span       Span          `json:"span"`
	// Words are the argv words of the occurrence the issue is about, as
	// written: the option word, then each value it took (for an option
	// argparse does not know, the arguments it would report with it).
	// They say what deleting the occurrence removes, and hold the value an
	// invalid-value issue is about (at Span); nil when the issue is about
	// no one occurrence (a flag judged against a release).
	Words []Value `json:"-"`
}

// FlagIssueKind classifies a FlagIssue.
type FlagIssueKind string

const (
	FlagUnknown      FlagIssueKind = "unknown"      // not an option of this program
	FlagAbbreviated  FlagIssueKind = "abbreviated"  // unique prefix argparse expands
	FlagAmbiguous    FlagIssueKind = "ambiguous"    // prefix of several options: argparse exits
	FlagDuplicate    FlagIssueKind = "duplicate"    // given more than once; the last wins
	FlagDeprecated   FlagIssueKind = "deprecated"   // still accepted, redirected or ignored
	FlagRemoved      FlagIssueKind = "removed"      // no longer accepted: argparse exits
	FlagInvalidValue FlagIssueKind = "invalid"      // wrong type, choice or range
	FlagMissingValue FlagIssueKind = "missingvalue" // an option that takes a value got none
)

// Server is one launch of an engine: a command line found in a script,
// an image, a compose service or a pod template.
type Server struct {
	Engine Engine `json:"engine"`
	Role   Role   `json:"role"`
	// Name is the owner's name for it: Kubernetes metadata.name (plus the
	// container when a pod has several), the compose service, or, for a script
	// or Dockerfile, "file:line".
	Name   string `json:"name"`
	Source Source `json:"source"` // the format it was found in
	// Span covers the launch command (the program word).
	Span Span `json:"span"`
	// Args maps canonical flag names ("--tp-size") to the value in force: the
	// last occurrence on the command line, else the --config file's.
	// Boolean flags that were given have Raw "true".
	Args map[string]Value `json:"args"`
	// Positionals are the words that are not options (vLLM's model, for one).
	Positionals []Value     `json:"positionals,omitempty"`
	FlagIssues  []FlagIssue `json:"flag_issues,omitempty"`
	// Opaque are argv words that could not be resolved where an option could
	// stand ("$EXTRA_ARGS"): they may hold any flags, so a flag missing from
	// Args is not proof that it is unset.
	Opaque []Value `json:"opaque,omitempty"`
	// ArgLists keeps, for flags that take several values or may be repeated
	// (the router's --prefill URL [BOOTSTRAP_PORT]), each occurrence's items
	// with their own spans; Args holds only the joined value in force.
	ArgLists map[string][][]Value `json:"arg_lists,omitempty"`
	// Routes are the destinations a router's flags name, as the engine
	// reads them; nil for a server that is not a router.
	Routes []Route `json:"routes,omitempty"`
	// Dynamo is set for NVIDIA Dynamo's processes (python -m dynamo.sglang,
	// dynamo.vllm, dynamo.frontend): workers register with Dynamo's
	// discovery, where a frontend finds them, instead of being named by URL.
	Dynamo bool `json:"dynamo,omitempty"`

	Model Value `json:"model"` // --model-path, or vLLM's positional model
	// ModelNote says how a model that neither the launch nor a CRD names
	// outright was paired with the server (an OME runtime joined with the
	// base model its runtime selector would pick), or why several models
	// could be; "" otherwise.
	ModelNote string `json:"model_note,omitempty"`
	// ModelCandidates are the models the files allow when they allow
	// several: Model is then unknown, and the server runs one of them.
	ModelCandidates []string `json:"model_candidates,omitempty"`
	// ModelCandidatesCertain is set when each of ModelCandidates is
	// certainly allowed (a selector accepts it on every count, none is
	// undecided): the server is then sized when they all give one pool.
	ModelCandidatesCertain bool  `json:"model_candidates_certain,omitempty"`
	GPU                    Value `json:"gpu"`       // product name, node label value or instance type
	GPUCount               Value `json:"gpu_count"` // GPUs per pod/container
	// GPUKey is the node label GPU was read from ("nvidia.com/gpu.product",
	// "node.kubernetes.io/instance-type", …), GPUKeySkyPilot for a
	// SkyPilot accelerator name; "" when GPU is a product name (Slurm
	// --gres): they are resolved differently (an instance type is no GPU
	// name, and SkyPilot's "A100" is its 40 GB card).
	GPUKey string `json:"gpu_key,omitempty"`
	// GPUCandidates are the values a required node affinity allows for
	// GPUKey when it allows several (In [a, b]), or the accelerators a
	// SkyPilot task lets its optimizer choose from: GPU is then unknown
	// and spans them all, and the server may land on any of them.
	GPUCandidates []string `json:"gpu_candidates,omitempty"`
	// GPUCountCandidates are the GPU counts GPUCandidates come with when
	// they differ ({A100:8, A100-80GB:4}): GPUCount is then unknown.
	GPUCountCandidates []string `json:"gpu_count_candidates,omitempty"`
	// GPUSlice is the MIG profile the container requests as an extended
	// resource (nvidia.com/mig-1g.10gb → "1g.10gb"), spanning the resource
	// name: the server sees that slice's memory, not the whole GPU's.
	GPUSlice Value `json:"gpu_slice"`
	Replicas Value `json:"replicas"`
	// Nodes is how many nodes the deployment gives one launch whose ranks
	// may span nodes (a SkyPilot task's num_nodes: every node runs the
	// script, and an engine that spans nodes finds its ranks there); unset
	// when the deployment does not say. The engine's own flags (--nnodes)
	// say whether the server does span them.
	Nodes  Value  `json:"nodes"`
	Image  Value  `json:"image"`
	Labels Labels `json:"labels,omitempty"`
	// Namespace is the Kubernetes metadata.namespace of the object that runs
	// the server, "" when the manifest does not say (kubectl's current
	// namespace then applies).
	Namespace string `json:"namespace,omitempty"`
	// Entrypoint is what the image itself put on the command line, when
	// the deployment left the image's ENTRYPOINT (or CMD) in force; nil
	// when the deployment wrote the whole command.
	Entrypoint *ImageEntrypoint `json:"entrypoint,omitempty"`
	// Options are the option strings as written, in order, each with the
	// canonical flag it matched: what a release's flag history is checked
	// against (a flag newer than the release the image runs).
	Options []WrittenOption `json:"-"`
	// Release is the engine release the server is judged against, set by
	// check.Run before capacity and the rules run.
	Release Release `json:"release,omitzero"`
}

// WrittenOption is one option of a command line: the canonical flag and
// the option string as typed (its span is where to change it).
type WrittenOption struct {
	Flag    string
	Written Value
}

// Release says which engine release a server runs and how that was found.
type Release struct {
	Engine Engine `json:"engine,omitempty"`
	// Version is the release ("0.6.3"); "" unknown.
	Version string `json:"version,omitempty"`
	// Source says where the version was read: "image vllm/vllm-openai:v0.6.3",
	// "Dockerfile:3:1 pip install vllm==0.6.3", ".kvlint.yaml:2:17",
	// "--engine-release".
	Source string `json:"source,omitempty"`
	// Span is where the version is written when a file pins it: the
	// requirement in a Dockerfile's pip install, requirements.txt or a
	// lock file. Zero for an image tag, .kvlint.yaml or --engine-release.
	Span Span `json:"span,omitzero"`
	// Floating is set when the image tag moves (latest, nightly): the server
	// is judged against the newest release kvlint knows.
	Floating bool `json:"floating,omitempty"`
	// Judged is the release of the flag history the server was judged
	// against ("0.6.3", or "main" for the newest snapshot), with its commit.
	Judged       string `json:"judged,omitempty"`
	JudgedCommit string `json:"judged_commit,omitempty"`
	// Upgrade is set when --engine-release moved the server to Version.
	Upgrade bool `json:"upgrade,omitempty"`
	// From is the release the server ran before --engine-release moved it
	// ("" unknown).
	From string `json:"from,omitempty"`
	// FromSource says where From was read (the Source it had before the
	// move).
	FromSource string `json:"from_source,omitempty"`
}

// ImageEntrypoint names the words of a server's command line that its
// image supplied (its ENTRYPOINT, and its CMD when the deployment gave no
// arguments) and the image-table row they were read from.
type ImageEntrypoint struct {
	// Image is the image reference as the deployment wrote it.
	Image string `json:"image"`
	// Words are the words the image supplied, in order.
	Words []string `json:"words"`
	// Source cites the table row: repo@commit:path of the image's
	// Dockerfile, or .kvlint.yaml:LINE for a row of the user's.
	Source string `json:"source"`
	// Release is the engine release the row gives the tag; "" unknown.
	Release string `json:"release,omitempty"`
	// Floating is set when the tag moves (latest, nightly): the release
	// is then the newest the row knows.
	Floating bool `json:"floating,omitempty"`
}

// Labels are the pod labels of a server that runs in Kubernetes.
type Labels map[string]string

// Arg returns the value of a canonical flag and whether it was given.
func (s *Server) Arg(flag string) (Value, bool) {
	v, ok := s.Args[flag]
	return v, ok
}

// ArgNames returns the server's canonical flag names in sorted order, so
// everything that iterates over flags is deterministic.
func (s *Server) ArgNames() []string {
	return slices.Sorted(maps.Keys(s.Args))
}

// Field names one value of a server: the field that holds it and, for a
// flag, its canonical name and occurrence.
type Field struct {
	Kind FieldKind
	// Flag is the canonical flag of an Args or ArgLists value.
	Flag string
	// Index is the position in Positionals or Opaque, or the occurrence in
	// ArgLists[Flag]; Item is the position within that occurrence.
	Index, Item int
}

// FieldKind is the field of Server a value is held in.
type FieldKind string

const (
	FieldArg        FieldKind = "arg"
	FieldArgList    FieldKind = "arg-list"
	FieldPositional FieldKind = "positional"
	FieldOpaque     FieldKind = "opaque"
	FieldModel      FieldKind = "model"
	FieldGPU        FieldKind = "gpu"
	FieldGPUCount   FieldKind = "gpu-count"
	FieldGPUSlice   FieldKind = "gpu-slice"
	FieldReplicas   FieldKind = "replicas"
	FieldNodes      FieldKind = "nodes"
	FieldImage      FieldKind = "image"
)

// GPUKeySkyPilot is the GPUKey of a GPU named by a SkyPilot task's
// resources.accelerators: a name in SkyPilot's catalog, which capacity
// reads by SkyPilot's meaning of it.
const GPUKeySkyPilot = "resources.accelerators"

// Values yields every value of the server once: the flags in Args by name,
// the items of ArgLists, Positionals, Opaque, then Model, GPU, GPUCount, GPUSlice,
// Replicas, Nodes and Image. A change made through the pointer is kept (for Args,
// once the loop body returns). This is the one list of a server's values:
// whatever maps, checks or collects them all ranges over it.
func (s *Server) Values() iter.Seq2[Field, *Value] {
	return func(yield func(Field, *Value) bool) {
		for _, name := range s.ArgNames() {
			v := s.Args[name]
			ok := yield(Field{Kind: FieldArg, Flag: name}, &v)
			s.Args[name] = v
			if !ok {
				return
			}
		}
		for _, name := range slices.Sorted(maps.Keys(s.ArgLists)) {
			for i, occ := range s.ArgLists[name] {
				for j := range occ {
					if !yield(Field{Kind: FieldArgList, Flag: name, Index: i, Item: j}, &occ[j]) {
						return
					}
				}
			}
		}
		for i := range s.Positionals {
			if !yield(Field{Kind: FieldPositional, Index: i}, &s.Positionals[i]) {
				return
			}
		}
		for i := range s.Opaque {
			if !yield(Field{Kind: FieldOpaque, Index: i}, &s.Opaque[i]) {
				return
			}
		}
		for _, f := range []struct {
			kind FieldKind
			v    *Value
		}{
			{FieldModel, &s.Model}, {FieldGPU, &s.GPU}, {FieldGPUCount, &s.GPUCount}, {FieldGPUSlice, &s.GPUSlice},
			{FieldReplicas, &s.Replicas}, {FieldNodes, &s.Nodes}, {FieldImage, &s.Image},
		} {
			if !yield(Field{Kind: f.kind}, f.v) {
				return
			}
		}
	}
}

// Lookup returns the value a Field names, as Values would yield it, and
// whether the server has one there.
func (s *Server) Lookup(f Field) (Value, bool) {
	switch f.Kind {
	case FieldArg:
		v, ok := s.Args[f.Flag]
		return v, ok
	case FieldArgList:
		occ := s.ArgLists[f.Flag]
		if f.Index < len(occ) && f.Item < len(occ[f.Index]) {
			return occ[f.Index][f.Item], true
		}
	case FieldPositional:
		if f.Index < len(s.Positionals) {
			return s.Positionals[f.Index], true
		}
	case FieldOpaque:
		if f.Index < len(s.Opaque) {
			return s.Opaque[f.Index], true
		}
	case FieldModel:
		return s.Model, true
	case FieldGPU:
		return s.GPU, true
	case FieldGPUCount:
		return s.GPUCount, true
	case FieldGPUSlice:
		return s.GPUSlice, true
	case FieldReplicas:
		return s.Replicas, true
	case FieldNodes:
		return s.Nodes, true
	case FieldImage:
		return s.Image, true
	}
	return Value{}, false
}

// Mode says whether a deployment splits prefill from decode.
type Mode string

const (
	ModeColocated     Mode = "colocated"
	ModeDisaggregated Mode = "disaggregated"
)

// Tenancy says whether requests from mutually distrusting tenants share servers.
type Tenancy string

const (
	TenancyMulti  Tenancy = "multi"
	TenancySingle Tenancy = "single"
)

// Deployment is the set of servers behind one endpoint (Group builds them).
type Deployment struct {
	Name    string    `json:"name"`
	Mode    Mode      `json:"mode"`
	Tenancy Tenancy   `json:"tenancy"`
	Servers []*Server `json:"-"`
	// TenancyDeclared is true when the user said the tenancy (.kvlint.yaml or
	// --tenancy); false when it is kvlint's default, multi.
	TenancyDeclared bool `json:"tenancy_declared"`
	// Isolation is how the deployment keeps tenants apart, as declared.
	Isolation Isolation `json:"isolation"`
	// Workload is the traffic it is meant to carry: declared in
	// .kvlint.yaml, else DefaultWorkload. Zero when nothing set it (a
	// Deployment not made by check).
	Workload Workload `json:"workload"`
	// Links are the routes its routers name: which servers a --prefill or
	// --decode URL, or a service-discovery selector, reaches.
	Links []Link `json:"-"`
}
