package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/capacity"
	"github.com/kvlint/kvlint/deploy"
)

// CapacityText writes one table row per server, then, per server, how its pool
// was derived and what was assumed.
func CapacityText(w io.Writer, res *analysis.Result, derivations bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tROLE\tMODEL\tGPU\tTP/DP/PP\tKV DTYPE\tBYTES/TOKEN\tPOOL\tCONTEXT\tMAX REQUEST\tFULL-CONTEXT REQS\tDEPLOYMENT")
	of := deploymentOf(res)
	for i, s := range res.Servers {
		e := res.Estimates[i]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			position(s.Span)+" "+s.Name, s.Role, orUnknown(e.Model), gpu(e), parallelism(e), orUnknown(e.KVDtype),
			num(e.CellBytesPerToken), pool(e), num(e.ContextLength), num(e.MaxRequestTokens), num(e.FullContextRequests), orUnknown(of[s]))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for i, s := range res.Servers {
		e := res.Estimates[i]
		if !derivations && len(e.Assumptions) == 0 && len(e.Missing) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s %s:\n", position(s.Span), s.Name)
		if derivations {
			if ep := s.Entrypoint; ep != nil {
				fmt.Fprintf(w, "  %s\n", entrypointLine(ep, s.Image.Span))
			}
			for _, d := range e.Derivation {
				fmt.Fprintf(w, "  %s\n", d)
			}
		}
		for _, a := range e.Assumptions {
			fmt.Fprintf(w, "  assumed: %s\n", a)
		}
		for _, m := range e.Missing {
			fmt.Fprintf(w, "  unknown: %s\n", m)
		}
	}
	fmt.Fprintln(w)
	if err := SizingText(w, SizingOf(res)); err != nil {
		return err
	}
	for _, e := range res.Errors {
		fmt.Fprintf(w, "%s: error: %s\n", position(e.Span), e.Message)
	}
	return nil
}

// entrypointLine says which words of the command line the image supplied,
// and the image-table row (a Dockerfile at a commit, or a .kvlint.yaml
// line) that says so.
func entrypointLine(ep *deploy.ImageEntrypoint, image deploy.Span) string {
	s := fmt.Sprintf("entrypoint: %s (image %s at %s, row %s", strings.Join(ep.Words, " "), ep.Image, position(image), ep.Source)
	if ep.Release != "" {
		s += ", release " + ep.Release
	}
	if ep.Floating {
		s += ", a floating tag"
	}
	return s + ")"
}

// parallelism is TP/DP/PP, or "-" for a server kvlint does not size (a router).
func parallelism(e capacity.Estimate) string {
	if e.TP == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d/%d", e.TP, e.DP, e.PP)
}

func gpu(e capacity.Estimate) string {
	if e.GPU == "" {
		return "?"
	}
	if e.GPUCount == 0 {
		return e.GPU + "×?"
	}
	return fmt.Sprintf("%s×%d", e.GPU, e.GPUCount)
}

// pool shows the estimate, or the bound an explicit --max-total-tokens sets
// when the estimate itself is unknown.
func pool(e capacity.Estimate) string {
	if e.PoolTokens != nil {
		return capacity.Thousands(*e.PoolTokens)
	}
	if e.PoolUpperBound != nil {
		return "≤" + capacity.Thousands(*e.PoolUpperBound)
	}
	return "?"
}

func num(p *int64) string {
	if p == nil {
		return "?"
	}
	return capacity.Thousands(*p)
}

func orUnknown(s string) string {
	if s == "" {
		return "?"
	}
	return s
}
