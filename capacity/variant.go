package capacity

import (
	"fmt"
	"regexp"
	"strings"
)

// A deployment often names a variant of a catalog model rather than the
// catalog id itself: the -Instruct tune of a base model, a dated re-release,
// or a quantized upload. Their config.json files keep the base's attention
// shapes (the cell) and parameter shapes (the weights); what changes is
// stated per rule below. Each rule that fires is an inference, not a read,
// and the estimate says so (Model.Inferred → "inferred: …" assumptions).

// quantSuffix is a name ending that marks a quantized upload, and what the
// quantization does to the weights. Bits include the scales: a 4-bit group
// quantization with group size 128 stores, per group, a 16-bit scale and a
// packed 4-bit zero point (AutoAWQ and AutoGPTQ checkpoints: qweight int4,
// scales fp16, qzeros int4 per group), 4 + 20/128 bits per weight.
type quantSuffix struct {
	suffix string // lower case, with its leading dash
	method string
	scope  string
	bits   float64
	what   string
}

var quantSuffixes = []quantSuffix{
	{"-fp8-dynamic", "fp8", "linear", 8, "FP8 (8-bit) linear weights"},
	{"-fp8-static", "fp8", "linear", 8, "FP8 (8-bit) linear weights"},
	{"-fp8", "fp8", "linear", 8, "FP8 (8-bit) linear weights"},
	{"-nvfp4", "modelopt_nvfp4", "mlp", 4.5, "NVFP4 MLP weights (4-bit values plus one FP8 scale per 16)"},
	{"-fp4", "modelopt_nvfp4", "mlp", 4.5, "NVFP4 MLP weights (4-bit values plus one FP8 scale per 16)"},
	{"-awq", "awq", "linear", 4 + 20.0/128, "AWQ 4-bit linear weights, group 128 (4 + 20/128 bits with scales and zeros)"},
	{"-gptq-int4", "gptq", "linear", 4 + 20.0/128, "GPTQ 4-bit linear weights, group 128 (4 + 20/128 bits with scales and zeros)"},
	{"-gptq-int8", "gptq", "linear", 8 + 24.0/128, "GPTQ 8-bit linear weights, group 128 (8 + 24/128 bits with scales and zeros)"},
	{"-gptq", "gptq", "linear", 4 + 20.0/128, "GPTQ 4-bit linear weights, group 128 (4 + 20/128 bits with scales and zeros)"},
	{"-int4", "gptq", "linear", 4 + 20.0/128, "4-bit linear weights, group 128 (4 + 20/128 bits with scales and zeros)"},
	{"-w4a16", "compressed-tensors", "linear", 4 + 16.0/128, "W4A16 4-bit linear weights, group 128 (4 + 16/128 bits with scales)"},
	{"-int8", "w8a8_int8", "linear", 8, "INT8 (8-bit) linear weights"},
	{"-w8a8", "w8a8_int8", "linear", 8, "INT8 (8-bit) linear weights"},
	{"-w8a16", "w8a8_int8", "linear", 8, "INT8 (8-bit) linear weights"},
}

// roleTokens are the name parts that mark a tune of the same base model.
var roleTokens = map[string]bool{"instruct": true, "chat": true, "it": true, "base": true, "hf": true}

// dateToken is a dated re-release tag: -2507, -0324, -0528, -2512.
var dateToken = regexp.MustCompile(`^\d{4}$`)

// familyKey reduces a model name (last path component) to what variants
// share: lower case, without role tokens and a trailing date tag.
func familyKey(last string) string {
	parts := strings.Split(strings.ToLower(last), "-")
	out := parts[:0]
	for i, p := range parts {
		if roleTokens[p] || (i == len(parts)-1 && i > 0 && dateToken.MatchString(p)) {
			continue
		}
		out = append(out, p)
	}
	return strings.Join(out, "-")
}

// splitQuant removes a quantization suffix from a name's last component.
func splitQuant(last string) (string, *quantSuffix) {
	low := strings.ToLower(last)
	for i := range quantSuffixes {
		q := &quantSuffixes[i]
		if strings.HasSuffix(low, q.suffix) && len(low) > len(q.suffix) {
			return last[:len(last)-len(q.suffix)], q
		}
	}
	return last, nil
}

func orgOf(id string) string {
	if i := strings.Index(id, "/"); i > 0 {
		return strings.ToLower(id[:i])
	}
	return ""
}

