// Package k8s finds engine launches in Kubernetes manifests: every container
// of every pod template in a multi-document YAML stream, whether the object is
// a built-in workload (Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet,
// Job, CronJob), a LeaderWorkerSet, or a serving CRD (RoleBasedGroup, KServe,
// OME, Dynamo, KubeRay) that embeds pod-template-shaped containers somewhere
// in its tree. A KubeRay RayJob's spec.entrypoint, a shell command, is read
// as a script (rayjob.go).
//
// A container's command+args become argv words with the exact span of each
// YAML scalar; $(VAR) references are expanded as the kubelet does; a
// `sh -c SCRIPT` argv hands the script to parsers/shell with a map from the
// script back to the YAML file.
//
// Precision of positions inside a script: every character of a script that
// is not white space maps to where it is written, whatever the scalar style
// (plain, quoted with escapes, literal | or folded > blocks, folded over
// several lines), so words and flags point at the right line and column. The
// white space between words in a folded or quoted multi-line scalar maps to
// the nearest source white space. Should the map ever fail to line up with
// what yaml.v3 decoded, every position falls back to the scalar's start.
// A value the kubelet substituted for $(VAR) spans the whole reference and
// names the env entry in its Origin.
package k8s

import (
	"bytes"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/engine"
	"github.com/kvlint/kvlint/parsers/yamlsrc"
	"github.com/kvlint/kvlint/source"
)

// Source is the value of deploy.Server.Source for servers found here.
const Source = deploy.SourceKubernetes

// Limits that keep hostile input cheap. Real manifests nest a pod template
// fewer than 15 levels deep and hold a few thousand nodes.
const (
	maxDepth = 64     // mapping/list levels walked below an object
	maxNodes = 200000 // nodes visited per document, aliases followed
	maxLists = 4      // List objects nested in List objects
)

// Parse returns the servers launched by the Kubernetes objects in data, the
// content of the file name. Documents that are not Kubernetes objects (no
// apiVersion or kind) are skipped without a word; a document with a syntax
// error is reported at its line and the other documents are still read.
func Parse(name string, data []byte, read engine.ReadFile) ([]*deploy.Server, []*diag.Diagnostic) {
	r := ParseManifest(name, data, read)
	return r.Servers, r.Errors
}

// Manifest is what a manifest stream holds that kvlint reads: the servers,
// and the Services that route to them (deploy.Group matches a router's URLs
// to them).
type Manifest struct {
	Servers  []*deploy.Server
	Services []deploy.Service
	Errors   []*diag.Diagnostic
	// Unsized are container commands that start a model server which
	// keeps no paged KV cache (engine.HFTransformers): the value that
	// makes it so, for a note in place of a server.
	Unsized []deploy.Value
	// Controlled are servers a controller launches from a resource
	// whose command kvlint does not read (a KAITO Workspace).
	Controlled []ControllerLaunch
}

// ParseManifest is Parse that also returns the Services.
func ParseManifest(name string, data []byte, read engine.ReadFile) Manifest {
	return ParseManifestFile(source.NewFile(name, data, source.SyntaxYAML), read)
}

// ParseManifestFile is ParseManifest for a file of the run's set, whose
// line index it uses.
func ParseManifestFile(f *source.File, read engine.ReadFile) Manifest {
	return ParseManifestFileWith(f, read, Options{})
}

// Options are what a manifest's parse may know beyond the file itself.
type Options struct {
	// Images gives a container that writes no command its image's
	// entrypoint; nil has only the built-in rows.
	Images *engine.ImageTable
	// ConfigMaps are the ConfigMaps of the run's other manifests
	// (CollectConfigMaps): a container may run a script held in one.
	ConfigMaps *ConfigMaps
	// OME joins the OME InferenceServices, base models and runtimes of
	// the run's manifests (CollectOMEModels); nil joins those of this
	// file alone.
	OME *OMEModels
	// ModelFacts is what kvlint's model catalog knows of an id, for the
	// OME runtime selector when OME is nil; nil knows nothing.
	ModelFacts ModelFacts
}

