package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/capacity"
	"github.com/kvlint/kvlint/verify"
)

// VerifyText writes `kvlint verify` for people: how each deployment was scaled into the
// runtime, then one row per finding with its verdict, and the evidence under it.
func VerifyText(w io.Writer, res *analysis.Result, rep *verify.Report) error {
	for _, e := range res.Errors {
		fmt.Fprintf(w, "%s: error: %s\n", position(e.Span), e.Message)
	}
	for _, d := range rep.Deployments {
		writeScaling(w, d)
	}
	counts := map[verify.Verdict]int{}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i, f := range res.Findings {
		if i >= len(rep.Findings) || rep.Findings[i].Verdict == "" {
			continue
		}
		v := rep.Findings[i]
		if len(counts) == 0 {
			fmt.Fprintln(tw, "VERDICT\tRULE\tSEVERITY\tLOCATION\tSERVER")
		}
		counts[v.Verdict]++
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", verdictText(v.Verdict), f.Rule, f.Severity, position(f.Span), serverName(res, f.Server))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(counts) > 0 {
		fmt.Fprintln(w)
	}
	for i, f := range res.Findings {
		if i >= len(rep.Findings) || rep.Findings[i].Verdict == "" {
			continue
		}
		v := rep.Findings[i]
		fmt.Fprintf(w, "%s at %s, %s:\n", f.Rule, position(f.Span), verdictText(v.Verdict))
		for _, line := range wrapWords(v.Evidence.Summary, 96) {
			fmt.Fprintf(w, "    %s\n", line)
		}
	}
	var parts []string
	for _, v := range []verify.Verdict{verify.Confirmed, verify.NotConfirmed, verify.Inconclusive, verify.NotApplicable} {
		if n := counts[v]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, verdictText(v)))
		}
	}
	line := summary(res)
	if len(parts) > 0 {
		line += "; verified (seed " + fmt.Sprint(rep.Seed) + "): " + strings.Join(parts, ", ")
	}
	_, err := fmt.Fprintln(w, line)
	return err
}

// verdictText is the verdict as a table shows it.
func verdictText(v verify.Verdict) string {
	switch v {
	case verify.NotConfirmed:
		return "not confirmed"
	case verify.NotApplicable:
		return "not applicable"
	}
	return string(v)
}

// writeScaling says how a deployment was scaled down, so that every number in the
// evidence can be read back into production terms.
func writeScaling(w io.Writer, d verify.DeploymentReport) {
	sc := d.Scaling
	fmt.Fprintf(w, "deployment %s (%s, %s-tenant): run at 1/%d scale, context %s → %s tokens\n",
		d.Name, d.Mode, d.Tenancy, sc.Factor, capacity.Thousands(sc.ContextTokens), capacity.Thousands(int64(sc.ScaledContext)))
	for _, sw := range sc.Workers {
		pool := capacity.Thousands(sw.PoolTokens)
		if !sw.PoolExact {
			pool = "≤" + pool
		}
		running := "auto"
		if sw.MaxRunningRequests > 0 {
			running = fmt.Sprint(sw.MaxRunningRequests)
		}
		fmt.Fprintf(w, "  %s (%s): %d× pool %s → %s tokens, page %d → %d, max running %s\n",
			sw.Server, sw.Role, sw.Count, pool, capacity.Thousands(int64(sw.ScaledPoolTokens)), sw.PageSize, sw.ScaledPageSize, running)
	}
	cache := "on"
	if !sc.PrefixCache {
		cache = "off"
	}
	fmt.Fprintf(w, "  concurrency %d (%s), router %s, prefix cache %s, %s\n", sc.Concurrency, sc.ConcurrencySource, sc.Router, cache, sc.Isolation)
	wl := d.Workload
	where := string(wl.Source)
	if wl.Where != "" {
		where += " at " + wl.Where
	}
	fmt.Fprintf(w, "  workload (%s): %d concurrent, prompts %s median / %s max, answers %s / %s tokens, %d tenants\n",
		where, wl.Concurrency, capacity.Thousands(int64(wl.Prompt.Median)), capacity.Thousands(int64(wl.Prompt.Max)),
		capacity.Thousands(int64(wl.Output.Median)), capacity.Thousands(int64(wl.Output.Max)), wl.Tenants)
	er := d.EngineRelease
	paths := "no known misdelivery path"
	if len(er.Paths) > 0 {
		var names []string
		for _, p := range er.Paths {
			names = append(names, string(p.Mechanism))
		}
		paths = "engine paths " + strings.Join(names, ", ")
	}
	if len(er.Inferred) > 0 {
		var names []string
		for _, m := range er.Inferred {
			names = append(names, string(m))
		}
		paths += " (inferred release boundary: " + strings.Join(names, ", ") + ")"
	}
	fmt.Fprintf(w, "  engine: SGLang %s (%s): %s\n", er.Judged, er.Source, paths)
	for _, r := range d.Runs {
		kind := string(r.Behaviour)
		if r.Hypothesis != nil {
			kind += " " + *r.Hypothesis
		}
		seeds := "seeds"
		if len(r.Seeds) == 1 {
			seeds = "seed"
		}
		fmt.Fprintf(w, "  run %s (%s, %d %s): %d requests, peak %d running, %s tokens, %d cross-tenant responses\n",
			r.Name, kind, len(r.Seeds), seeds, r.Requests, r.PeakRunning, capacity.Thousands(r.SimulatedTokens), r.LeakingRequests)
	}
	for _, n := range sc.Notes {
		for i, line := range wrapWords(n, 94) {
			if i == 0 {
				fmt.Fprintf(w, "  note: %s\n", line)
			} else {
				fmt.Fprintf(w, "        %s\n", line)
			}
		}
	}
	fmt.Fprintln(w)
}

