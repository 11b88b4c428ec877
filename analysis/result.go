// Package analysis holds what one kvlint run learned: the servers found, the
// pool each will allocate, how they group into deployments, the findings and
// the input that could not be analysed. It is data only: check produces it,
// and verify and the reporters read it without depending on the pipeline
// (and so on every parser, Helm, Terraform and OPA) that produced it.
package analysis

import (
	"github.com/kvlint/kvlint/capacity"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/source"
)

// Result is everything one run learned, in a deterministic order.
type Result struct {
	Servers   []*deploy.Server
	Estimates []capacity.Estimate // Estimates[i] belongs to Servers[i]
	// Findings are the rules' diagnostics, suppressed ones included and
	// marked; Errors are the input that could not be analysed (diagnostics
	// without a rule). One type, two lists: the reporters show errors
	// first and count them apart, and only errors make the run exit 3.
	Findings []diag.Diagnostic
	// Deployments group Servers by the endpoint they serve, with the
	// tenancy and isolation in force for each (deploy.Group).
	Deployments []deploy.Deployment
	Errors      []*diag.Diagnostic
	// Files holds the text of every file the run read, for the reporters
	// to quote; a span whose file is not in it is quoted nowhere.
	Files *source.Set
	// Unlaunched are the places files name an engine (a launch module, a
	// serve subcommand, an engine image) where the run recognised no
	// launch, in file order: each has a KV501 note among the Findings.
	Unlaunched []EngineMention
	// Unanalysed are what files deploy that the run knows it did not read
	// (a remote Terraform module), in file order: each has a KV502 note
	// among the Findings.
	Unanalysed []Unanalysed
	// ExpectedConcurrency is the number of concurrent requests the run's
	// configuration declares (.kvlint.yaml expected_concurrency); 0 when it
	// declares none.
	ExpectedConcurrency int
}

// EngineMention is a place a file names an engine in a file that yielded
// no server.
type EngineMention struct {
	Span deploy.Span
	// Kind is module, command or image; Named is what was seen
	// ("sglang.launch_server", "vllm serve", "lmsysorg/sglang:latest").
	Kind  string
	Named string
}

// Unanalysed is something a file deploys that the run did not read.
type Unanalysed struct {
	Span deploy.Span // where its source is written
	// Kind is terraform-module; Name is the module call's label and
	// Source its source as written.
	Kind   string
	Name   string
	Source string
}

// UnlaunchedFiles is how many files name an engine without a recognised
// launch.
func (r *Result) UnlaunchedFiles() int {
	n := 0
	for i, m := range r.Unlaunched {
		if i == 0 || m.Span.File != r.Unlaunched[i-1].Span.File {
			n++
		}
	}
	return n
}
