package runtime

import (
	"bytes"
	"errors"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// maxScenarioBytes bounds a scenario file; real ones are a few kilobytes.
const maxScenarioBytes = 1 << 20

// LoadScenario reads and checks a scenario file (YAML or JSON).
func LoadScenario(path string) (Scenario, error) {
	f, err := os.Open(path)
	if err != nil {
		return Scenario{}, &ScenarioError{File: path, Msg: err.Error()}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxScenarioBytes+1))
	if err != nil {
		return Scenario{}, &ScenarioError{File: path, Msg: err.Error()}
	}
	return ParseScenario(path, data)
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// ParseScenario decodes a scenario from YAML or JSON (JSON is read as YAML) and checks it.
// Unknown fields are errors. Every error is a *ScenarioError that names the file, and the
// line and column of the offending value when the file has it.
func ParseScenario(file string, data []byte) (Scenario, error) {
	var sc Scenario
	if len(data) > maxScenarioBytes {
		return sc, &ScenarioError{File: file, Msg: "the scenario is larger than 1 MiB"}
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return sc, yamlError(file, &root, err)
	}
	if len(root.Content) == 0 {
		return sc, &ScenarioError{File: file, Msg: "the scenario is empty"}
	}
	if root.Content[0].Kind != yaml.MappingNode {
		n := root.Content[0]
		return sc, &ScenarioError{File: file, Line: n.Line, Col: n.Column, Msg: "a scenario is a mapping (name, prefill, decode, workload, …)"}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&sc); err != nil {
		return Scenario{}, yamlError(file, &root, err)
	}
	if _, perr := sc.withDefaults(); perr != nil {
		e := *perr
		e.File = file
		if n := locate(root.Content[0], perr.Path); n != nil {
			e.Line, e.Col = n.Line, n.Column
		}
		return Scenario{}, &e
	}
	return sc, nil
}

// yamlError turns a yaml.v3 error into a ScenarioError at the line it names, at the column
// of the first node on that line.
func yamlError(file string, root *yaml.Node, err error) *ScenarioError {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	e := &ScenarioError{File: file, Msg: msg}
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		if line, convErr := strconv.Atoi(m[1]); convErr == nil && line > 0 {
			e.Line, e.Col = line, 1
			if n := nodeOnLine(root, line, offending(msg)); n != nil {
				e.Col = n.Column
			}
			e.Msg = strings.TrimSpace(strings.TrimPrefix(msg, m[0]+":"))
		}
	}
	return e
}

var (
	quotedValue  = regexp.MustCompile("`([^`]*)`")
	unknownField = regexp.MustCompile(`field (\S+) not found`)
)

// offending is the value or key a yaml.v3 message names, if any.
func offending(msg string) string {
	if m := unknownField.FindStringSubmatch(msg); m != nil {
		return m[1]
	}
	if m := quotedValue.FindStringSubmatch(msg); m != nil {
		return m[1]
	}
	return ""
}

// nodeOnLine picks the scalar on line whose value is want, else the first scalar there,
// else the first node there.
func nodeOnLine(root *yaml.Node, line int, want string) *yaml.Node {
	var first, firstScalar, match *yaml.Node
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Line == line && n.Kind != yaml.DocumentNode {
			if first == nil {
				first = n
			}
			if n.Kind == yaml.ScalarNode {
				if firstScalar == nil {
					firstScalar = n
				}
				if match == nil && want != "" && n.Value == want {
					match = n
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	if root != nil {
		walk(root)
	}
	switch {
	case match != nil:
		return match
	case firstScalar != nil:
		return firstScalar
	}
	return first
}

var pathStep = regexp.MustCompile(`^([a-z_0-9]+)(?:\[(\d+)\])?$`)

// locate finds the node a validation path like "prefill[0].page_size" names, or the
// closest ancestor that exists (a defaulted field has no node of its own).
func locate(n *yaml.Node, path string) *yaml.Node {
	best := n
	if path == "" {
		return best
	}
	cur := n
	for _, step := range strings.Split(path, ".") {
		m := pathStep.FindStringSubmatch(step)
		if m == nil || cur == nil || cur.Kind != yaml.MappingNode {
			return best
		}
		var key, val *yaml.Node
		for i := 0; i+1 < len(cur.Content); i += 2 {
			if cur.Content[i].Value == m[1] {
				key, val = cur.Content[i], cur.Content[i+1]
				break
			}
		}
		if key == nil {
			return best
		}
		best, cur = val, val
		if m[2] != "" {
			idx, err := strconv.Atoi(m[2])
			if err != nil || val.Kind != yaml.SequenceNode || idx >= len(val.Content) {
				return key
			}
			best, cur = val.Content[idx], val.Content[idx]
		}
	}
	return best
}