// lookupVariant resolves name through the variant rules when no catalog id,
// alias or path component matches it: first a quantization suffix is taken
// off, then role tokens and a date tag are compared. A tune is matched only
// within the catalog id's organisation; a quantized upload under another
// organisation (nvidia/…-FP8 of meta-llama/…) matches when exactly one
// catalog model has its remaining name. The copy returned carries the rules
// in Inferred and the quantization the suffix implies.
func (c *Catalog) lookupVariant(name string) (*Model, bool) {
	name = strings.TrimSpace(name)
	if name == "" || strings.ContainsAny(name, "\\") {
		return nil, false
	}
	last := lastPathComponent(name)
	org := orgOf(name)
	if strings.Count(name, "/") != 1 || strings.HasPrefix(name, ".") {
		return nil, false // a path: matched by its last component only
	}
	stem, q := splitQuant(last)
	var base *Model
	var rules []string
	if q != nil {
		prefix := ""
		if org != "" {
			prefix = name[:strings.Index(name, "/")+1]
		}
		if m, how := c.lookupModel(prefix + stem); how == matchID || how == matchAlias {
			base = m
		} else if idx := c.byLast[strings.ToLower(stem)]; len(idx) == 1 {
			m := c.models[idx[0]]
			base = &m
		}
	}
	if base == nil {
		base = c.lookupFamily(org, stem)
		if base == nil && q != nil {
			// A quantized upload under another organisation: its family
			// must be unique across the catalog.
			base = c.lookupFamily("", stem)
		}
		if base == nil {
			return nil, false
		}
		rules = append(rules, fmt.Sprintf("%s is a tune or dated re-release of %s (same organisation, same name without -Instruct/-Chat/-it/-Base or a date tag): same attention shapes and weights", stem, base.ID))
		if base.ContextKey != "" || base.ContextValue > 0 {
			rules = append(rules, fmt.Sprintf("the context window is %s's, since kvlint has no config of %s itself (a tune's config may declare another: Qwen2.5-Instruct declares 32,768 where its base declares 131,072)", base.ID, stem))
		}
	} else if !strings.EqualFold(lastPathComponent(base.ID), stem) || (org != "" && orgOf(base.ID) != org) {
		rules = append(rules, fmt.Sprintf("%s is read as a quantized upload of %s (same name without the suffix)", name, base.ID))
	}
	m := *base
	m.Aliases = nil
	if q != nil {
		switch {
		case base.Quant != nil && base.Quant.BitsPerWeight > 0:
			rules = append(rules, fmt.Sprintf("the suffix %s names a quantization, but %s's own config already states %s: kept", q.suffix, base.ID, base.Quant.Method))
		default:
			m.Quant = &Quantization{Method: q.method, Scope: q.scope, BitsPerWeight: q.bits}
			rules = append(rules, fmt.Sprintf("the suffix %s means %s; the KV cache keeps the model dtype (only a config's kv_cache_quant_algo changes it)", q.suffix, q.what))
		}
	}
	m.Inferred = append(append([]string{}, base.Inferred...), rules...)
	return &m, true
}

// lookupFamily finds the catalog model of organisation org whose name
// differs from last only by role tokens and a date tag; org "" accepts any
// organisation as long as the matches all belong to one. Several such models
// (a base and its -Instruct) share shapes; the one whose name keeps the same
// role tokens is preferred, then the catalog order.
func (c *Catalog) lookupFamily(org, last string) *Model {
	key := familyKey(last)
	if key == "" {
		return nil
	}
	var found []int
	orgs := map[string]bool{}
	for i := range c.models {
		for _, id := range append([]string{c.models[i].ID}, c.models[i].Aliases...) {
			if (org == "" || orgOf(id) == org) && familyKey(lastPathComponent(id)) == key {
				found = append(found, i)
				orgs[orgOf(c.models[i].ID)] = true
				break
			}
		}
	}
	if len(found) == 0 || len(orgs) > 1 {
		return nil
	}
	pick := found[0]
	want := roleOf(last)
	for _, i := range found {
		if roleOf(lastPathComponent(c.models[i].ID)) == want {
			pick = i
			break
		}
	}
	m := c.models[pick]
	return &m
}

// roleOf is the set of role tokens in a name, for preferring a same-role match.
func roleOf(last string) string {
	var out []string
	for _, p := range strings.Split(strings.ToLower(last), "-") {
		if roleTokens[p] {
			out = append(out, p)
		}
	}
	return strings.Join(out, "-")
}
