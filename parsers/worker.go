package parsers

import (
	"context"
	"encoding/gob"
	"errors"
	"time"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/engine"
	"github.com/kvlint/kvlint/internal/worker"
	"github.com/kvlint/kvlint/parsers/helm"
	"github.com/kvlint/kvlint/source"
)

// A chart's render and a module's evaluation run templates and expressions
// the input wrote: they run in a worker process (internal/worker) whose
// memory, CPU time and wall-clock time are bounded, so a bomb costs its
// chart or module and nothing else. The cheap formats, which run no code
// of the input's, stay in process under guard.

const parseWorker = "parse"

func init() { worker.Handle(parseWorker, serveParse) }

// parseRequest is what a worker needs to parse one chart or module: the
// settings of Options that are data (the Helm releases are decided by the
// parent, which holds the configuration).
type parseRequest struct {
	File        File
	TFVarFiles  []string
	Environ     []string
	Roots       []string
	Images      []engine.Image
	UserImages  bool
	Releases    []wireRelease
	FileTimeout time.Duration
}

// wireRelease is a helm.Release without its run-wide pointers (the file
// set, the image table), which the worker makes its own.
type wireRelease struct {
	Chart, Name, Namespace string
	Values                 []string // files; a release from the configuration names only files
	Set                    []helm.Set
	// User is true when the values files are the user's (--values), read
	// wherever they are; else they are confined to the checked paths.
	User bool
}

// parseResponse is a worker's Parsed with the files it read.
type parseResponse struct {
	Servers    []*deploy.Server
	Services   []deploy.Service
	Errors     []*diag.Diagnostic
	Unanalysed []Unanalysed
	Files      []wireFile
}

type wireFile struct {
	Name   string
	Data   []byte
	Syntax source.Syntax
}

// inWorker parses a chart or module in a worker. ok is false when no worker
// can run it (not Linux, a test binary that serves none, a release
// whose values are not plain files): the caller parses in process.
func inWorker(f File, opt Options) (Parsed, bool) {
	if (f.Kind != KindHelm && f.Kind != KindTerraform) || !worker.Available() {
		return Parsed{}, false
	}
	req := parseRequest{File: f, TFVarFiles: opt.TFVarFiles, Environ: opt.Environ, Roots: opt.Roots, FileTimeout: opt.FileTimeout}
	if opt.Images != nil {
		req.Images, req.UserImages = opt.Images.UserRows(), true
	}
	if f.Kind == KindHelm && opt.Helm != nil {
		for _, r := range opt.Helm(f.Path) {
			w := wireRelease{Chart: r.Chart, Name: r.Name, Namespace: r.Namespace, Set: r.Set}
			for i, v := range r.Values {
				if v.Data != nil || v.Locate != nil || v.Unknown != nil || i > 0 && v.User != w.User {
					return Parsed{}, false
				}
				w.Values = append(w.Values, v.File)
				w.User = v.User
			}
			req.Releases = append(req.Releases, w)
		}
	}
	timeout := opt.FileTimeout
	if timeout <= 0 {
		timeout = DefaultFileTimeout
	}
	var resp parseResponse
	err := worker.Call(context.Background(), parseWorker, worker.LimitsFor(timeout), req, &resp)
	if errors.Is(err, worker.ErrUnavailable) {
		return Parsed{}, false
	}
	if err != nil {
		return Parsed{Errors: []*diag.Diagnostic{diag.Errorf(deploy.Span{File: f.Path},
			"%s was stopped: %v; it was not analysed", doing(f.Kind), err)}}, true
	}
	for _, wf := range resp.Files {
		opt.Files.Add(source.NewFile(wf.Name, wf.Data, wf.Syntax))
	}
	for _, s := range resp.Servers {
		if s != nil && s.Args == nil {
			s.Args = map[string]deploy.Value{} // gob sends an empty map as none
		}
	}
	return Parsed{Servers: resp.Servers, Services: resp.Services, Errors: resp.Errors, Unanalysed: resp.Unanalysed}, true
}

// serveParse is the worker's side: it parses the chart or module in
// process, under the same guard as any file, and sends back what it found
// and the files it read.
func serveParse(dec *gob.Decoder, enc *gob.Encoder) error {
	var req parseRequest
	if err := dec.Decode(&req); err != nil {
		return err
	}
	opt := Options{TFVarFiles: req.TFVarFiles, Environ: req.Environ, Roots: req.Roots, FileTimeout: req.FileTimeout, Files: source.NewSet()}
	if req.UserImages {
		opt.Images = engine.NewImageTable(req.Images)
	}
	if len(req.Releases) > 0 {
		rels := make([]helm.Release, len(req.Releases))
		for i, w := range req.Releases {
			rels[i] = helm.Release{Chart: w.Chart, Name: w.Name, Namespace: w.Namespace, Set: w.Set}
			for _, v := range w.Values {
				rels[i].Values = append(rels[i].Values, helm.Values{File: v, User: w.User})
			}
		}
		opt.Helm = func(string) []helm.Release { return rels }
	}
	// The worker reads through the same confinement as its parent: the
	// checked paths (internal/confined).
	opt = withFiles(opt, req.File)
	p := guard(req.File, opt, func() Parsed { return parseAllWith(req.File, opt) })
	resp := parseResponse{Servers: p.Servers, Services: p.Services, Errors: p.Errors, Unanalysed: p.Unanalysed}
	for _, f := range opt.Files.Files() {
		resp.Files = append(resp.Files, wireFile{Name: f.Name, Data: f.Data, Syntax: f.Syntax})
	}
	return enc.Encode(&resp)
}
