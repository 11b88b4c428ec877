package deploy

import (
	"fmt"
	"reflect"
	"testing"
)

// fullServer has a distinct value in every field Values covers.
func fullServer() *Server {
	n := 0
	val := func() Value {
		n++
		return Known(fmt.Sprint("v", n), Span{File: "f", Line: n, Col: 1})
	}
	return &Server{
		Args:        map[string]Value{"--tp-size": val(), "--context-length": val()},
		ArgLists:    map[string][][]Value{"--prefill": {{val(), val()}, {val()}}},
		Positionals: []Value{val()},
		Opaque:      []Value{val(), val()},
		Model:       val(), GPU: val(), GPUCount: val(), GPUSlice: val(), Replicas: val(), Nodes: val(), Image: val(),
	}
}

func TestValuesVisitsEveryValueOnce(t *testing.T) {
	s := fullServer()
	seen := map[string]int{}
	var fields []Field
	for f, v := range s.Values() {
		seen[v.Raw]++
		fields = append(fields, f)
		if got, ok := s.Lookup(f); !ok || got.Raw != v.Raw {
			t.Errorf("Lookup(%+v) = %q, %v; the iterator gave %q", f, got.Raw, ok, v.Raw)
		}
	}
	// 2 args + 3 list items + 1 positional + 2 opaque + 7 fields.
	if len(seen) != 15 {
		t.Errorf("visited %d distinct values, want 15: %v", len(seen), seen)
	}
	for raw, n := range seen {
		if n != 1 {
			t.Errorf("%s visited %d times", raw, n)
		}
	}
	// Deterministic: flags in sorted order, then the rest in field order.
	want := []Field{
		{Kind: FieldArg, Flag: "--context-length"}, {Kind: FieldArg, Flag: "--tp-size"},
		{Kind: FieldArgList, Flag: "--prefill"}, {Kind: FieldArgList, Flag: "--prefill", Item: 1},
		{Kind: FieldArgList, Flag: "--prefill", Index: 1},
		{Kind: FieldPositional}, {Kind: FieldOpaque}, {Kind: FieldOpaque, Index: 1},
		{Kind: FieldModel}, {Kind: FieldGPU}, {Kind: FieldGPUCount}, {Kind: FieldGPUSlice}, {Kind: FieldReplicas}, {Kind: FieldNodes}, {Kind: FieldImage},
	}
	if !reflect.DeepEqual(fields, want) {
		t.Errorf("fields\n got %+v\nwant %+v", fields, want)
	}
}

func TestValuesWritesThrough(t *testing.T) {
	s := fullServer()
	for _, v := range s.Values() {
		v.Known = false
	}
	for f, v := range s.Values() {
		if v.Known {
			t.Errorf("%+v still known after the loop set it unknown", f)
		}
	}
	if s.Args["--tp-size"].Known || s.ArgLists["--prefill"][1][0].Known || s.Image.Known {
		t.Error("a change through the iterator was lost")
	}
}

func TestValuesStopsWhenTheLoopBreaks(t *testing.T) {
	s := fullServer()
	n := 0
	for range s.Values() {
		n++
		if n == 3 {
			break
		}
	}
	if n != 3 {
		t.Errorf("ran %d times", n)
	}
}

func TestOriginAdd(t *testing.T) {
	a := At(StepTemplate, Span{File: "t.yaml", Line: 3, Col: 1})
	set := Step{Kind: StepSet, Text: "--set a=1"}
	var o Origin
	o = o.Add(a).Add(a).Add(At(StepInclude, Span{File: "t.yaml"})).Add(Step{Kind: StepSet}).Add(set).Add(set)
	if len(o) != 2 || o[0] != a || o[1] != set {
		t.Errorf("Add kept %+v, want the template step and the --set once each", o)
	}
	if got := o.Spans(); len(got) != 1 || got[0] != a.Span {
		t.Errorf("Spans %v, want only the file step", got)
	}
	if o.Inferred() {
		t.Error("inferred without an inferred step")
	}
	o[1].Inferred = true
	if !o.Inferred() {
		t.Error("an inferred step does not make the origin inferred")
	}
}
