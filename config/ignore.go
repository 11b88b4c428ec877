package config

import (
	"regexp"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// IgnoreEntry is one entry of `ignore:` in .kvlint.yaml: findings of Rules
// in files matching Path are suppressed (reported as such, not failing the
// run), for Reason, until the end of the day Until.
//
//	ignore:
//	  - path: charts/vendor/**
//	    rules: [KV101, KV104]
//	    reason: third-party chart; tracked in INFRA-123
//	    until: 2026-09-30
type IgnoreEntry struct {
	// Path is a gitignore-style pattern relative to the configuration file's
	// directory: "decode.yaml" matches that name at any depth, "deploy/*.yaml"
	// is anchored, "**" spans directories.
	Path string
	// Rules are the rule IDs it silences; empty means every rule.
	Rules  []string
	Reason string
	// Until is the last day the entry applies (from the YYYY-MM-DD until:);
	// the zero time means it never expires.
	Until time.Time
	// Line and Column are where the entry starts in the file; Key is the
	// first key written there, so a caret can mark it.
	Line, Column int
	Key          string
}

// DateLayout is the form of until: dates.
const DateLayout = "2006-01-02"

// ruleIDPattern accepts kvlint's IDs (KV101) and custom ones (ACME001).
var ruleIDPattern = regexp.MustCompile(`^[A-Z][A-Z0-9_-]{0,30}[0-9]$`)

// UnmarshalYAML reads an entry, rejecting unknown keys (the decoder's
// KnownFields does not reach into a custom unmarshaler) and remembering where
// the entry is, so findings about it can point there.
func (e *IgnoreEntry) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return nodeErrorf(n, "an ignore entry is a mapping with path, rules, reason and until")
	}
	*e = IgnoreEntry{Line: n.Line, Column: n.Column}
	if len(n.Content) > 0 {
		e.Key = n.Content[0].Value
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if seen[k.Value] {
			return nodeErrorf(k, "%s is given twice in this ignore entry", k.Value)
		}
		seen[k.Value] = true
		switch k.Value {
		case "path":
			if v.Kind != yaml.ScalarNode || strings.TrimSpace(v.Value) == "" {
				return nodeErrorf(v, "path must be a non-empty pattern")
			}
			e.Path = strings.TrimSpace(v.Value)
		case "rules":
			if err := e.readRules(v); err != nil {
				return err
			}
		case "reason":
			if v.Kind != yaml.ScalarNode {
				return nodeErrorf(v, "reason must be text")
			}
			e.Reason = strings.TrimSpace(v.Value)
		case "until":
			t, err := time.Parse(DateLayout, strings.TrimSpace(v.Value))
			if v.Kind != yaml.ScalarNode || err != nil {
				return nodeErrorf(v, "until must be a date written YYYY-MM-DD, not %q", v.Value)
			}
			e.Until = t
		default:
			return nodeErrorf(k, "unknown key %q in an ignore entry (path, rules, reason, until)", k.Value)
		}
	}
	if e.Path == "" {
		return nodeErrorf(n, "an ignore entry needs a path")
	}
	return nil
}

func (e *IgnoreEntry) readRules(v *yaml.Node) error {
	var ids []*yaml.Node
	switch v.Kind {
	case yaml.SequenceNode:
		ids = v.Content
	case yaml.ScalarNode: // rules: KV101
		ids = []*yaml.Node{v}
	default:
		return nodeErrorf(v, "rules must be a list of rule IDs")
	}
	for _, id := range ids {
		for _, s := range strings.Split(id.Value, ",") {
			s = strings.TrimSpace(s)
			if id.Kind != yaml.ScalarNode || !ruleIDPattern.MatchString(s) {
				return nodeErrorf(id, "%q is not a rule ID (KV101, or a custom rule's ID)", s)
			}
			e.Rules = append(e.Rules, s)
		}
	}
	return nil
}

// Expired reports whether the entry no longer applies at now: the calendar
// day of now (in now's location) is after Until.
func (e IgnoreEntry) Expired(now time.Time) bool {
	if e.Until.IsZero() {
		return false
	}
	y, m, d := now.Date()
	today := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	return today.After(e.Until)
}
