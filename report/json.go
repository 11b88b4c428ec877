// Package report renders a run's findings, servers and errors for people (text)
// and for programs (JSON). The JSON shapes are a documented contract: fields
// are only ever added.
package report

import (
	"io"
	"strconv"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/capacity"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
)

type jsonFinding struct {
	Rule      string `json:"rule"`
	Severity  string `json:"severity"`
	Title     string `json:"title"`
	Message   string `json:"message"`
	File      string `json:"file"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"end_line"`
	EndColumn int    `json:"end_column"`
	Server    string `json:"server"`
	// Via is how the value at file:line was produced: the template lines
	// that used a Helm values line, Terraform's variable and argument.
	Via []jsonStep `json:"via,omitempty"`
	// Suppression is set on the entries of suppressed only.
	Suppression *jsonSuppression `json:"suppression,omitempty"`
	// Fixes are the computed fixes, least disruptive first.
	Fixes []jsonFix `json:"fixes,omitempty"`
}

// jsonSuppression says what silenced a finding and where it is written.
type jsonSuppression struct {
	Kind   string `json:"kind"` // inline, file, annotation, config, baseline
	Reason string `json:"reason"`
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

type jsonServer struct {
	File     string             `json:"file"`
	Line     int                `json:"line"`
	Column   int                `json:"column"`
	Engine   deploy.Engine      `json:"engine"`
	Role     deploy.Role        `json:"role"`
	Name     string             `json:"name"`
	Model    *string            `json:"model"`
	GPU      *string            `json:"gpu"`
	GPUCount *int64             `json:"gpu_count"`
	Replicas *int64             `json:"replicas"`
	Args     map[string]jsonArg `json:"args"`
	// Entrypoint names the words the image supplied; omitted when the
	// deployment wrote the whole command.
	Entrypoint *deploy.ImageEntrypoint `json:"entrypoint,omitempty"`
	// Release is the engine release the server was judged against; omitted
	// for programs without a flag history (the router, Dynamo's frontend).
	Release *deploy.Release `json:"release,omitempty"`
}

// jsonArg is one flag's value in force. Known is false for a placeholder
// kvlint could not resolve; Value then holds the text as written.
type jsonArg struct {
	Value  string `json:"value"`
	Known  bool   `json:"known"`
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
	// Inferred is set when the values line was matched by key name and
	// text because a Helm template computed on the value.
	Inferred bool `json:"inferred,omitempty"`
}

// jsonError is an input error. File is null for one that is not in a file
// (a command-line --set), never a name made up for it.
type jsonError struct {
	File    *string `json:"file"`
	Line    int     `json:"line"`
	Column  int     `json:"column"`
	Message string  `json:"message"`
}

// CheckJSON writes the result of `kvlint check --format json`. Each finding
// and server is converted to its JSON shape only as it is written, so the
// report of a large repository never holds a second copy of the result.
// Its members: findings, servers, errors, suppressed (the findings a
// suppression or the baseline silenced: not in findings, not counted by the
// exit code), deployments (which group the servers, by index) and
// unlaunched (the places files name an engine where no launch was
// recognised; empty when there are none, like every other member).
func CheckJSON(w io.Writer, res *analysis.Result) error {
	var active, suppressed []int // indexes into res.Findings
	for i, f := range res.Findings {
		if f.Suppression != nil {
			suppressed = append(suppressed, i)
		} else {
			active = append(active, i)
		}
	}
	deployments := deploymentsJSON(res)
	return writeJSONArrays(w, []jsonArray{
		{"findings", len(active), func(i int) any { return findingJSON(res, res.Findings[active[i]]) }},
		{"servers", len(res.Servers), func(i int) any { return serverJSON(res.Servers[i]) }},
		{"errors", len(res.Errors), func(i int) any { return errorJSON(res.Errors[i]) }},
		{"suppressed", len(suppressed), func(i int) any { return findingJSON(res, res.Findings[suppressed[i]]) }},
		{"deployments", len(deployments), func(i int) any { return deployments[i] }},
		{"unlaunched", len(res.Unlaunched), func(i int) any { return unlaunchedJSON(res.Unlaunched[i]) }},
		{"unanalysed", len(res.Unanalysed), func(i int) any { return unanalysedJSON(res.Unanalysed[i]) }},
	})
}

// jsonUnlaunched is a place a file names an engine where kvlint found no
// launch (its KV501 note is among the findings); the files it names are
// the summary's "files mention an engine without a recognised launch".
type jsonUnlaunched struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	Kind   string `json:"kind"`  // module, command, image
	Named  string `json:"named"` // what was seen
}

func unlaunchedJSON(m analysis.EngineMention) jsonUnlaunched {
	return jsonUnlaunched{File: m.Span.File, Line: m.Span.Line, Column: m.Span.Col, Kind: m.Kind, Named: m.Named}
}

// jsonUnanalysed is something a file deploys that kvlint did not read (a
// remote Terraform module; its KV502 note is among the findings). It is a
// sibling of unlaunched, not one of its kinds: nothing there names an
// engine, and the summary counts them apart ("1 module not analysed").
type jsonUnanalysed struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	Kind   string `json:"kind"`   // terraform-module
	Name   string `json:"name"`   // the module call's label
	Source string `json:"source"` // its source, as written
}

