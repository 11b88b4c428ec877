package engine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kvlint/kvlint/deploy"
)

// dottedFlag is every dotted key written for one JSON flag
// (--kv-transfer-config.kv_role kv_producer --kv-transfer-config.kv_port 1),
// merged as vLLM merges them.
type dottedFlag struct {
	flag         string      // "--kv-transfer-config", as written (dashes normalised)
	firstWritten string      // the first dotted word's name, "--kv-transfer-config.kv_role"
	span         deploy.Span // of that name
	root         *jnode
	known        bool // no value was a placeholder
	// leaves are the values as written, by their first key, in order:
	// what Args["--flag.key"] shows, with the value's own span.
	leaves map[string]dottedLeaf
	order  []string
}

type dottedLeaf struct {
	keyWord deploy.Value // the "--flag.key…" name as written
	value   deploy.Value // the value word as written
	nested  bool         // the key path has more than one key
}

// mergeDotted is step 5 of prepareVLLM: it takes the dotted words out and
// appends one "--flag JSON" pair per flag, remembering each key's words.
func (p *parser) mergeDotted(words []deploy.Value, from []bool) ([]deploy.Value, []bool) {
	var out []deploy.Value
	var outFrom []bool
	byFlag := map[string]*dottedFlag{}
	seenPath := map[string]deploy.Value{}
	for i := 0; i < len(words); i++ {
		w := words[i]
		name, _, hasEq := strings.Cut(w.Raw, "=")
		if !w.Known || !strings.HasPrefix(w.Raw, "--") || !strings.Contains(name, ".") || hasPlaceholder(name) {
			out, outFrom = append(out, w), append(outFrom, from[i])
			continue
		}
		nameWord := part(w, 0, len(name))
		var val deploy.Value
		if hasEq {
			val = part(w, len(name)+1, len(w.Raw))
		} else if i+1 < len(words) {
			val = words[i+1]
			i++
		} else {
			// processed_args[i + 1] raises IndexError: vLLM crashes.
			p.issue(deploy.FlagMissingValue, name, name, nameWord.Span, "",
				fmt.Sprintf("%s is the last word: vLLM reads the word after a dotted key as its value and fails with IndexError", name))
			continue
		}
		appendList := strings.HasSuffix(name, "+")
		path := strings.TrimSuffix(name, "+")
		flag, rest, _ := strings.Cut(path, ".")
		keys := strings.Split(rest, ".")
		leaf := dottedValue(val, appendList)

		d := byFlag[flag]
		if d == nil {
			d = &dottedFlag{flag: flag, firstWritten: name, span: nameWord.Span, root: newObject(), known: true, leaves: map[string]dottedLeaf{}}
			byFlag[flag] = d
			p.dotted = append(p.dotted, d)
		}
		d.known = d.known && val.Known
		nested := leaf
		for k := len(keys) - 1; k >= 1; k-- {
			o := newObject()
			o.set(keys[k], nested)
			nested = o
		}
		for _, dup := range d.root.merge(keys[0], nested) {
			full := flag + "." + dup
			if prev, ok := seenPath[full]; ok {
				p.issue(deploy.FlagDuplicate, flag, prev.Raw, prev.Span, "",
					fmt.Sprintf("%s is given again at %s; vLLM keeps the last value (it logs \"Found duplicate keys %s\"), so this one has no effect", full, nameWord.Span, full))
			}
		}
		seenPath[path] = nameWord
		if _, ok := d.leaves[keys[0]]; !ok {
			d.order = append(d.order, keys[0])
		}
		d.leaves[keys[0]] = dottedLeaf{keyWord: nameWord, value: val, nested: len(keys) > 1}
	}
	if p.dottedAt == nil && len(p.dotted) > 0 {
		p.dottedAt = map[int]*dottedFlag{}
	}
	for _, d := range p.dotted {
		flagWord := deploy.Value{Raw: d.flag, Known: true, Span: d.span}
		jsonWord := deploy.Value{Raw: d.root.dumps(), Known: d.known, Span: d.span}
		p.dottedAt[len(out)] = d
		out = append(out, flagWord, jsonWord)
		outFrom = append(outFrom, false, false)
	}
	return out, outFrom
}

// dottedValue reads a dotted key's value as vLLM does: json.loads, else
// human_readable_int, else the string; "key+" splits it on commas into a
// list of strings. A placeholder stays a string.
func dottedValue(val deploy.Value, appendList bool) *jnode {
	if appendList {
		n := &jnode{kind: 'a'}
		for _, item := range strings.Split(val.Raw, ",") {
			n.arr = append(n.arr, stringNode(item))
		}
		return n
	}
	if !val.Known {
		return stringNode(val.Raw)
	}
	if n, ok := decodeJSON(val.Raw); ok && pyJSONValid(val.Raw) {
		return n
	}
	if n, err := VLLMHumanReadableInt(val.Raw); err == nil {
		return scalarNode(strconv.FormatInt(n, 10))
	}
	return stringNode(val.Raw)
}

// isJSONType says whether a flag's value is JSON that vLLM reads as a dict.
func isJSONType(f *Flag) bool {
	switch strings.TrimPrefix(f.Type, "optional:") {
	case "json", "json.loads", "union_dict_and_str":
		return true
	}
	return false
}

