package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/deploy"
)

// Sizing counts the servers that hold a KV pool (SGLang and vLLM; a router
// holds none) by what kvlint knows of it: what `kvlint capacity` sums up.
// Servers = Sized + FailsAtStartup + Unsized.
type Sizing struct {
	Servers int `json:"servers"`
	// Sized servers have their pool computed.
	Sized int `json:"sized"`
	// FailsAtStartup servers stop at startup under their configuration
	// (the estimate's startup_error): every input was known.
	FailsAtStartup int `json:"fails_at_startup"`
	// Unsized servers lack an input; Bounded of them have an upper bound
	// on the pool all the same (an explicit cap, or the GPU's memory).
	Unsized int `json:"unsized"`
	Bounded int `json:"bounded"`
	// Missing counts the unsized servers by each input they lack ("gpu",
	// "model", "weights", ...).
	Missing map[string]int `json:"missing"`
}

// SizingOf counts the servers of a run.
func SizingOf(res *analysis.Result) Sizing {
	out := Sizing{Missing: map[string]int{}}
	for i, s := range res.Servers {
		if s.Engine != deploy.EngineSGLang && s.Engine != deploy.EngineVLLM {
			continue
		}
		e := res.Estimates[i]
		out.Servers++
		switch {
		case e.PoolTokens != nil:
			out.Sized++
		case e.StartupError != "":
			out.FailsAtStartup++
		default:
			out.Unsized++
			if e.PoolUpperBound != nil {
				out.Bounded++
			}
			for _, m := range e.Missing {
				out.Missing[m]++
			}
		}
	}
	return out
}

// SizingText writes the counts in one line:
// "sizing: 5 servers with a KV pool: 3 sized, 2 unsized (1 bounded); missing: gpu 2, model 1".
func SizingText(w io.Writer, z Sizing) error {
	line := fmt.Sprintf("sizing: %s with a KV pool: %d sized", plural(z.Servers, "server"), z.Sized)
	if z.FailsAtStartup > 0 {
		line += fmt.Sprintf(", %d %s at startup", z.FailsAtStartup, verbFor(z.FailsAtStartup, "fails", "fail"))
	}
	line += fmt.Sprintf(", %d unsized", z.Unsized)
	if z.Bounded > 0 {
		line += fmt.Sprintf(" (%d bounded)", z.Bounded)
	}
	if len(z.Missing) > 0 {
		keys := make([]string, 0, len(z.Missing))
		for k := range z.Missing {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%s %d", k, z.Missing[k])
		}
		line += "; missing: " + strings.Join(parts, ", ")
	}
	_, err := fmt.Fprintln(w, line)
	return err
}

func verbFor(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