func unanalysedJSON(u analysis.Unanalysed) jsonUnanalysed {
	return jsonUnanalysed{File: u.Span.File, Line: u.Span.Line, Column: u.Span.Col, Kind: u.Kind, Name: u.Name, Source: u.Source}
}

func findingJSON(res *analysis.Result, f diag.Diagnostic) jsonFinding {
	jf := jsonFinding{
		Rule: f.Rule, Severity: f.Severity, Title: f.Title, Message: f.Message,
		File: f.Span.File, Line: f.Span.Line, Column: f.Span.Col,
		EndLine: f.Span.EndLine, EndColumn: f.Span.EndCol,
		Server: serverName(res, f.Server), Via: viaJSON(f.Origin),
		Fixes: fixesJSON(f.Fixes),
	}
	if s := f.Suppression; s != nil {
		jf.Suppression = &jsonSuppression{Kind: s.Kind, Reason: s.Reason, File: s.Span.File, Line: s.Span.Line, Column: s.Span.Col}
	}
	return jf
}

func serverJSON(s *deploy.Server) jsonServer {
	js := jsonServer{
		File: s.Span.File, Line: s.Span.Line, Column: s.Span.Col,
		Engine: s.Engine, Role: s.Role, Name: s.Name,
		Model: knownString(s.Model), GPU: knownString(s.GPU),
		GPUCount: knownInt(s.GPUCount), Replicas: knownInt(s.Replicas),
		Args:       make(map[string]jsonArg, len(s.Args)),
		Entrypoint: s.Entrypoint,
	}
	if s.Release.Judged != "" {
		r := s.Release
		js.Release = &r
	}
	for name, v := range s.Args {
		js.Args[name] = jsonArg{Value: v.Raw, Known: v.Known, File: v.Span.File, Line: v.Span.Line, Column: v.Span.Col, Inferred: v.Origin.Inferred()}
	}
	return js
}

func errorJSON(e *diag.Diagnostic) jsonError {
	je := jsonError{Line: e.Span.Line, Column: e.Span.Col, Message: e.Message}
	if e.Span.File != "" {
		je.File = &e.Span.File
	}
	return je
}

type jsonCapacity struct {
	Sizing      Sizing           `json:"sizing"`
	Servers     []jsonEstimate   `json:"servers"`
	Errors      []jsonError      `json:"errors"`
	Deployments []jsonDeployment `json:"deployments"`
}

type jsonEstimate struct {
	File       string      `json:"file"`
	Line       int         `json:"line"`
	Name       string      `json:"name"`
	Role       deploy.Role `json:"role"`
	Deployment string      `json:"deployment"`
	capacity.Estimate
	// Unknowns as null, as check writes them: these shadow the estimate's
	// fields of the same JSON names, where "" and 0 mean unknown.
	Model    *string `json:"model"`
	GPU      *string `json:"gpu"`
	GPUCount *int    `json:"gpu_count"`
	TP       *int    `json:"tp"`
	DP       *int    `json:"dp"`
	PP       *int    `json:"pp"`
	KVDtype  *string `json:"kv_dtype"`
}

func nullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func nullIfZero(n int) *int {
	if n == 0 {
		return nil
	}
	return &n
}

// CapacityJSON writes the result of `kvlint capacity --format json`.
func CapacityJSON(w io.Writer, res *analysis.Result) error {
	out := jsonCapacity{Sizing: SizingOf(res), Servers: []jsonEstimate{}, Errors: []jsonError{}, Deployments: deploymentsJSON(res)}
	of := deploymentOf(res)
	for i, s := range res.Servers {
		est := res.Estimates[i]
		if est.Assumptions == nil {
			est.Assumptions = []string{}
		}
		if est.Missing == nil {
			est.Missing = []string{}
		}
		out.Servers = append(out.Servers, jsonEstimate{File: s.Span.File, Line: s.Span.Line, Name: s.Name, Role: s.Role, Deployment: of[s], Estimate: est,
			Model: nullIfEmpty(est.Model), GPU: nullIfEmpty(est.GPU), GPUCount: nullIfZero(est.GPUCount),
			TP: nullIfZero(est.TP), DP: nullIfZero(est.DP), PP: nullIfZero(est.PP), KVDtype: nullIfEmpty(est.KVDtype)})
	}
	for _, e := range res.Errors {
		out.Errors = append(out.Errors, errorJSON(e))
	}
	return writeJSON(w, out)
}

func serverName(res *analysis.Result, i int) string {
	if i >= 0 && i < len(res.Servers) {
		return res.Servers[i].Name
	}
	return ""
}

func knownString(v deploy.Value) *string {
	if !v.Known {
		return nil
	}
	return &v.Raw
}

func knownInt(v deploy.Value) *int64 {
	if !v.Known {
		return nil
	}
	n, err := strconv.ParseInt(v.Raw, 10, 64)
	if err != nil {
		return nil
	}
	return &n
}
