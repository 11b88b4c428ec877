// Package deploy is kvlint's normalized model of an LLM-serving deployment:
// every parser produces it, capacity and the rules read it, and nothing in it
// knows which file format a value came from.
package deploy

import (
	"fmt"
	"sort"
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
// Via is the chain that produced the value, outermost first (the values.yaml
// line, then the template line that used it).
type Value struct {
	Raw   string `json:"value"`
	Known bool   `json:"known"`
	Span  Span   `json:"span"`
	Via   []Span `json:"via,omitempty"`
	// Inferred is set when Span was matched to the value by its text and
	// key name rather than traced (a Helm template that computed on a
	// values leaf, so the leaf's own text never reached the output).
	Inferred bool `json:"inferred,omitempty"`
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

	Model    Value  `json:"model"`     // --model-path, or vLLM's positional model
	GPU      Value  `json:"gpu"`       // product name, from node labels or --gpu
	GPUCount Value  `json:"gpu_count"` // GPUs per pod/container
	Replicas Value  `json:"replicas"`
	Image    Value  `json:"image"`
	Labels   Labels `json:"labels,omitempty"`
	// Namespace is the Kubernetes metadata.namespace of the object that runs
	// the server, "" when the manifest does not say (kubectl's current
	// namespace then applies).
	Namespace string `json:"namespace,omitempty"`
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
	names := make([]string, 0, len(s.Args))
	for n := range s.Args {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
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
	// Links are the routes its routers name: which servers a --prefill or
	// --decode URL, or a service-discovery selector, reaches.
	Links []Link `json:"-"`
}
