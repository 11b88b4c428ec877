package k8s

import (
	"path"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/parsers/shell"
	"github.com/kvlint/kvlint/parsers/yamlsrc"
	"github.com/kvlint/kvlint/source"
)

// ConfigMaps are the ConfigMaps of a set of manifests (one file, a chart's
// rendered templates, the Kubernetes files of a run), so a container that
// runs a script from a ConfigMap volume (bash /scripts/start.sh) is checked
// with the script's text. A nil *ConfigMaps holds none.
type ConfigMaps struct {
	maps []*configMap
}

// configMap is one ConfigMap object: where it was written and its data.
type configMap struct {
	src             *yamlsrc.Source
	name, namespace string
	data            *yaml.Node // the data mapping; nil when it has none
}

// CollectConfigMaps reads the ConfigMaps of the given manifest files. A file
// that does not parse contributes what it can; its errors are the parse of
// the file's own to report.
func CollectConfigMaps(files ...*source.File) *ConfigMaps {
	c := &ConfigMaps{}
	for _, f := range files {
		src := yamlsrc.FromFile(f)
		docs, _ := src.Documents()
		for _, d := range docs {
			c.add(src, d.Root, 0)
		}
	}
	return c
}

// add records n if it is a ConfigMap (or a List holding some).
func (c *ConfigMaps) add(src *yamlsrc.Source, n *yaml.Node, lists int) {
	n = yamlsrc.Resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return
	}
	kind, _ := yamlsrc.Str(yamlsrc.Get(n, "kind"))
	apiVersion, _ := yamlsrc.Str(yamlsrc.Get(n, "apiVersion"))
	if strings.HasSuffix(kind, "List") && lists < maxLists {
		if items := yamlsrc.Get(n, "items"); items != nil && items.Kind == yaml.SequenceNode {
			for _, it := range items.Content {
				c.add(src, it, lists+1)
			}
		}
		return
	}
	if kind != "ConfigMap" || apiVersion != "v1" {
		return
	}
	meta := yamlsrc.Get(n, "metadata")
	name, ok := yamlsrc.Str(yamlsrc.Get(meta, "name"))
	if !ok || name == "" || isPlaceholder(name) {
		return
	}
	ns, _ := yamlsrc.Str(yamlsrc.Get(meta, "namespace"))
	if isPlaceholder(ns) {
		ns = ""
	}
	data := yamlsrc.Get(n, "data")
	if data != nil && data.Kind != yaml.MappingNode {
		data = nil
	}
	c.maps = append(c.maps, &configMap{src: src, name: name, namespace: ns, data: data})
}

// lookup finds the ConfigMap a pod in namespace ns mounts by name: the one
// in the same namespace, else one whose namespace (or the pod's) is not
// written (kubectl's context then puts both in the same one).
func (c *ConfigMaps) lookup(name, ns string) *configMap {
	if c == nil {
		return nil
	}
	var loose *configMap
	for _, m := range c.maps {
		if m.name != name {
			continue
		}
		if m.namespace == ns {
			return m
		}
		if loose == nil && (m.namespace == "" || ns == "") {
			loose = m
		}
	}
	return loose
}

// join returns the ConfigMaps of a and b together.
func (c *ConfigMaps) join(b *ConfigMaps) *ConfigMaps {
	if b == nil || len(b.maps) == 0 {
		return c
	}
	out := &ConfigMaps{maps: append(append([]*configMap{}, c.maps...), b.maps...)}
	return out
}

// volume is a pod volume that projects a ConfigMap.
type volume struct {
	configMap string
	// items maps a file path in the volume to its key, when the volume
	// lists items (then only those keys are projected).
	items map[string]string
}

// configMapVolumes reads a pod spec's volumes that are ConfigMaps
// (core/v1 Volume.configMap: ConfigMapVolumeSource{name, items[{key, path}]}).
func configMapVolumes(spec *yaml.Node) map[string]volume {
	list := yamlsrc.Get(spec, "volumes")
	if list == nil || list.Kind != yaml.SequenceNode {
		return nil
	}
	out := map[string]volume{}
	for _, item := range list.Content {
		name, ok := yamlsrc.Str(yamlsrc.Get(item, "name"))
		cm := yamlsrc.Get(item, "configMap")
		cmName, ok2 := yamlsrc.Str(yamlsrc.Get(cm, "name"))
		if !ok || !ok2 || isPlaceholder(cmName) {
			continue
		}
		v := volume{configMap: cmName}
		if items := yamlsrc.Get(cm, "items"); items != nil && items.Kind == yaml.SequenceNode {
			v.items = map[string]string{}
			for _, it := range items.Content {
				key, ok1 := yamlsrc.Str(yamlsrc.Get(it, "key"))
				p, ok2 := yamlsrc.Str(yamlsrc.Get(it, "path"))
				if ok1 && ok2 {
					v.items[path.Clean(p)] = key
				}
			}
		}
		out[name] = v
	}
	return out
}

