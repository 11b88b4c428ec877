package deploy

import (
	"math"
	"testing"
)

func TestTypedAccessors(t *testing.T) {
	if n, ok := TypedInt(-3).Int(); !ok || n != -3 {
		t.Errorf("Int: %d %v", n, ok)
	}
	if f, ok := TypedInt(4).Float(); !ok || f != 4 {
		t.Errorf("Float of an int: %g %v", f, ok)
	}
	if _, ok := TypedFloat(0.5).Int(); ok {
		t.Error("Int of a float: want none")
	}
	if b, ok := TypedBool(false).Bool(); !ok || b {
		t.Errorf("Bool: %v %v", b, ok)
	}
	if _, ok := TypedString("8").Int(); ok {
		t.Error("Int of a string: want none")
	}
	var zero Typed
	if !zero.IsNone() || zero.Kind() != KindNone || zero.String() != "" {
		t.Errorf("zero Typed: %s %q", zero.Kind(), zero.String())
	}
	if got := TypedFloat(math.Inf(1)).String(); got != "Infinity" {
		t.Errorf("inf renders %q", got)
	}
}

func TestTypedComposites(t *testing.T) {
	if l := TypedList(TypedInt(1), Typed{}); !l.IsNone() {
		t.Errorf("a list with an untyped item: %s, want none", l)
	}
	if l := TypedList(); l.Kind() != KindList || l.String() != "[]" {
		t.Errorf("empty list: %s %s", l.Kind(), l)
	}
	o := TypedObject(Member{"b", TypedInt(1)}, Member{"a", TypedNull()}, Member{"b", TypedString("x")})
	if got := o.String(); got != `{"b": "x", "a": null}` {
		t.Errorf("object %s: a repeated key keeps its place and takes the last value", got)
	}
	if v, ok := o.Field("a"); !ok || v.Kind() != KindNull {
		t.Errorf("Field a: %s %v", v.Kind(), ok)
	}
	if _, ok := o.Field("c"); ok {
		t.Error("Field c: want absent")
	}
	if m, ok := o.Object(); !ok || len(m) != 2 || m[0].Key != "b" {
		t.Errorf("Object: %v %v", m, ok)
	}
	if o := TypedObject(Member{"a", Typed{}}); !o.IsNone() {
		t.Error("an object with an untyped value: want none")
	}
}