// ParseManifestWith is ParseManifest with an image table (nil has only the
// built-in rows).
func ParseManifestWith(name string, data []byte, read engine.ReadFile, images *engine.ImageTable) Manifest {
	return ParseManifestFileWith(source.NewFile(name, data, source.SyntaxYAML), read, Options{Images: images})
}

// ParseManifestFileWith is ParseManifestFile for a file that is one of a
// set of manifests, with the image table of the run.
func ParseManifestFileWith(f *source.File, read engine.ReadFile, opt Options) Manifest {
	src := yamlsrc.FromFile(f)
	docs, errs := src.Documents()
	errs = enginelessDropped(f, src, errs, opt.Images)
	p := &parser{src: src, read: read, images: opt.Images, errs: errs, runtimes: indexRuntimes(docs), extMaps: opt.ConfigMaps}
	p.ome = opt.OME
	if p.ome == nil && bytes.Contains(f.Data, []byte("ome.io/")) {
		p.ome = CollectOMEModels(opt.ModelFacts, f)
	}
	p.ownMaps = &ConfigMaps{}
	for _, d := range docs {
		p.ownMaps.add(src, d.Root, 0)
	}
	for _, d := range docs {
		p.budget = maxNodes
		p.reported = false
		p.object(d.Root, 0)
	}
	return Manifest{Servers: p.servers, Services: p.services, Errors: p.errs, Unsized: p.unsized, Controlled: p.controlled}
}

// enginelessDropped keeps the syntax errors of the documents that name an
// engine (an engine's program or module, or an image whose entrypoint
// starts one) outside comments. Every YAML file no other format claims is
// read as a manifest, and many are not: a conda recipe or a krew plugin
// manifest written as a Jinja or Go template, a ClusterLoader config. A
// document that names no engine cannot launch one kvlint knows, so that it
// cannot be read is no reason to fail the run; one that names an engine may
// hide a server, and its error stays.
func enginelessDropped(f *source.File, src *yamlsrc.Source, errs []*diag.Diagnostic, images *engine.ImageTable) []*diag.Diagnostic {
	var out []*diag.Diagnostic
	for _, e := range errs {
		start, end := src.PartAt(e.Span.Line)
		named := false
		engine.ScanMentions(f.Data[start:end], images, func(m engine.Mention) bool {
			comment, _ := source.LineContext(f.Data, start+m.Start, source.SyntaxYAML)
			named = !comment
			return comment
		})
		if named {
			out = append(out, e)
		}
	}
	return out
}

type parser struct {
	src      *yamlsrc.Source
	read     engine.ReadFile
	images   *engine.ImageTable
	servers  []*deploy.Server
	services []deploy.Service
	errs     []*diag.Diagnostic
	unsized  []deploy.Value // see Manifest.Unsized
	// controlled are the stream's Manifest.Controlled.
	controlled []ControllerLaunch

	budget   int  // nodes the current document may still visit
	reported bool // the current document already has a limit diagnostic

	// runtimes are the KServe ServingRuntimes and ClusterServingRuntimes of
	// the stream, by name, for the InferenceServices that name them.
	runtimes map[string]*yaml.Node
	// ome binds OME runtimes to the models their InferenceServices serve.
	ome *OMEModels

	// ownMaps are the stream's ConfigMaps, extMaps those of the other
	// files of the set, allMaps both (configMaps).
	ownMaps, extMaps, allMaps *ConfigMaps
}

func (p *parser) errorf(n *yaml.Node, format string, args ...any) {
	p.errs = append(p.errs, diag.Errorf(p.src.NodeSpan(n), format, args...))
}

// object is one Kubernetes object being searched for pod templates.
type object struct {
	kind, apiVersion, name string
	namespace              string // metadata.namespace, "" when not written
	// schema is true for the kinds whose schema kvlint knows (built-in
	// workloads and LeaderWorkerSet): a wrongly typed field there is an
	// error, where in an unknown CRD it may be something else entirely.
	schema bool
	root   *yaml.Node // the object's mapping
}