// finishVLLM spreads every JSON flag in force over dotted canonical names:
// --kv-transfer-config '{"kv_role": "kv_producer"}' and
// --kv-transfer-config.kv_role kv_producer both give
// Args["--kv-transfer-config.kv_role"] = "kv_producer" (Raw a string
// value's text, other values as JSON; Typed the JSON value), spanning the
// value as written, so rules read one key without parsing JSON and point at
// the exact place to change. It also reports keys the flag's config class
// does not have.
func (p *parser) finishVLLM() {
	for _, f := range p.t.flags {
		if !isJSONType(f) {
			continue
		}
		occ, ok := p.seen[f.Dest]
		if !ok {
			continue
		}
		if occ.tok.dotted != nil {
			p.spreadDotted(f, occ.tok.dotted)
			continue
		}
		if len(occ.values) == 1 {
			p.spreadJSON(f, occ.values[0])
		}
	}
}

func (p *parser) spreadDotted(f *Flag, d *dottedFlag) {
	for _, k := range d.order {
		leaf := d.leaves[k]
		v := leaf.value
		n := d.root.obj[k]
		raw := n.plain()
		if !v.Known {
			raw = v.Raw
		}
		span := v.Span
		if leaf.nested {
			span = leaf.keyWord.Span
		}
		key := deploy.Value{Raw: raw, Known: v.Known, Span: span, Origin: v.Origin}
		if v.Known {
			key.Typed = n.typed()
		}
		p.res.Args[f.Key+"."+k] = key
		p.checkKey(f, k, leaf.keyWord.Span)
	}
	p.checkTransferConfig(f, func(k string) deploy.Span {
		if l, ok := d.leaves[k]; ok {
			return l.keyWord.Span
		}
		return d.span
	})
}

func (p *parser) spreadJSON(f *Flag, v deploy.Value) {
	text := v.Raw
	if !dictLike.MatchString(text) {
		return
	}
	lead := len(text) - len(strings.TrimLeft(text, " \t\r\n"))
	members, ok := topLevelSpans(strings.TrimSpace(text))
	if !ok {
		return
	}
	keySpans := map[string]deploy.Span{}
	inFile := p.yamlMembers[v.Span]
	for _, m := range members {
		valText := text[lead+m.valStart : lead+m.valEnd]
		known := v.Known || !hasPlaceholder(valText)
		raw := m.value.plain()
		if !known {
			raw = valText
		}
		vs, ks := subSpan(v, lead+m.valStart, lead+m.valEnd), v.Span
		if m.keyStart >= 0 {
			ks = subSpan(v, lead+m.keyStart, lead+m.keyEnd)
		}
		if at, ok := inFile[m.key]; ok {
			ks, vs = at[0], at[1]
		}
		key := deploy.Value{Raw: raw, Known: known, Span: vs, Origin: v.Origin}
		if known {
			key.Typed = m.value.typed()
		}
		p.res.Args[f.Key+"."+m.key] = key
		keySpans[m.key] = ks
		p.checkKey(f, m.key, ks)
	}
	p.checkTransferConfig(f, func(k string) deploy.Span {
		if s, ok := keySpans[k]; ok {
			return s
		}
		return v.Span
	})
}

// checkKey reports a key the flag's config dataclass does not have: vLLM's
// @config classes are pydantic dataclasses with extra="forbid"
// (vllm/config/utils.py config), so the value fails validation and argparse
// exits.
func (p *parser) checkKey(f *Flag, key string, span deploy.Span) {
	if f.hasKey(key) {
		return
	}
	msg := fmt.Sprintf("%s has no key %s: vLLM's config classes forbid extra keys (pydantic \"Extra inputs are not permitted\"), so argparse exits", f.Name, pyQuote(key))
	if s := closest(key, f.Keys); s != "" {
		msg += fmt.Sprintf("; did you mean %s?", s)
	}
	p.issue(deploy.FlagInvalidValue, f.Key, f.Name+"."+key, span, "", msg)
}

// closest is the key nearest to a mistyped one, when it is close enough.
func closest(key string, keys []string) string {
	best, bestDist := "", 1<<30
	for _, k := range keys {
		d := EditDistance(key, k)
		if d < bestDist {
			best, bestDist = k, d
		}
	}
	if bestDist <= typoBudget(len(key)) {
		return best
	}
	return ""
}

// checkTransferConfig applies KVTransferConfig's own checks
// (vllm/config/kv_transfer.py): kv_role must be kv_producer, kv_consumer or
// kv_both (a Literal, so pydantic rejects anything else), and a kv_connector
// needs a kv_role ("Please specify kv_role when kv_connector is set").
func (p *parser) checkTransferConfig(f *Flag, keySpan func(string) deploy.Span) {
	if f.Name != "--kv-transfer-config" {
		return
	}
	role, hasRole := p.res.Args[f.Key+".kv_role"]
	conn, hasConn := p.res.Args[f.Key+".kv_connector"]
	if hasRole && role.Known && role.Raw != "null" {
		switch role.Raw {
		case "kv_producer", "kv_consumer", "kv_both":
		default:
			p.issue(deploy.FlagInvalidValue, f.Key, f.Name+".kv_role", role.Span, "",
				fmt.Sprintf("kv_role %s is not one of kv_producer, kv_consumer, kv_both (KVRole in vllm/config/kv_transfer.py): pydantic rejects it and argparse exits", pyQuote(role.Raw)))
		}
	}
	if hasConn && conn.Known && conn.Raw != "null" && (!hasRole || (role.Known && role.Raw == "null")) {
		p.issue(deploy.FlagInvalidValue, f.Key, f.Name+".kv_connector", keySpan("kv_connector"), "",
			"kv_connector is set without kv_role: vLLM raises ValueError \"Please specify kv_role when kv_connector is set\" (KVTransferConfig.__post_init__) and argparse exits; add kv_role kv_producer (prefill), kv_consumer (decode) or kv_both")
	}
}
