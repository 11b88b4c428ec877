package k8s

import (
	"gopkg.in/yaml.v3"

	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/parsers/yamlsrc"
)

// dynamoGPUs is the GPU count of a Dynamo service (v1alpha1
// spec.services.<name>.resources.limits.gpu), which the operator turns into
// the main container's nvidia.com/gpu limit.
func (p *parser) dynamoGPUs(path []step) deploy.Value {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].node.Kind != yaml.MappingNode {
			continue
		}
		if n := yamlsrc.Path(path[i].node, "resources", "limits", "gpu"); n != nil && n.Kind == yaml.ScalarNode {
			return p.scalar(n)
		}
	}
	return deploy.Value{}
}