// mountedKey finds which ConfigMap key the container sees at file: the
// volumeMount whose mountPath holds it (the longest, as the kubelet nests
// mounts), a subPath mount of one file, a volume's items. ok is false when
// no ConfigMap volume is mounted there.
func mountedKey(c *yaml.Node, vols map[string]volume, file string) (v volume, key, mount string, ok bool) {
	mounts := yamlsrc.Get(c, "volumeMounts")
	if len(vols) == 0 || mounts == nil || mounts.Kind != yaml.SequenceNode {
		return volume{}, "", "", false
	}
	best := -1
	for _, m := range mounts.Content {
		name, ok1 := yamlsrc.Str(yamlsrc.Get(m, "name"))
		mp, ok2 := yamlsrc.Str(yamlsrc.Get(m, "mountPath"))
		vol, isCM := vols[name]
		if !ok1 || !ok2 || !isCM || !path.IsAbs(mp) {
			continue
		}
		mp = path.Clean(mp)
		sub, _ := yamlsrc.Str(yamlsrc.Get(m, "subPath"))
		var rel string
		switch {
		case sub != "" && file == mp:
			rel = path.Clean(sub) // one file of the volume mounted at mountPath
		case sub == "" && strings.HasPrefix(file, strings.TrimSuffix(mp, "/")+"/"):
			rel = strings.TrimPrefix(file, strings.TrimSuffix(mp, "/")+"/")
		default:
			continue
		}
		if len(mp) <= best {
			continue
		}
		k := rel
		if vol.items != nil {
			if k, ok = vol.items[rel]; !ok {
				continue // not projected: the volume does not hold that file
			}
		} else if strings.Contains(rel, "/") {
			continue // without items, a ConfigMap volume is flat
		}
		best, v, key, mount = len(mp), vol, k, mp
	}
	return v, key, mount, best >= 0
}

// scriptResolver returns the shell.Source.Scripts of a container: a path
// the container runs resolves through its ConfigMap mounts to the key of a
// ConfigMap of the manifests, parsed with positions in that ConfigMap's
// file. A ConfigMap the manifests do not define is somewhere kvlint cannot
// see, and the script is left unread without a word; one that is defined
// but lacks the key is an error at the path.
func (p *parser) scriptResolver(c *yaml.Node, pd *pod, e *env) func(deploy.Value) (shell.Source, bool) {
	if len(pd.volumes) == 0 {
		return nil
	}
	workDir, _ := yamlsrc.Str(yamlsrc.Get(c, "workingDir"))
	var resolve func(file deploy.Value) (shell.Source, bool)
	resolve = func(file deploy.Value) (shell.Source, bool) {
		if !file.Known || file.Raw == "" {
			return shell.Source{}, false
		}
		f := file.Raw
		if !path.IsAbs(f) {
			if workDir == "" || !path.IsAbs(workDir) {
				return shell.Source{}, false // relative to a directory the image decides
			}
			f = path.Join(workDir, f)
		}
		f = path.Clean(f)
		vol, key, mount, ok := mountedKey(c, pd.volumes, f)
		if !ok {
			return shell.Source{}, false
		}
		cm := p.configMaps().lookup(vol.configMap, pd.namespace)
		if cm == nil {
			return shell.Source{}, false
		}
		val := yamlsrc.Get(cm.data, key)
		if val == nil || val.Kind != yaml.ScalarNode {
			p.errs = append(p.errs, diag.Errorf(file.Span,
				"%s is not in the container: ConfigMap %q, mounted at %s, has no data key %q", file.Raw, cm.name, mount, key))
			return shell.Source{}, false
		}
		text, _ := cm.src.Scalar(val)
		return shell.Source{
			File:    cm.src.File,
			Text:    []byte(text.S),
			Map:     shell.Mapper(cm.src.Mapper(text)),
			Env:     e.shellEnv(),
			Scripts: resolve,
		}, true
	}
	return resolve
}

// configMaps are the ConfigMaps this parse can see: those of its own
// stream and those the caller collected from other files.
func (p *parser) configMaps() *ConfigMaps {
	if p.allMaps == nil {
		p.allMaps = p.ownMaps.join(p.extMaps)
	}
	return p.allMaps
}
