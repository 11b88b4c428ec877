package report_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"golang.org/x/net/html"

	"github.com/kvlint/kvlint/analysis"
	"github.com/kvlint/kvlint/check"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/report"
	"github.com/kvlint/kvlint/rules"
	"github.com/kvlint/kvlint/verify"
)

var testEngine = sync.OnceValues(func() (*rules.Engine, error) { return rules.New(context.Background()) })

func checked(t *testing.T, paths ...string) *analysis.Result {
	t.Helper()
	e, err := testEngine()
	if err != nil {
		t.Fatal(err)
	}
	res, err := check.Run(context.Background(), e, check.Options{Paths: paths})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// page renders the run and parses it as a browser would.
func page(t *testing.T, res *analysis.Result, rep *verify.Report) (string, *html.Node) {
	t.Helper()
	var out bytes.Buffer
	if err := report.CheckHTML(&out, res, rep); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(out.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), doc
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func hasClass(n *html.Node, class string) bool {
	v, _ := attr(n, "class")
	for _, c := range strings.Fields(v) {
		if c == class {
			return true
		}
	}
	return false
}

// all lists the elements under n (n included) that match.
func all(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && match(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func byClass(class string) func(*html.Node) bool {
	return func(n *html.Node) bool { return hasClass(n, class) }
}

func text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

func num(t *testing.T, n *html.Node, key string) float64 {
	t.Helper()
	v, ok := attr(n, key)
	if !ok {
		t.Fatalf("<%s> has no %s", n.Data, key)
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		t.Fatalf("<%s %s=%q>: %v", n.Data, key, v, err)
	}
	return f
}

// section is the deployment's section of the page.
func section(t *testing.T, doc *html.Node, name string) *html.Node {
	t.Helper()
	for _, s := range all(doc, byClass("deployment")) {
		if v, _ := attr(s, "data-name"); v == name {
			return s
		}
	}
	t.Fatalf("no section for deployment %q", name)
	return nil
}

// server is the server's block in a section.
func server(t *testing.T, sec *html.Node, name string) *html.Node {
	t.Helper()
	for _, s := range all(sec, byClass("server")) {
		if v, _ := attr(s, "data-server"); v == name {
			return s
		}
	}
	t.Fatalf("no block for server %q", name)
	return nil
}

// segments are a server's memory bar parts, by kind, with the bar's width
// they add up to.
func segments(t *testing.T, srv *html.Node) (map[string]float64, float64) {
	t.Helper()
	bars := all(srv, byClass("membar"))
	if len(bars) != 1 {
		t.Fatalf("%d memory bars, want 1", len(bars))
	}
	kinds := map[string]float64{}
	sum := 0.0
	for _, r := range all(bars[0], byClass("seg")) {
		k, _ := attr(r, "data-kind")
		w := num(t, r, "width")
		kinds[k] += w
		sum += w
	}
	return kinds, num(t, bars[0], "width")
}

func TestHTMLDeploymentsServersAndBars(t *testing.T) {
	res := checked(t, "../examples/incident", "../examples/scripts/Dockerfile")
	_, doc := page(t, res, nil)
	if got, want := len(all(doc, byClass("deployment"))), len(res.Deployments); got != want {
		t.Fatalf("%d deployment sections, want %d", got, want)
	}
	for _, d := range res.Deployments {
		sec := section(t, doc, d.Name)
		if len(all(sec, byClass("topology"))) != 1 {
			t.Errorf("deployment %s: no topology", d.Name)
		}
		nodes := all(sec, byClass("node"))
		if len(nodes) != len(d.Servers) {
			t.Errorf("deployment %s: %d topology nodes, want %d", d.Name, len(nodes), len(d.Servers))
		}
		for _, s := range d.Servers {
			srv := server(t, sec, s.Name)
			bars := all(srv, byClass("membar"))
			if s.Role == deploy.RoleRouter {
				if len(bars) != 0 {
					t.Errorf("router %s has a memory bar", s.Name)
				}
				continue
			}
			if len(bars) != 1 {
				t.Errorf("server %s: %d memory bars, want 1", s.Name, len(bars))
			}
		}
	}

	// The incident's decode server: --max-total-tokens 65536 caps a pool
	// the budget would make far larger, and --max-running-requests × the
	// context is beyond the GPU's memory.
	sec := section(t, doc, "llama70b")
	dec := server(t, sec, "llama70b-decode/leader")
	kinds, width := segments(t, dec)
	for _, k := range []string{"weights", "kv", "unused", "reserve"} {
		if kinds[k] <= 0 {
			t.Errorf("decode bar: no %s segment (%v)", k, kinds)
		}
	}
	if kinds["unknown"] != 0 {
		t.Errorf("decode bar: an unknown segment where everything is known: %v", kinds)
	}
	if sum := kinds["weights"] + kinds["kv"] + kinds["unused"] + kinds["reserve"]; sum < width-1 || sum > width+1 {
		t.Errorf("decode segments add up to %v, the bar is %v", sum, width)
	}
	if kinds["kv"] >= kinds["unused"] {
		t.Errorf("a 65,536-token pool drawn at %v, larger than the budget it leaves (%v)", kinds["kv"], kinds["unused"])
	}
	marks := all(dec, byClass("demand"))
	if len(marks) != 1 {
		t.Fatalf("decode: %d demand markers, want 1", len(marks))
	}
	if hasClass(marks[0], "fits") || num(t, marks[0], "x1") != width {
		t.Errorf("decode demand: want a marker at the bar's end, not fitting; got %v", marks[0].Attr)
	}
	if !strings.Contains(text(dec), "8,388,608 tokens") {
		t.Errorf("decode: the demand (131,072 × 64) is not named: %q", text(dec))
	}

	// The prefill server's demand fits its pool: the marker sits inside the
	// KV segment.
	pre := server(t, sec, "llama70b-prefill/leader")
	kinds, _ = segments(t, pre)
	m := all(pre, byClass("demand"))
	if len(m) != 1 || !hasClass(m[0], "fits") {
		t.Fatalf("prefill: want one fitting demand marker")
	}
	if x := num(t, m[0], "x1"); x <= kinds["weights"] || x >= kinds["weights"]+kinds["kv"] {
		t.Errorf("prefill demand at %v, outside the pool [%v, %v]", x, kinds["weights"], kinds["weights"]+kinds["kv"])
	}

	// The Dockerfile names no GPU: the bar is unknown whole, no marker.
	var df *deploy.Server
	for _, s := range res.Servers {
		if filepath.Base(s.Span.File) == "Dockerfile" {
			df = s
		}
	}
	if df == nil {
		t.Fatal("no server from the Dockerfile")
	}
	srv := server(t, section(t, doc, deploymentOf(res, df)), df.Name)
	kinds, width = segments(t, srv)
	if kinds["unknown"] != width || len(kinds) != 1 {
		t.Errorf("Dockerfile server without a GPU: segments %v, want one unknown of %v", kinds, width)
	}
	if len(all(srv, byClass("demand"))) != 0 || !strings.Contains(text(srv), "not drawn: the GPU's memory is unknown") {
		t.Errorf("Dockerfile server: want no marker and the reason: %q", text(srv))
	}

	// The findings are in their deployment, with their excerpt.
	var rules []string
	for _, f := range all(sec, byClass("finding")) {
		r, _ := attr(f, "data-rule")
		rules = append(rules, r)
		if len(all(f, func(n *html.Node) bool { return n.Data == "mark" })) != 1 {
			t.Errorf("finding %s: no marked excerpt", r)
		}
	}
	if strings.Join(rules, " ") != "KV101 KV104 KV301" {
		t.Errorf("incident findings %v, want KV101 KV104 KV301", rules)
	}
	// Without a verification the page says so rather than leave a gap.
	if len(all(sec, byClass("verify-absent"))) != 1 || len(all(sec, byClass("cdf"))) != 0 {
		t.Errorf("no verification: want the note and no CDF")
	}
}

func deploymentOf(res *analysis.Result, s *deploy.Server) string {
	for _, d := range res.Deployments {
		for _, m := range d.Servers {
			if m == s {
				return d.Name
			}
		}
	}
	return ""
}

func TestHTMLVerificationDrawsTheProbe(t *testing.T) {
	res := checked(t, "../examples/incident")
	rep, err := verify.Run(context.Background(), res, verify.Options{Seed: 1, Samples: 60})
	if err != nil {
		t.Fatal(err)
	}
	_, doc := page(t, res, rep)
	sec := section(t, doc, "llama70b")
	cdfs := all(sec, byClass("cdf"))
	if len(cdfs) != 1 {
		t.Fatalf("%d CDF plots, want the KV301 probe's", len(cdfs))
	}
	arms := map[string]int{}
	for _, p := range all(cdfs[0], func(n *html.Node) bool { return n.Data == "polyline" }) {
		class, _ := attr(p, "class")
		pts, _ := attr(p, "points")
		arms[class] = len(strings.Fields(pts))
	}
	for _, a := range []string{"arm-hit-cross", "arm-miss"} {
		// A step curve has two points a sample.
		if arms[a] < 2*60 {
			t.Errorf("%s: %d points, want a step per sample (%v)", a, arms[a], arms)
		}
	}
	// The curves rise: every point's y is at or above the previous one's
	// (SVG y grows downward).
	for _, p := range all(cdfs[0], func(n *html.Node) bool { return n.Data == "polyline" }) {
		prevY := 1e9
		pts, _ := attr(p, "points")
		for _, xy := range strings.Fields(pts) {
			_, ys, _ := strings.Cut(xy, ",")
			y, err := strconv.ParseFloat(ys, 64)
			if err != nil {
				t.Fatal(err)
			}
			if y > prevY {
				t.Fatalf("a CDF goes down at %s", xy)
			}
			prevY = y
		}
	}
	runs := all(sec, byClass("runs"))
	if len(runs) != 1 || !strings.Contains(text(runs[0]), "declared-load") {
		t.Errorf("no runs table with the declared load")
	}
	if c := all(sec, byClass("cross-tenant")); len(c) != 1 || !strings.Contains(text(c[0]), "pages of the victim's KV") {
		t.Errorf("no cross-tenant count")
	}
	if p := all(sec, byClass("probe-summary")); len(p) != 1 || !strings.Contains(text(p[0]), "HIT-cross against MISS: p = ") {
		t.Errorf("no isolation probe summary")
	}
	if strings.Contains(text(sec), "no verification in this report") {
		t.Errorf("a verified page says there is no verification")
	}
}

func TestHTMLEscapesHostileNames(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, `<script>alert(1)<!--x"'.sh`)
	script := "#!/bin/sh\npython -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --tp 2 --served-model-name '<img src=x onerror=alert(2)>'\n"
	if err := os.WriteFile(name, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	res := checked(t, dir)
	if len(res.Servers) != 1 || len(res.Findings) == 0 {
		t.Fatalf("want the script's server and a finding (--tp), got %d servers, %d findings", len(res.Servers), len(res.Findings))
	}
	out, doc := page(t, res, nil)
	if n := all(doc, func(n *html.Node) bool { return n.Data == "script" || n.Data == "img" }); len(n) != 0 {
		t.Fatalf("the input made %d <script>/<img> elements", len(n))
	}
	if strings.Contains(out, "<script") || strings.Contains(out, "<img") {
		t.Errorf("an unescaped tag from the input is in the page")
	}
	// The name is there, as text.
	if !strings.Contains(text(doc), `<script>alert(1)<!--x"'.sh`) {
		t.Errorf("the file name is not shown as text")
	}
	for _, n := range all(doc, func(*html.Node) bool { return true }) {
		for _, a := range n.Attr {
			if strings.HasPrefix(a.Key, "on") {
				t.Errorf("<%s> has an event handler %s=%q", n.Data, a.Key, a.Val)
			}
		}
	}
}

// externalURL is a URL the page would fetch or lead to: anything but a
// fragment of the page itself.
var externalURL = regexp.MustCompile(`(?i)url\(\s*['"]?[^#'"\s)]|@import`)

func TestHTMLFetchesNothing(t *testing.T) {
	res := checked(t, "../examples")
	out, doc := page(t, res, nil)
	for _, n := range all(doc, func(*html.Node) bool { return true }) {
		switch n.Data {
		case "script", "link", "iframe", "object", "embed", "img", "image", "use", "base", "meta":
			if n.Data == "meta" {
				if _, refresh := attr(n, "http-equiv"); !refresh {
					continue
				}
			}
			t.Errorf("the page has a <%s> element", n.Data)
		}
		for _, a := range n.Attr {
			switch strings.ToLower(a.Key) {
			case "src", "href", "xlink:href", "action", "srcset", "poster":
				if !strings.HasPrefix(a.Val, "#") {
					t.Errorf("<%s %s=%q> leaves the page", n.Data, a.Key, a.Val)
				}
			}
		}
	}
	if m := externalURL.FindString(out); m != "" {
		t.Errorf("the styles load something: %q", m)
	}
}

func TestHTMLShowsFixes(t *testing.T) {
	res := checked(t, "../examples/incident")
	at := -1
	for i, f := range res.Findings {
		if f.Rule == "KV101" {
			at = i
		}
	}
	if at < 0 {
		t.Fatal("no KV101 on the incident")
	}
	f := &res.Findings[at]
	f.Fixes = []diag.Fix{
		{
			Description:  "--max-total-tokens 131072 <b>",
			Replacements: []diag.Replacement{{Span: f.Span, NewText: "131072"}},
			Result:       []diag.Quantity{{Name: "pool", Value: 131072, Unit: "tokens"}, {Name: "needs", Value: 16 << 30, Unit: "bytes"}},
		},
		{Description: "--context-length 65530", Unwritable: "the value is a Helm template expression"},
	}
	_, doc := page(t, res, nil)
	var kv101 *html.Node
	for _, f := range all(section(t, doc, "llama70b"), byClass("finding")) {
		if r, _ := attr(f, "data-rule"); r == "KV101" {
			kv101 = f
		}
	}
	if kv101 == nil {
		t.Fatal("no KV101 on the page")
	}
	fixes := all(kv101, byClass("fix"))
	if len(fixes) != 2 {
		t.Fatalf("%d fixes shown, want 2", len(fixes))
	}
	first := text(fixes[0])
	for _, want := range []string{"--max-total-tokens 131072 <b>", "pool 131,072 tokens", "needs 16.0 GiB", `decode.yaml:32:18: "131072"`} {
		if !strings.Contains(first, want) {
			t.Errorf("first fix %q lacks %q", first, want)
		}
	}
	if !strings.Contains(text(fixes[1]), "not applied by kvlint fix: the value is a Helm template expression") {
		t.Errorf("second fix %q does not say why it is not applied", text(fixes[1]))
	}
	if len(all(doc, func(n *html.Node) bool { return n.Data == "b" })) != 0 {
		t.Errorf("a fix's text made an element")
	}
}
