package runtime

import (
	"fmt"
	"strings"
)

const (
	defaultAlphabet   = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-}"
	maxCanaryLen      = 48
	maxWorkloadTokens = 1 << 27
)

func (w Workload) withDefaults(seed uint64) (Workload, *ScenarioError) {
	out := w
	out.Tenants = append([]Tenant(nil), w.Tenants...)
	out.Script = append([]ScriptedRequest(nil), w.Script...)
	if out.Requests < 0 || out.Requests > maxRequests {
		return out, problem("workload.requests", "must be between 0 and %d, got %d", maxRequests, out.Requests)
	}
	if len(out.Script) > maxRequests {
		return out, problem("workload.script", "at most %d scripted requests, got %d", maxRequests, len(out.Script))
	}
	if (out.Requests > 0 || out.Extraction != nil) && len(out.Tenants) == 0 {
		return out, problem("workload.tenants", "at least one tenant is required")
	}
	names := map[string]bool{}
	totalWeight := 0
	for i := range out.Tenants {
		t := &out.Tenants[i]
		path := fmt.Sprintf("workload.tenants[%d]", i)
		if t.Name == "" || len(t.Name) > 64 || strings.ContainsAny(t.Name, "{}") {
			return out, problem(path+".name", "a tenant needs a name of 1 to 64 bytes without braces, got %q", t.Name)
		}
		if names[t.Name] {
			return out, problem(path+".name", "tenant %q is listed twice", t.Name)
		}
		names[t.Name] = true
		if t.Canary == "" {
			t.Canary = defaultCanary(seed, t.Name)
		}
		if len(t.Canary) < 4 || len(t.Canary) > maxCanaryLen || strings.ContainsAny(t.Canary, "{} \n") {
			return out, problem(path+".canary", "a canary is 4 to %d bytes without braces or spaces, got %q", maxCanaryLen, t.Canary)
		}
		if t.Weight == nil {
			one := 1
			t.Weight = &one
		}
		if *t.Weight < 0 || *t.Weight > 1_000_000 {
			return out, problem(path+".weight", "must be between 0 and 1000000, got %d", *t.Weight)
		}
		totalWeight += *t.Weight
	}
	if out.Requests > 0 && totalWeight == 0 {
		return out, problem("workload.tenants", "no tenant has a weight above 0 to send the %d requests", out.Requests)
	}
	for i, a := range out.Tenants {
		for j, b := range out.Tenants {
			if i != j && strings.Contains(a.Canary, b.Canary) {
				return out, problem(fmt.Sprintf("workload.tenants[%d].canary", i), "contains tenant %q's canary; canaries must be distinct", b.Name)
			}
		}
	}
	if out.PromptTokens.Min == 0 && out.PromptTokens.Max == 0 {
		out.PromptTokens = IntRange{Min: 256, Max: 1024}
	}
	if out.PromptTokens.Max == 0 {
		out.PromptTokens.Max = out.PromptTokens.Min
	}
	if out.PromptTokens.Min < 1 || out.PromptTokens.Max < out.PromptTokens.Min || out.PromptTokens.Max > maxContext {
		return out, problem("workload.prompt_tokens", "need 1 <= min <= max <= %d, got %d..%d", maxContext, out.PromptTokens.Min, out.PromptTokens.Max)
	}
	if out.SharedPrefixTokens < 0 || out.SharedPrefixTokens > maxContext {
		return out, problem("workload.shared_prefix_tokens", "must be between 0 and %d", maxContext)
	}
	if out.MaxTokens == 0 {
		out.MaxTokens = 32
	}
	if out.MaxTokens < 1 || out.MaxTokens > maxContext {
		return out, problem("workload.max_tokens", "must be between 1 and %d, got %d", maxContext, out.MaxTokens)
	}
	promptMax, outputMax := out.PromptTokens.Max, out.MaxTokens
	if l := out.Lengths; l != nil {
		if l.PromptMedian < 1 || l.PromptMax < l.PromptMedian || l.PromptMax > maxContext {
			return out, problem("workload.lengths", "need 1 <= prompt_median <= prompt_max <= %d, got %d, %d", maxContext, l.PromptMedian, l.PromptMax)
		}
		if l.OutputMedian < 1 || l.OutputMax < l.OutputMedian || l.OutputMax > maxContext {
			return out, problem("workload.lengths", "need 1 <= output_median <= output_max <= %d, got %d, %d", maxContext, l.OutputMedian, l.OutputMax)
		}
		cp := *l
		out.Lengths = &cp
		promptMax, outputMax = l.PromptMax, l.OutputMax
	}
	// Prompts are generated up front and outputs are kept: bound both.
	if int64(out.Requests)*int64(promptMax+out.SharedPrefixTokens+maxCanaryLen) > maxWorkloadTokens ||
		int64(out.Requests)*int64(outputMax) > maxWorkloadTokens {
		return out, problem("workload.requests", "%d requests of up to %d prompt and %d output tokens exceed %d tokens in all; scale the workload down",
			out.Requests, out.PromptTokens.Max, out.MaxTokens, maxWorkloadTokens)
	}
	switch out.Arrival.Mode {
	case "", "burst":
		out.Arrival.Mode = "burst"
	case "rate":
		if !(out.Arrival.RatePerSec > 0 && out.Arrival.RatePerSec <= 1e6) {
			return out, problem("workload.arrival.rate_per_s", "must be within (0, 1e6], got %g", out.Arrival.RatePerSec)
		}
	case "closed":
		if out.Arrival.Concurrency == 0 {
			out.Arrival.Concurrency = 1
		}
		if out.Arrival.Concurrency < 1 || out.Arrival.Concurrency > maxRequests {
			return out, problem("workload.arrival.concurrency", "must be between 1 and %d, got %d", maxRequests, out.Arrival.Concurrency)
		}
	default:
		return out, problem("workload.arrival.mode", "unknown mode %q (burst, rate, closed)", out.Arrival.Mode)
	}
	c := &out.Cancel
	if !(c.Fraction >= 0 && c.Fraction <= 1) {
		return out, problem("workload.cancel.fraction", "must be within [0, 1], got %g", c.Fraction)
	}
	switch c.Stage {
	case "":
		c.Stage = "any"
	case "any", "queued", "prefill", "transfer", "decode":
	default:
		return out, problem("workload.cancel.stage", "unknown stage %q (any, queued, prefill, transfer, decode)", c.Stage)
	}
	if c.WithinMs == 0 {
		c.WithinMs = 1000
	}
	if !(c.WithinMs > 0 && c.WithinMs <= 1e9) || !(c.DelayMs >= 0 && c.DelayMs <= 1e9) {
		return out, problem("workload.cancel", "delay_ms and within_ms must be within [0, 1e9]")
	}
	var scripted int64
	for i, r := range out.Script {
		path := fmt.Sprintf("workload.script[%d]", i)
		scripted += int64(len(r.Prompt) + r.MaxTokens)
		if scripted > maxWorkloadTokens {
			return out, problem(path, "the script exceeds %d tokens in all", maxWorkloadTokens)
		}
		if !names[r.Tenant] {
			return out, problem(path+".tenant", "unknown tenant %q", r.Tenant)
		}
		if r.Prompt == "" {
			return out, problem(path+".prompt", "the prompt is empty")
		}
		if len(r.Prompt) > maxContext {
			return out, problem(path+".prompt", "at most %d bytes", maxContext)
		}
		if r.MaxTokens == 0 {
			out.Script[i].MaxTokens = 16 // the OpenAI completions default
		}
		if r.MaxTokens < 0 || r.MaxTokens > maxContext {
			return out, problem(path+".max_tokens", "must be between 0 and %d", maxContext)
		}
		if !(r.AtMs >= 0 && r.AtMs <= 1e9) || !(r.CancelAtMs >= 0 && r.CancelAtMs <= 1e9) {
			return out, problem(path+".at_ms", "times must be within [0, 1e9] ms")
		}
	}
	if x := out.Extraction; x != nil {
		cp := *x
		out.Extraction = &cp
		if !names[cp.Attacker] {
			return out, problem("workload.extraction.attacker", "unknown tenant %q", cp.Attacker)
		}
		if !names[cp.Victim] || cp.Victim == cp.Attacker {
			return out, problem("workload.extraction.victim", "must be a tenant other than the attacker, got %q", cp.Victim)
		}
		if cp.Alphabet == "" {
			out.Extraction.Alphabet = defaultAlphabet
		}
		if len(out.Extraction.Alphabet) > 256 || strings.Contains(out.Extraction.Alphabet, "{") {
			return out, problem("workload.extraction.alphabet", "at most 256 bytes, without '{'")
		}
		if cp.MaxLength == 0 {
			out.Extraction.MaxLength = 64
		}
		if out.Extraction.PageSize < 0 || out.Extraction.PageSize > maxPageSize {
			return out, problem("workload.extraction.page_size", "must be between 0 and %d, got %d", maxPageSize, out.Extraction.PageSize)
		}
		if out.Extraction.MaxProbes == 0 {
			out.Extraction.MaxProbes = 4096
		}
		if out.Extraction.MaxProbes < 0 || out.Extraction.MaxProbes > maxRequests {
			return out, problem("workload.extraction.max_probes", "must be between 0 and %d, got %d", maxRequests, out.Extraction.MaxProbes)
		}
		if out.Extraction.MaxLength < 1 || out.Extraction.MaxLength > 256 {
			return out, problem("workload.extraction.max_length", "must be between 1 and 256")
		}
		if !(cp.StartMs >= 0 && cp.StartMs <= 1e9) {
			return out, problem("workload.extraction.start_ms", "must be within [0, 1e9]")
		}
	}
	return out, nil
}

// defaultCanary derives a tenant's canary from the seed, so runs are reproducible.
func defaultCanary(seed uint64, name string) string {
	h := mix64(seed ^ 0xc0ffee)
	for i := 0; i < len(name); i++ {
		h = mix64(h ^ uint64(name[i]))
	}
	label := strings.ToUpper(name)
	label = strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return 'X'
	}, label)
	if len(label) > 24 {
		label = label[:24]
	}
	return fmt.Sprintf("CANARY-%s-%08X", label, uint32(h))
}