// wrapWords breaks text into lines of at most width bytes at spaces.
func wrapWords(text string, width int) []string {
	var lines []string
	var cur strings.Builder
	for _, word := range strings.Fields(text) {
		if cur.Len() > 0 && cur.Len()+1+len(word) > width {
			lines = append(lines, cur.String())
			cur.Reset()
		}
		if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(word)
	}
	if cur.Len() > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}

// VerifyJSON writes `kvlint verify --format json`: check's JSON document with "verdict" and
// "evidence" added to each finding and a "verification" member holding the deployments as
// the runtime ran them. Nothing of check's document changes: the fields are additive.
func VerifyJSON(w io.Writer, res *analysis.Result, rep *verify.Report) error {
	var doc bytes.Buffer
	if err := CheckJSON(&doc, res); err != nil {
		return err
	}
	members, err := objectMembers(doc.Bytes())
	if err != nil {
		return fmt.Errorf("report: check's JSON: %w", err)
	}
	// The findings member lists the unsuppressed findings in order.
	var verdicts []verify.FindingVerdict
	for i, f := range res.Findings {
		if f.Suppression == nil {
			var v verify.FindingVerdict
			if i < len(rep.Findings) {
				v = rep.Findings[i]
			}
			verdicts = append(verdicts, v)
		}
	}
	var out bytes.Buffer
	out.WriteByte('{')
	for k, m := range members {
		if k > 0 {
			out.WriteByte(',')
		}
		key, _ := json.Marshal(m.key)
		out.Write(key)
		out.WriteByte(':')
		if m.key != "findings" {
			out.Write(m.value)
			continue
		}
		var findings []json.RawMessage
		if err := json.Unmarshal(m.value, &findings); err != nil {
			return fmt.Errorf("report: check's findings: %w", err)
		}
		if len(findings) != len(verdicts) {
			return fmt.Errorf("report: %d findings in check's JSON, %d verdicts", len(findings), len(verdicts))
		}
		out.WriteByte('[')
		for i, f := range findings {
			if i > 0 {
				out.WriteByte(',')
			}
			if err := withVerdict(&out, f, verdicts[i]); err != nil {
				return err
			}
		}
		out.WriteByte(']')
	}
	verification, err := json.Marshal(rep)
	if err != nil {
		return err
	}
	out.WriteString(`,"verification":`)
	out.Write(verification)
	out.WriteByte('}')
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, out.Bytes(), "", "  "); err != nil {
		return err
	}
	pretty.WriteByte('\n')
	_, err = w.Write(pretty.Bytes())
	return err
}

// withVerdict writes a finding object with "verdict" and "evidence" appended.
func withVerdict(out *bytes.Buffer, finding json.RawMessage, v verify.FindingVerdict) error {
	body := bytes.TrimSpace(finding)
	if len(body) < 2 || body[0] != '{' || body[len(body)-1] != '}' {
		return fmt.Errorf("report: a finding is not a JSON object: %.40s", body)
	}
	verdict, err := json.Marshal(v.Verdict)
	if err != nil {
		return err
	}
	evidence, err := json.Marshal(v.Evidence)
	if err != nil {
		return err
	}
	out.Write(body[:len(body)-1])
	if len(bytes.TrimSpace(body[1:len(body)-1])) > 0 {
		out.WriteByte(',')
	}
	out.WriteString(`"verdict":`)
	out.Write(verdict)
	out.WriteString(`,"evidence":`)
	out.Write(evidence)
	out.WriteByte('}')
	return nil
}

type member struct {
	key   string
	value json.RawMessage
}

// objectMembers splits a JSON object into its members, in order.
func objectMembers(data []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object")
	}
	var out []member
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := t.(string)
		if !ok {
			return nil, fmt.Errorf("a member name is not a string")
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, member{key, v})
	}
	return out, nil
}

// VerifyProperties are the SARIF result properties of each finding: "verdict" and
// "evidence", nil for a finding that was not verified.
func VerifyProperties(rep *verify.Report) []map[string]any {
	out := make([]map[string]any, len(rep.Findings))
	for i, v := range rep.Findings {
		if v.Verdict != "" {
			out[i] = map[string]any{"verdict": v.Verdict, "evidence": v.Evidence}
		}
	}
	return out
}
