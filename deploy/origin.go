package deploy

import "slices"

// StepKind says what a step of a value's origin is to the value: where it
// was set, a place it passed through, or where it was used. Reporters word
// each step by its kind, and only a step with a Span is a place in a file.
type StepKind string

const (
	// StepAssignment is a shell variable assignment (X=8) whose value a
	// word used: where the value was set.
	StepAssignment StepKind = "assignment"
	// StepEnv is an environment variable's definition: a Dockerfile ENV or
	// ARG, a Kubernetes env entry, a compose environment or .env line, a
	// variable a script inherits, or TF_VAR_name (which has no line of its
	// own: its step is at the variable's declaration).
	StepEnv StepKind = "env"
	// StepValuesFile is a leaf of a Helm values file (values.yaml, -f).
	StepValuesFile StepKind = "values"
	// StepSet is a Helm --set assignment. From a command line it has no
	// Span, and Text is the argument as given ("--set a.b=1"); from a file
	// (.kvlint.yaml, a Terraform set block) Span is where it is written.
	StepSet StepKind = "set"
	// StepTemplate is a template line that used the value: the Helm action
	// that printed it, or the line of a Terraform template that did.
	StepTemplate StepKind = "template"
	// StepInclude is a template call (include, template) around the action
	// that printed the value: the value passed through it.
	StepInclude StepKind = "include"
	// StepTFVars is an attribute of a Terraform *.tfvars file.
	StepTFVars StepKind = "tfvars"
	// StepVariable is a Terraform variable block the value was given to.
	StepVariable StepKind = "variable"
	// StepVariableDefault is a Terraform variable's default.
	StepVariableDefault StepKind = "variable-default"
	// StepReference is a name that read the value on: a Terraform
	// reference (var.x, local.y, each.value) in a local, a module argument
	// or the resource argument that uses it; a Dockerfile FROM naming an
	// earlier stage, or an ARG taking the global one.
	StepReference StepKind = "reference"
	// StepWritten is other text the value was assembled from: a positional
	// parameter of a script, a Terraform literal or data source.
	StepWritten StepKind = "written"
	// StepImage is a container image's default ENTRYPOINT or CMD: words
	// the deployment did not write, which the image supplies. Its span is
	// the image reference (the line to change: the image or the command).
	StepImage StepKind = "image"
)

// Step is one place a value went through on its way to where it is reported.
type Step struct {
	Kind StepKind `json:"kind"`
	// Span is where the step is written; zero when it is no place in a
	// file (a command-line --set, an environment variable of the process).
	Span Span `json:"span,omitzero"`
	// Text is what the user wrote for a step without a Span, as they would
	// recognise it ("--set decode.maxTotalTokens=8192").
	Text string `json:"text,omitempty"`
	// Inferred is set when the step was linked to the value by equal text
	// and key name rather than traced: a Helm template computed on the
	// value, so the value's own text never reached the output.
	Inferred bool `json:"inferred,omitempty"`
}

// InFile reports whether the step is a place in a file.
func (s Step) InFile() bool { return s.Span.File != "" }

// Origin is the chain of steps that produced a value, besides Value.Span
// itself, outermost first: for a value set in a values file, the template
// action that printed it and the include sites around it; for a shell word
// $TP, the assignment that set TP.
type Origin []Step

// At is a step written at span.
func At(kind StepKind, span Span) Step { return Step{Kind: kind, Span: span} }

// Add appends a step unless it adds nothing: a step in a file that is no
// place (a zero span), or a place already in the chain.
func (o Origin) Add(s Step) Origin {
	if s.InFile() && s.Span.IsZero() || !s.InFile() && s.Text == "" {
		return o
	}
	for _, x := range o {
		if x.Span == s.Span && x.Text == s.Text {
			return o
		}
	}
	return append(o, s)
}

// Inferred reports whether any step was linked by text and key name rather
// than traced.
func (o Origin) Inferred() bool {
	return slices.ContainsFunc(o, func(s Step) bool { return s.Inferred })
}

// Spans are the places in files the chain names, in order.
func (o Origin) Spans() []Span {
	var out []Span
	for _, s := range o {
		if s.InFile() {
			out = append(out, s.Span)
		}
	}
	return out
}
