package deploy

// Source is the format a server was found in, which decides how it groups
// with others: a pod in a cluster finds its peers by object name and
// namespace, a compose service by service name within its project, and a
// launch in a script or a Dockerfile by port on the same host. Its JSON form
// is the name ("kubernetes"), which the Rego input and the reports carry.
type Source string

const (
	SourceShell      Source = "shell"
	SourceDockerfile Source = "dockerfile"
	SourceCompose    Source = "compose"
	SourceKubernetes Source = "kubernetes"
	SourceHelm       Source = "helm"        // a chart's rendered manifests
	SourceHelmValues Source = "helm-values" // a values file of a chart kvlint knows
	SourceTerraform  Source = "terraform"   // a module's Kubernetes resources and releases
)

// InCluster reports a server that runs in a Kubernetes pod: found in a
// manifest, or in one rendered from a chart, a values file or a module. A
// source kvlint does not know is taken for one, as most are.
func (s Source) InCluster() bool {
	return s != SourceShell && s != SourceDockerfile && s != SourceCompose
}

// InCompose reports a server that is a service of a compose project: its
// peers are the services of the same file, reached by service name.
func (s Source) InCompose() bool { return s == SourceCompose }

// NamedByObject reports a server named after what runs it (a Kubernetes
// object, a compose service) rather than the file and line that launch it.
func (s Source) NamedByObject() bool { return s.InCluster() || s.InCompose() }
