package terraform

import (
	"errors"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/kvlint/kvlint/engine"
	"github.com/kvlint/kvlint/parsers/k8s"
	"github.com/kvlint/kvlint/parsers/yamlsrc"
)

// kubeKinds are the kubernetes provider's workload resources and the object
// each one creates (registry.terraform.io/providers/hashicorp/kubernetes,
// resources kubernetes_deployment_v1 and friends; the unversioned names are
// the same schema).
var kubeKinds = map[string][2]string{
	"kubernetes_deployment":             {"apps/v1", "Deployment"},
	"kubernetes_stateful_set":           {"apps/v1", "StatefulSet"},
	"kubernetes_daemonset":              {"apps/v1", "DaemonSet"},
	"kubernetes_daemon_set":             {"apps/v1", "DaemonSet"},
	"kubernetes_pod":                    {"v1", "Pod"},
	"kubernetes_job":                    {"batch/v1", "Job"},
	"kubernetes_cron_job":               {"batch/v1", "CronJob"},
	"kubernetes_replication_controller": {"v1", "ReplicationController"},
}

func kubeKind(resourceType string) ([2]string, bool) {
	k, ok := kubeKinds[strings.TrimSuffix(resourceType, "_v1")]
	if !ok {
		k, ok = kubeKinds[strings.TrimSuffix(resourceType, "_v2")]
	}
	return k, ok
}

// listBlocks are nested block types the provider repeats to make a list,
// with the name of the list in the Kubernetes API.
var listBlocks = map[string]string{
	"container": "containers", "init_container": "initContainers", "ephemeral_container": "ephemeralContainers",
	"env": "env", "env_from": "envFrom", "port": "ports", "volume_mount": "volumeMounts",
	"volume_device": "volumeDevices", "volume": "volumes", "toleration": "tolerations",
	"node_selector_term": "nodeSelectorTerms", "match_expressions": "matchExpressions",
	"match_fields": "matchFields", "image_pull_secrets": "imagePullSecrets", "host_aliases": "hostAliases",
	"topology_spread_constraint": "topologySpreadConstraints", "readiness_gate": "readinessGates",
	"preferred_during_scheduling_ignored_during_execution": "preferredDuringSchedulingIgnoredDuringExecution",
}

