package rules

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/kvlint/kvlint/capacity"
	"github.com/kvlint/kvlint/deploy"
)

// The Rego input document (rules/INPUT.md has the same with examples):
//
//	{
//	  "settings": {
//	    "tenancy": "multi" | "single" | "",
//	    "expected_concurrency": 16 | null        // null: not declared
//	  },
//	  "servers": [{
//	    "index": 0,                              // position in the servers slice; findings name it
//	    "engine": "sglang" | "sglang-router" | "vllm" | "dynamo-frontend",
//	    "role": "colocated" | "prefill" | "decode" | "router" | "",
//	    "name": "decode-0",
//	    "file": "deploy/decode.yaml", "line": 42, // the launch command
//	    "args": {"--tp-size": {"value": "8", "known": true, "typed": 8}, ...},
//	                                             // typed: the engine's int, float, bool,
//	                                             // string, list or object; null when unknown
//	    "opaque_args": false,                    // argv had words that may hold more flags
//	    "opaque": ["$EXTRA_ARGS"],               // those words, as written
//	    "model": {"value": "...", "known": true}, // null when not written
//	    "gpu": {"value": "H100-80GB", "known": true},
//	    "replicas": 2 | null,                    // pods running this command, when known
//	    "flag_issues": [{"index": 0, "kind": "unknown", "flag": "--tp-sise",
//	                     "written": "--tp-sise", "message": "...", "suggestion": "--tp-size"}],
//	    "capacity": {                            // capacity.Estimate by its JSON names
//	      "pool_tokens": 61440 | null, "pool_upper_bound": null, "context_length": 131072, ...
//	    }
//	  }]
//	}
//
// Unknown numbers are null, never 0, and lists are [] rather than null, so a
// policy can write count(c.missing) > 0 without guarding against null.

// buildInput turns the model into the Rego input document. It builds ast
// values directly: no JSON round trip per evaluation.
func buildInput(servers []*deploy.Server, est []capacity.Estimate, s Settings) (ast.Value, error) {
	if len(est) != len(servers) {
		return nil, fmt.Errorf("rules: %d capacity estimates for %d servers", len(est), len(servers))
	}
	list := make([]*ast.Term, len(servers))
	for i, srv := range servers {
		if srv == nil {
			return nil, fmt.Errorf("rules: server %d is nil", i)
		}
		obj, err := serverInput(i, srv, &est[i])
		if err != nil {
			return nil, err
		}
		list[i] = ast.NewTerm(obj)
	}
	deployments, of, err := deploymentsInput(servers, s)
	if err != nil {
		return nil, err
	}
	for i := range list {
		addServerFacts(list[i].Value.(ast.Object), servers[i], &est[i], of[i])
	}
	return ast.NewObject(
		[2]*ast.Term{ast.StringTerm("settings"), ast.NewTerm(settingsInput(s))},
		[2]*ast.Term{ast.StringTerm("servers"), ast.ArrayTerm(list...)},
		[2]*ast.Term{ast.StringTerm("deployments"), ast.ArrayTerm(deployments...)},
	), nil
}

func settingsInput(s Settings) ast.Value {
	concurrency := ast.NullTerm()
	if s.ExpectedConcurrency > 0 {
		concurrency = ast.IntNumberTerm(s.ExpectedConcurrency)
	}
	return ast.NewObject(
		[2]*ast.Term{ast.StringTerm("tenancy"), ast.StringTerm(string(s.Tenancy))},
		[2]*ast.Term{ast.StringTerm("expected_concurrency"), concurrency},
	)
}

func serverInput(index int, srv *deploy.Server, est *capacity.Estimate) (ast.Value, error) {
	args := ast.NewObject()
	for name, v := range srv.Args {
		args.Insert(ast.StringTerm(name), valueTerm(v))
	}
	opaque := make([]*ast.Term, len(srv.Opaque))
	for i, v := range srv.Opaque {
		opaque[i] = ast.StringTerm(v.Raw)
	}
	issues := make([]*ast.Term, len(srv.FlagIssues))
	for k, fi := range srv.FlagIssues {
		issues[k] = ast.ObjectTerm(
			[2]*ast.Term{ast.StringTerm("index"), ast.IntNumberTerm(k)},
			[2]*ast.Term{ast.StringTerm("kind"), ast.StringTerm(string(fi.Kind))},
			[2]*ast.Term{ast.StringTerm("flag"), ast.StringTerm(fi.Flag)},
			[2]*ast.Term{ast.StringTerm("written"), ast.StringTerm(fi.Written)},
			[2]*ast.Term{ast.StringTerm("message"), ast.StringTerm(fi.Message)},
			[2]*ast.Term{ast.StringTerm("suggestion"), ast.StringTerm(fi.Suggestion)},
		)
	}
	capTerm, err := structTerm(reflect.ValueOf(est).Elem())
	if err != nil {
		return nil, fmt.Errorf("rules: capacity of server %d: %w", index, err)
	}
	return ast.NewObject(
		[2]*ast.Term{ast.StringTerm("index"), ast.IntNumberTerm(index)},
		[2]*ast.Term{ast.StringTerm("engine"), ast.StringTerm(string(srv.Engine))},
		[2]*ast.Term{ast.StringTerm("role"), ast.StringTerm(string(srv.Role))},
		[2]*ast.Term{ast.StringTerm("name"), ast.StringTerm(srv.Name)},
		[2]*ast.Term{ast.StringTerm("file"), ast.StringTerm(srv.Span.File)},
		[2]*ast.Term{ast.StringTerm("line"), ast.IntNumberTerm(srv.Span.Line)},
		[2]*ast.Term{ast.StringTerm("args"), ast.NewTerm(args)},
		[2]*ast.Term{ast.StringTerm("opaque_args"), ast.BooleanTerm(len(srv.Opaque) > 0)},
		[2]*ast.Term{ast.StringTerm("opaque"), ast.ArrayTerm(opaque...)},
		[2]*ast.Term{ast.StringTerm("model"), optionalValueTerm(srv.Model)},
		[2]*ast.Term{ast.StringTerm("gpu"), optionalValueTerm(srv.GPU)},
		[2]*ast.Term{ast.StringTerm("replicas"), replicasTerm(srv.Replicas)},
		[2]*ast.Term{ast.StringTerm("flag_issues"), ast.ArrayTerm(issues...)},
		[2]*ast.Term{ast.StringTerm("capacity"), capTerm},
	), nil
}

