package helm

import (
	"fmt"
	"strings"
)

// Helm stops an include that calls itself after recursionMaxNums (1000)
// nested calls of one name (helm.sh/helm/v3 pkg/engine/engine.go,
// includeFun), and text/template stops a {{ template }} that calls itself
// at maxExecDepth (100000; text/template/exec.go). Both are errors kvlint
// reports; the include one nests its message a thousand times.
const (
	helmIncludeLimit    = 1000
	nestedReference     = "rendering template has a nested reference name: "
	errorCallingInclude = "error calling include: "
)

// condenseRecursion turns the thousand-fold message of an include that
// recurses without end into one sentence, kept at the outermost include
// (where the template first called it). Other messages pass unchanged.
func condenseRecursion(msg string) string {
	i := strings.LastIndex(msg, nestedReference)
	j := strings.Index(msg, errorCallingInclude)
	if i < 0 || j < 0 || j > i {
		return msg
	}
	name, _, _ := strings.Cut(msg[i+len(nestedReference):], ":")
	return msg[:j] + fmt.Sprintf("include %q calls itself more than %d times, Helm's limit: the template recurses without end",
		name, helmIncludeLimit)
}