// camel turns the provider's snake_case names into the API's camelCase.
func camel(s string) string {
	parts := strings.Split(s, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// blockNode converts a body of the provider's nested-block schema into the
// object the API receives. Attributes are evaluated; dynamic blocks are
// expanded when their for_each is known.
func (m *module) blockNode(body *hclsyntax.Body, ctx *hcl.EvalContext, depth int) *ynode {
	r := body.Range()
	n := &ynode{kind: mapNode, where: &site{f: m.fs[r.Filename], start: r.Start.Byte, end: r.End.Byte}}
	if depth > maxValueDepth {
		return n
	}
	for _, a := range sortedAttributes(body) {
		switch a.Name {
		case "count", "for_each", "depends_on", "provider", "lifecycle", "wait_for_rollout", "timeouts":
			continue
		}
		key := camel(a.Name)
		v := m.eval(a.Expr, ctx, "")
		ar := a.Expr.Range()
		if c := valueNode(v, key, &site{f: m.fs[ar.Filename], start: ar.Start.Byte, end: ar.End.Byte}, 0); c != nil {
			n.set(key, c)
		}
	}
	for _, b := range body.Blocks {
		typ := b.Type
		var items []*ynode
		switch typ {
		case "dynamic":
			if len(b.Labels) != 1 {
				continue
			}
			typ = b.Labels[0]
			items = m.dynamicBlock(b, ctx, depth)
		case "lifecycle", "timeouts", "connection", "provisioner":
			continue
		default:
			items = []*ynode{m.blockNode(b.Body, ctx, depth+1)}
		}
		if list, ok := listBlocks[typ]; ok {
			l := n.get(list)
			if l == nil || l.kind != listNode {
				l = &ynode{kind: listNode, where: items0(items, n.where)}
				n.set(list, l)
			}
			l.vals = append(l.vals, items...)
			continue
		}
		for _, it := range items {
			n.set(camel(typ), it)
		}
	}
	return n
}

func items0(items []*ynode, def *site) *site {
	if len(items) > 0 && items[0].where != nil {
		return items[0].where
	}
	return def
}

// dynamicBlock expands `dynamic "name" { for_each = ...; content { ... } }`
// (Terraform's dynamic blocks: the iterator is named by `iterator`, else by
// the block type, with .key and .value). An unknown for_each gives nothing:
// the blocks it would make cannot be known.
func (m *module) dynamicBlock(b *hclsyntax.Block, ctx *hcl.EvalContext, depth int) []*ynode {
	fe, ok := b.Body.Attributes["for_each"]
	if !ok {
		return nil
	}
	var content *hclsyntax.Block
	for _, c := range b.Body.Blocks {
		if c.Type == "content" {
			content = c
		}
	}
	if content == nil {
		return nil
	}
	iter := b.Labels[0]
	if it, ok := b.Body.Attributes["iterator"]; ok {
		if t, ds := hcl.AbsTraversalForExpr(it.Expr); !ds.HasErrors() && len(t) == 1 {
			iter = t.RootName()
		}
	}
	coll := m.eval(fe.Expr, ctx, iter+".value")
	var out []*ynode
	for _, kv := range elements(coll, maxInstances) {
		child := ctx.NewChild()
		child.Variables = map[string]cty.Value{iter: cty.ObjectVal(map[string]cty.Value{"key": kv[0], "value": kv[1]})}
		out = append(out, m.blockNode(content.Body, child, depth+1))
	}
	return out
}

// maxInstances bounds count, for_each and dynamic blocks.
const maxInstances = 256

// elements lists the keys and values a for_each iterates over: a map or
// object by key, a set or list by value (for a list the key is the index).
// An unknown collection has none.
func elements(v cty.Value, limit int) [][2]cty.Value {
	bare, marks := v.Unmark()
	if !bare.IsKnown() || bare.IsNull() {
		return nil
	}
	ty := bare.Type()
	if !ty.IsCollectionType() && !ty.IsObjectType() && !ty.IsTupleType() {
		return nil
	}
	var out [][2]cty.Value
	for it := bare.ElementIterator(); it.Next() && len(out) < limit; {
		k, e := it.Element()
		if ty.IsSetType() {
			k = e
		}
		out = append(out, [2]cty.Value{k, e.WithMarks(marks)})
	}
	return out
}

// kubeResource turns one instance of a kubernetes_* workload into its
// manifest and finds the servers in it.
func (m *module) kubeResource(b *hclsyntax.Block, ctx *hcl.EvalContext, address string) {
	kind, _ := kubeKind(b.Labels[0])
	root := m.blockNode(b.Body, ctx, 0)
	obj := &ynode{kind: mapNode, where: root.where}
	obj.set("apiVersion", &ynode{kind: scalarNode, leaf: cty.StringVal(kind[0])})
	obj.set("kind", &ynode{kind: scalarNode, leaf: cty.StringVal(kind[1])})
	for i, k := range root.keys {
		obj.set(k, root.vals[i])
	}
	m.kubernetes(obj, b, address)
}

// manifestResource is kubernetes_manifest: its manifest argument is the
// object itself (an HCL object, or yamldecode of a file or a template).
func (m *module) manifestResource(b *hclsyntax.Block, ctx *hcl.EvalContext, address string) {
	a, ok := b.Body.Attributes["manifest"]
	if !ok {
		return
	}
	v := m.eval(a.Expr, ctx, "")
	ar := a.Expr.Range()
	n := valueNode(v, "", &site{f: m.fs[ar.Filename], start: ar.Start.Byte, end: ar.End.Byte}, 0)
	if n == nil || n.kind != mapNode {
		if bare, _ := v.Unmark(); !bare.IsKnown() {
			m.errorf(m.fs.span(ar), "the manifest of %s is not known statically, so the servers it may launch were not checked", address)
		}
		return
	}
	m.kubernetes(n, b, address)
}

// kubernetes renders an object, runs the Kubernetes parser over it and maps
// what it found back to the HCL.
func (m *module) kubernetes(obj *ynode, b *hclsyntax.Block, address string) {
	r := render(obj, &m.placeholders)
	name := "\x00terraform:" + address
	text := []byte(r.b.String())
	hdr := hcl.RangeBetween(b.TypeRange, b.LabelRanges[len(b.LabelRanges)-1])
	rm := &remapper{r: r, src: yamlsrc.NewSource(name, text), name: name, fallback: m.fs.span(hdr)}
	km := k8s.ParseManifestWith(name, text, m.readBeside(), m.opt.Images)
	servers, errs := km.Servers, km.Errors
	for _, e := range errs {
		e.Span, _ = rm.span(e.Span)
		e.Message = rm.text(e.Message)
		m.errs = append(m.errs, e)
	}
	for _, s := range servers {
		rm.server(s)
		s.Source = Source
		m.servers = append(m.servers, s)
	}
}

// readBeside reads files a command line names (--config FILE): a relative
// path from the module directory, confined to it; an absolute path names
// the container's filesystem, which kvlint cannot see.
func (m *module) readBeside() engine.ReadFile {
	return func(p string) (string, []byte, error) {
		if filepath.IsAbs(p) {
			return p, nil, errors.New("an absolute path names a file inside the container, which kvlint cannot read")
		}
		display, real, err := m.resolve(p)
		if err != nil {
			return filepath.Join(m.dir, p), nil, err
		}
		data, err := m.readFile(real)
		if err == nil {
			m.keep(display, data)
		}
		return display, data, err
	}
}

// kubectlManifest is the kubectl provider's kubectl_manifest
// (registry.terraform.io/providers/gavinbunney/kubectl, and its alekc
// fork): yaml_body is the object as YAML text (a heredoc, file,
// templatefile, yamlencode). The text keeps its byte map, so a flag read
// out of it points where it was written.
func (m *module) kubectlManifest(b *hclsyntax.Block, ctx *hcl.EvalContext, address string) {
	a, ok := b.Body.Attributes["yaml_body"]
	if !ok {
		return
	}
	v := m.eval(a.Expr, ctx, "")
	ar := a.Expr.Range()
	bare, _ := v.Unmark()
	if !bare.IsKnown() {
		m.errorf(m.fs.span(ar), "the yaml_body of %s is not known statically, so the servers it may launch were not checked", address)
		return
	}
	if bare.IsNull() || bare.Type() != cty.String {
		return
	}
	obj, err := yamlDecode(v)
	if err != nil {
		m.errorf(m.fs.span(ar), "the yaml_body of %s: %s", address, m.placeholderText(err.Error()))
		return
	}
	n := valueNode(obj, "", &site{f: m.fs[ar.Filename], start: ar.Start.Byte, end: ar.End.Byte}, 0)
	if n == nil || n.kind != mapNode {
		return
	}
	m.kubernetes(n, b, address)
}