// kindsWithSchema are the objects whose pod templates sit where the
// Kubernetes API (and the LWS API) says they do.
var kindsWithSchema = map[string]bool{
	"Pod": true, "PodTemplate": true, "Deployment": true, "StatefulSet": true,
	"DaemonSet": true, "ReplicaSet": true, "ReplicationController": true,
	"Job": true, "CronJob": true, "LeaderWorkerSet": true,
}

func (p *parser) object(n *yaml.Node, lists int) {
	n = yamlsrc.Resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return
	}
	apiVersion, ok1 := yamlsrc.Str(yamlsrc.Get(n, "apiVersion"))
	kind, ok2 := yamlsrc.Str(yamlsrc.Get(n, "kind"))
	if !ok1 || !ok2 {
		return // not a Kubernetes object
	}
	if strings.HasSuffix(kind, "List") {
		items := yamlsrc.Get(n, "items")
		if items != nil && items.Kind == yaml.SequenceNode && lists < maxLists {
			for _, it := range items.Content {
				p.object(it, lists+1)
			}
		}
		return
	}
	o := &object{kind: kind, apiVersion: apiVersion, schema: kindsWithSchema[kind], root: n}
	meta := yamlsrc.Get(n, "metadata")
	if s, ok := yamlsrc.Str(yamlsrc.Get(meta, "name")); ok && s != "" {
		o.name = s
	} else if s, ok := yamlsrc.Str(yamlsrc.Get(meta, "generateName")); ok && s != "" {
		o.name = s
	} else {
		o.name = strings.ToLower(kind)
	}
	if s, ok := yamlsrc.Str(yamlsrc.Get(meta, "namespace")); ok && !isPlaceholder(s) {
		o.namespace = s
	}
	if kind == "Service" && apiVersion == "v1" {
		p.service(o, meta, n)
		return
	}
	if kind == "InferenceService" && strings.HasPrefix(apiVersion, "serving.kserve.io/") {
		p.inferenceService(o, n)
	}
	if kind == "RayJob" && strings.HasPrefix(apiVersion, "ray.io/") {
		p.rayJob(o, n)
	}
	if kind == "Workspace" && strings.HasPrefix(apiVersion, "kaito.sh/") {
		p.kaitoWorkspace(o, n)
	}
	start := len(p.servers)
	p.walk(o, n, nil, 0)
	switch {
	case kind == "LLMInferenceService" && strings.HasPrefix(apiVersion, "serving.kserve.io/"):
		// spec.model.uri: kserve@aaac4e294dae pkg/apis/serving/v1alpha1/
		// llm_inference_service_types.go LLMModelSpec.URI, which the
		// storage initializer downloads to /mnt/models.
		if m, ok := hfModel(p.src, yamlsrc.Path(n, "spec", "model", "uri")); ok {
			modelFromDir(p.servers[start:], isKServeDir, m)
		}
	case (kind == "ServingRuntime" || kind == "ClusterServingRuntime") && isOME(apiVersion):
		p.ome.applyOME(p.src, n, o.name, p.servers[start:])
	}
}

// service records a Service's name and selector (core/v1 ServiceSpec
// .selector: "Route service traffic to pods with label keys and values
// matching this selector"). A Service without a selector, or with a
// templated name, routes to nothing kvlint can match.
func (p *parser) service(o *object, meta, n *yaml.Node) {
	nameNode := yamlsrc.Get(meta, "name")
	if nameNode == nil || isPlaceholder(o.name) {
		return
	}
	sel := map[string]string{}
	for _, pr := range yamlsrc.Pairs(yamlsrc.Path(n, "spec", "selector")) {
		v, ok := yamlsrc.Str(pr.Value)
		if !ok || isPlaceholder(v) || isPlaceholder(pr.Key.Value) {
			return // a selector kvlint cannot read would match the wrong pods
		}
		sel[pr.Key.Value] = v
	}
	if len(sel) == 0 {
		return
	}
	p.services = append(p.services, deploy.Service{Name: o.name, Namespace: o.namespace, Selector: sel, Span: p.src.NodeSpan(nameNode)})
}
