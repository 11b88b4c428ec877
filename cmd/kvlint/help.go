package main

import (
	"strings"

	"github.com/kvlint/kvlint/parsers"
)

// formatDescriptions say, for the help text, what each format kvlint
// reads is. TestHelpListsEveryFormat holds this map to parsers.Kinds(), so a
// new format cannot be left out of the help.
var formatDescriptions = map[parsers.Kind]string{
	parsers.KindDockerfile:  "Dockerfiles (ENTRYPOINT and CMD over the base image's)",
	parsers.KindWorkflow:    "GitHub Actions workflows (.github/workflows/*.yml run: steps)",
	parsers.KindSkyPilot:    "SkyPilot task YAML (run: with envs: and resources:)",
	parsers.KindCompose:     "Docker Compose files",
	parsers.KindHelmValues:  "Helm values files of a known chart, found without the chart",
	parsers.KindKubernetes:  "Kubernetes manifests and serving CRDs (KServe, RoleBasedGroup, LeaderWorkerSet, Dynamo, KubeRay, OME)",
	parsers.KindTerraform:   "Terraform modules (a directory of *.tf files, its *.tfvars and local module calls)",
	parsers.KindMakefile:    "Makefiles (Makefile, GNUmakefile, *.mk)",
	parsers.KindShell:       "shell scripts (*.sh, *.bash, Slurm *.sbatch, a shebang; docker/podman run included)",
	parsers.KindHelm:        "Helm charts (a directory with Chart.yaml, or a packaged .tgz), rendered with their values",
	parsers.KindUnsupported: "not analysed (a Helm template named without its chart, a Jinja template)",
}

// formatsHelp is the list of formats for a command's help, one per line.
func formatsHelp() string {
	var b strings.Builder
	for _, k := range parsers.Kinds() {
		b.WriteString("  ")
		b.WriteString(formatDescriptions[k])
		b.WriteString("\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}
