package report

import (
	"fmt"

	"github.com/kvlint/kvlint/deploy"
)

// Topology layout, in SVG units: prefill servers on the left, routers in the
// middle, decode and other servers on the right, so a router's routes to
// both pools are short and the KV transfer runs from left to right.
const (
	topoNodeW   = 220.0
	topoNodeH   = 46.0
	topoRowH    = 62.0
	topoColGap  = 70.0
	topoMargin  = 16.0
	topoMaxRows = 200 // a deployment of more servers is drawn in part
)

type htmlTopology struct {
	Width, Height float64
	Nodes         []htmlNode
	Edges         []htmlEdge
	// Transfer is the KV cache hand-off from prefill to decode, drawn under
	// the nodes; nil unless the deployment has both sides.
	Transfer *htmlEdge
	Omitted  int // servers not drawn (beyond topoMaxRows in a column)
}

type htmlNode struct {
	X, Y, W, H float64
	Role       string
	Label, Sub string
}

type htmlEdge struct {
	X1, Y1, X2, Y2 float64
	Label          string
	LX, LY         float64
}

func topoColumn(r deploy.Role) int {
	switch r {
	case deploy.RolePrefill:
		return 0
	case deploy.RoleRouter:
		return 1
	}
	return 2
}

// topology draws a deployment's servers and the routes its routers name.
func topology(d *deploy.Deployment) htmlTopology {
	var t htmlTopology
	rows := [3]int{}
	at := map[*deploy.Server]int{} // index in t.Nodes
	used := [3]bool{}
	for _, s := range d.Servers {
		used[topoColumn(s.Role)] = true
	}
	// Columns without a server close up, so a lone server is not drawn in
	// the middle of an empty picture.
	colX := [3]float64{}
	x := topoMargin
	for c := range 3 {
		colX[c] = x
		if used[c] {
			x += topoNodeW + topoColGap
		}
	}
	t.Width = max(x-topoColGap+topoMargin, topoNodeW+2*topoMargin)
	for _, s := range d.Servers {
		c := topoColumn(s.Role)
		if rows[c] >= topoMaxRows {
			t.Omitted++
			continue
		}
		role := string(s.Role)
		if role == "" {
			role = "unknown role"
		}
		sub := role + " · " + string(s.Engine)
		if r := knownInt(s.Replicas); r != nil && *r != 1 {
			sub += fmt.Sprintf(" · ×%d replicas", *r)
		} else if s.Replicas.Span.Line > 0 && !s.Replicas.Known {
			sub += " · replicas unknown"
		}
		t.Nodes = append(t.Nodes, htmlNode{
			X: colX[c], Y: topoMargin + float64(rows[c])*topoRowH, W: topoNodeW, H: topoNodeH,
			Role: string(s.Role), Label: s.Name, Sub: sub,
		})
		at[s] = len(t.Nodes) - 1
		rows[c]++
	}
	most := max(rows[0], rows[1], rows[2], 1)
	t.Height = topoMargin*2 + float64(most-1)*topoRowH + topoNodeH
	for _, l := range d.Links {
		from, ok := at[l.Router]
		if !ok {
			continue
		}
		for _, s := range l.Servers {
			to, ok := at[s]
			if !ok {
				continue
			}
			e := connect(t.Nodes[from], t.Nodes[to])
			e.Label = string(l.Role)
			if e.Label == "" {
				e.Label = "worker"
			}
			t.Edges = append(t.Edges, e)
		}
	}
	if rows[0] > 0 && d.Mode == deploy.ModeDisaggregated && hasRole(d, deploy.RoleDecode) {
		y := t.Height + 12
		t.Transfer = &htmlEdge{
			X1: colX[0] + topoNodeW/2, Y1: y, X2: colX[2] + topoNodeW/2, Y2: y,
			Label: "KV cache transfer, prefill → decode", LX: (colX[0] + colX[2] + topoNodeW) / 2, LY: y - 5,
		}
		t.Height += 24
	}
	return t
}

// connect is an edge between the facing sides of two nodes.
func connect(a, b htmlNode) htmlEdge {
	e := htmlEdge{Y1: a.Y + a.H/2, Y2: b.Y + b.H/2}
	if b.X >= a.X {
		e.X1, e.X2 = a.X+a.W, b.X
	} else {
		e.X1, e.X2 = a.X, b.X+b.W
	}
	e.LX, e.LY = (e.X1+e.X2)/2, (e.Y1+e.Y2)/2-4
	return e
}

func hasRole(d *deploy.Deployment, r deploy.Role) bool {
	for _, s := range d.Servers {
		if s.Role == r {
			return true
		}
	}
	return false
}
