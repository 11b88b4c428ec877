package helm

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"text/template/parse"

	"helm.sh/helm/v3/pkg/chart"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/kvlint/kvlint/internal/worker"
)

// A chart's templates are input: a range over until, repeat in a loop, or
// includes that each include another several times build output of any
// size, and Helm's engine has no bound but its recursion limits. The worker
// process bounds the render's memory, but a worker that is stopped can
// only say which chart it was rendering. So the plain render runs a copy of
// the chart in which every list of nodes (a file, a define, the body of
// each range, if and with) checks a budget before each node it runs:
//
//	{{if lookup "kvlint.invalid/guard" "ID" "" ""}}{{end}}
//
// writes nothing and changes no control flow. lookup is the one function
// of Helm's engine that calls back into the program rendering the chart
// (pkg/engine/lookup_func.go, newLookupFunction, through the ClientProvider
// that engine.RenderWithClientProvider takes); every other lookup gets the
// empty answer Helm's zero Engine gives (pkg/engine/engine.go, initFunMap:
// "Provide a placeholder for the lookup function"). When the budget is
// spent the guard fails, and text/template stops the render with Helm's
// error text, "template: NAME:LINE:COL: executing ... error calling lookup:
// kvlint guard ID: ...", which names the guard: ID is the node about to run,
// at its place in the template as the chart holds it.
const guardAPI = "kvlint.invalid/guard"

// maxGuardSteps bounds the nodes one render runs: a real chart runs some
// thousands; a loop that runs more is not rendering a deployment.
const maxGuardSteps = 1 << 19

// defaultGuardHeap bounds how much the heap may grow during a render that
// runs in process (no worker, no memory limit to derive it from).
const defaultGuardHeap = 256 << 20

// guardErrRE finds the guard's message inside Helm's error text.
var guardErrRE = regexp.MustCompile(`kvlint guard (\d+): ([^\n]*)`)

// guard instruments a chart and keeps the budget its render spends.
type guard struct {
	nodes     []guardNode
	steps     int
	heapStart uint64
	heapMax   uint64 // growth allowed over heapStart
	sample    []metrics.Sample
}

// guardNode is the node a guard stands before: its template's engine name
// and its byte offset in the template's source.
type guardNode struct {
	tmpl string
	pos  int
}

func newGuard() *guard {
	g := &guard{heapMax: defaultGuardHeap, sample: []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}}
	if b := worker.MemBudget(); b > 0 {
		// One more doubling of what the heap holds at the limit must
		// still fit in the worker: a quarter leaves room for the value
		// that crossed it, its copy and the collector's garbage.
		g.heapMax = b / 4
	}
	g.heapStart = g.heap()
	return g
}

func (g *guard) heap() uint64 {
	metrics.Read(g.sample)
	if g.sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return g.sample[0].Value.Uint64()
}

// instrument returns a copy of chart c (and its subcharts) whose templates
// check the budget before each node. A template that does not parse is
// left as it is (the render reports it).
func (g *guard) instrument(c *chart.Chart) *chart.Chart {
	return rewriteTemplates(c, g.rewrite)
}

// rewrite parses one template and prints it back with guards, as the
// tracer prints its markers (Node.String parses to the same trees).
func (g *guard) rewrite(name, src string) (string, bool) {
	top, trees, ok := parseTemplate(name, src)
	if !ok {
		return "", false
	}
	var b strings.Builder
	if top.Root != nil {
		g.list(top.Root, name)
		b.WriteString(top.Root.String())
	}
	for _, n := range slices.Sorted(maps.Keys(trees)) {
		if d := trees[n]; n != name && d.Root != nil {
			g.list(d.Root, name)
			b.WriteString("{{define " + strconv.Quote(n) + "}}" + d.Root.String() + "{{end}}")
		}
	}
	return b.String(), true
}

// list puts a guard before every node of l that runs something, and
// recurses into the lists inside them.
func (g *guard) list(l *parse.ListNode, name string) {
	if l == nil {
		return
	}
	out := make([]parse.Node, 0, 2*len(l.Nodes))
	for _, n := range l.Nodes {
		switch x := n.(type) {
		case *parse.TextNode, *parse.CommentNode:
			out = append(out, n)
			continue
		case *parse.IfNode:
			g.list(x.List, name)
			g.list(x.ElseList, name)
		case *parse.RangeNode:
			g.list(x.List, name)
			g.list(x.ElseList, name)
		case *parse.WithNode:
			g.list(x.List, name)
			g.list(x.ElseList, name)
		case *parse.ListNode:
			g.list(x, name)
		}
		if gn, ok := g.node(len(g.nodes)); ok {
			g.nodes = append(g.nodes, guardNode{tmpl: name, pos: int(n.Position())})
			out = append(out, gn)
		}
		out = append(out, n)
	}
	l.Nodes = out
}

// node is the guard numbered id, parsed from its text.
func (g *guard) node(id int) (parse.Node, bool) {
	t := parse.New("guard")
	t.Mode = parse.SkipFuncCheck
	text := fmt.Sprintf(`{{if lookup %q %q "" ""}}{{end}}`, guardAPI, strconv.Itoa(id))
	if _, err := t.Parse(text, "", "", map[string]*parse.Tree{}); err != nil || t.Root == nil || len(t.Root.Nodes) != 1 {
		return nil, false
	}
	return t.Root.Nodes[0], true
}

// GetClientFor is the engine's lookup: a guard spends one step and checks
// the heap; any other lookup finds nothing, as with Helm's zero Engine.
func (g *guard) GetClientFor(apiVersion, kind string) (dynamic.NamespaceableResourceInterface, bool, error) {
	if apiVersion != guardAPI {
		return emptyCluster{}, false, nil
	}
	g.steps++
	if g.steps > maxGuardSteps || g.heap() > g.heapStart+g.heapMax {
		return nil, false, fmt.Errorf("kvlint guard %s: the chart's templates ran more than %d actions or took more than %d MiB of memory before this one, kvlint's limits: they build output without a useful end",
			kind, maxGuardSteps, g.heapMax>>20)
	}
	return emptyCluster{}, false, nil
}

// emptyCluster answers every lookup with nothing found, which Helm's
// lookup turns into the empty map a template gets from the zero Engine.
type emptyCluster struct {
	dynamic.NamespaceableResourceInterface
}

func (c emptyCluster) Namespace(string) dynamic.ResourceInterface { return c }

func (emptyCluster) Get(_ context.Context, name string, _ metav1.GetOptions, _ ...string) (*unstructured.Unstructured, error) {
	return nil, apierrors.NewNotFound(schema.GroupResource{}, name)
}

func (emptyCluster) List(context.Context, metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	return nil, apierrors.NewNotFound(schema.GroupResource{}, "")
}

// guardError places an error of a guard at the node it stood before, in
// the template as the chart holds it: Helm's own position is in the
// instrumented copy.
func (rr *rendering) guardError(g *guard, msg string) (string, string, string, bool) {
	m := guardErrRE.FindStringSubmatch(msg)
	if m == nil {
		return "", "", "", false
	}
	id, err := strconv.Atoi(m[1])
	if err != nil || id < 0 || id >= len(g.nodes) {
		return "", "", "", false
	}
	n := g.nodes[id]
	src, ok := templates(rr.l.chart)[n.tmpl]
	if !ok || n.pos < 0 || n.pos > len(src) {
		return "", "", "", false
	}
	line := strings.Count(src[:n.pos], "\n") + 1
	col := n.pos - (strings.LastIndexByte(src[:n.pos], '\n') + 1)
	return n.tmpl, strconv.Itoa(line), strconv.Itoa(col), true
}