// valueTerm is {"value": text as written, "known": bool, "typed": the
// engine's typed value or null}.
func valueTerm(v deploy.Value) *ast.Term {
	return ast.ObjectTerm(
		[2]*ast.Term{ast.StringTerm("value"), ast.StringTerm(v.Raw)},
		[2]*ast.Term{ast.StringTerm("known"), ast.BooleanTerm(v.Known)},
		[2]*ast.Term{ast.StringTerm("typed"), typedTerm(v.Typed)},
	)
}

// typedTerm converts a typed value to Rego: numbers, bools, strings, arrays
// and objects as themselves; no typed value, Python's None and a float
// that is not finite (no JSON number holds it) as null.
func typedTerm(t deploy.Typed) *ast.Term {
	switch t.Kind() {
	case deploy.KindBool:
		b, _ := t.Bool()
		return ast.BooleanTerm(b)
	case deploy.KindInt:
		n, _ := t.Int()
		return ast.NumberTerm(json.Number(strconv.FormatInt(n, 10)))
	case deploy.KindFloat:
		f, _ := t.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return ast.NullTerm()
		}
		return ast.FloatNumberTerm(f)
	case deploy.KindString:
		s, _ := t.Str()
		return ast.StringTerm(s)
	case deploy.KindList:
		items, _ := t.List()
		terms := make([]*ast.Term, len(items))
		for i, it := range items {
			terms[i] = typedTerm(it)
		}
		return ast.ArrayTerm(terms...)
	case deploy.KindObject:
		members, _ := t.Object()
		obj := ast.NewObject()
		for _, m := range members {
			obj.Insert(ast.StringTerm(m.Key), typedTerm(m.Value))
		}
		return ast.NewTerm(obj)
	}
	return ast.NullTerm()
}

// replicasTerm is the replica count when it is a known positive integer,
// else null: a placeholder is never read as a number.
func replicasTerm(v deploy.Value) *ast.Term {
	if !v.Known {
		return ast.NullTerm()
	}
	n, err := strconv.Atoi(strings.TrimSpace(v.Raw))
	if err != nil || n < 1 {
		return ast.NullTerm()
	}
	return ast.IntNumberTerm(n)
}

func optionalValueTerm(v deploy.Value) *ast.Term {
	if !v.IsSet() {
		return ast.NullTerm()
	}
	return valueTerm(v)
}

// structTerm converts a struct to an object keyed by the fields' JSON names,
// so the Rego side sees exactly the documented JSON of capacity.Estimate and
// picks up fields added to it without a change here. Nil pointers become
// null; nil slices become [] (see the input comment above).
func structTerm(v reflect.Value) (*ast.Term, error) {
	t := v.Type()
	obj := ast.NewObject()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		term, err := fieldTerm(v.Field(i))
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", f.Name, err)
		}
		obj.Insert(ast.StringTerm(name), term)
	}
	return ast.NewTerm(obj), nil
}

func fieldTerm(v reflect.Value) (*ast.Term, error) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return ast.NullTerm(), nil
		}
		return fieldTerm(v.Elem())
	case reflect.String:
		return ast.StringTerm(v.String()), nil
	case reflect.Bool:
		return ast.BooleanTerm(v.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return ast.NumberTerm(json.Number(strconv.FormatInt(v.Int(), 10))), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return ast.UIntNumberTerm(v.Uint()), nil
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return ast.NullTerm(), nil // not a JSON number: unknown
		}
		return ast.FloatNumberTerm(f), nil
	case reflect.Slice, reflect.Array:
		elems := make([]*ast.Term, v.Len())
		for i := range elems {
			e, err := fieldTerm(v.Index(i))
			if err != nil {
				return nil, err
			}
			elems[i] = e
		}
		return ast.ArrayTerm(elems...), nil
	case reflect.Struct:
		return structTerm(v)
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return nil, fmt.Errorf("map key %s is not a string", v.Type().Key())
		}
		obj := ast.NewObject()
		iter := v.MapRange()
		for iter.Next() {
			e, err := fieldTerm(iter.Value())
			if err != nil {
				return nil, err
			}
			obj.Insert(ast.StringTerm(iter.Key().String()), e)
		}
		return ast.NewTerm(obj), nil
	}
	return nil, fmt.Errorf("unsupported kind %s", v.Kind())
}
