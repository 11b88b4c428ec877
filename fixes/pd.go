package fixes

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kvlint/kvlint/capacity"
	"github.com/kvlint/kvlint/deploy"
	"github.com/kvlint/kvlint/diag"
	"github.com/kvlint/kvlint/engine"
)

// The prefill/decode findings (rules/policies/disaggregation) say the two
// sides of a pair disagree; the fix is the value that makes them agree,
// written on the side that is the less disruptive to change. Each rule
// reports on the decode server; its prefill partners are the prefill
// servers of its deployment.
func init() {
	register("KV204", contextAgree)
	register("KV202", dtypeAgree)
	register("KV201", pageAgree)
	register("KV206", backendAgree)
	register("KV205", decodePoolFits)
	register("KV203", modelAgree)
	register("KV208", tpAgree)
}

// side is one server of a pair with its estimate.
type side struct {
	srv *deploy.Server
	est *capacity.Estimate
}

// prefillPartners are the prefill servers that share the finding's
// decode server's disaggregated deployment (lib.pd_pairs).
func prefillPartners(s *Subject) []side {
	if s.Server == nil || s.Server.Role != deploy.RoleDecode {
		return nil
	}
	var out []side
	for _, d := range s.Deployments {
		if d.Mode != deploy.ModeDisaggregated {
			continue
		}
		mine := false
		for _, x := range d.Servers {
			mine = mine || x == s.Server
		}
		if !mine {
			continue
		}
		for _, x := range d.Servers {
			if x.Role != deploy.RolePrefill {
				continue
			}
			for i, y := range s.Servers {
				if y == x && i < len(s.Estimates) {
					out = append(out, side{srv: x, est: &s.Estimates[i]})
				}
			}
		}
	}
	return out
}

// agreeOn picks the one value the partners that disagree with decode hold:
// with several prefill servers holding different values there is no one
// value to agree on, and no fix.
func agreeOn[T comparable](partners []side, of func(side) (T, bool), decode T) (side, T, bool) {
	var zero, want T
	var pick side
	found := false
	for _, p := range partners {
		v, ok := of(p)
		if !ok {
			return side{}, zero, false
		}
		if v == decode {
			continue
		}
		if found && v != want {
			return side{}, zero, false
		}
		pick, want, found = p, v, true
	}
	return pick, want, found
}

// setOn is a fix that writes flag = value on server srv.
func setOn(s *Subject, srv *deploy.Server, desc, flag, value string, result []diag.Quantity) diag.Fix {
	f := diag.Fix{Description: desc, Result: result}
	reps, why := setFlag(s.Files, srv, flag, value)
	if why != "" {
		f.Unwritable = flag + ": " + why
		return f
	}
	f.Replacements = reps
	return f
}

func where(srv *deploy.Server) string {
	if srv.Name != "" {
		return srv.Name
	}
	return srv.Span.String()
}

// contextAgree gives the longer side the shorter side's context length.
// Lowering the longer one changes nothing a client can rely on today (the
// shorter side already refuses what lies between), it never needs memory,
// and it keeps the pool checks that hold; raising the shorter one could
// push its pool below the new context.
func contextAgree(s *Subject) []diag.Fix {
	dec := side{s.Server, s.Estimate}
	ctx := func(x side) (int64, bool) {
		if x.est == nil || x.est.ContextLength == nil {
			return 0, false
		}
		return *x.est.ContextLength, true
	}
	dc, ok := ctx(dec)
	if !ok {
		return nil
	}
	p, pc, ok := agreeOn(prefillPartners(s), ctx, dc)
	if !ok {
		return nil
	}
	longer, n := dec, pc
	if pc > dc {
		longer, n = p, dc
	}
	flag := "--context-length"
	if longer.srv.Engine == deploy.EngineVLLM {
		flag = "--max-model-len"
	}
	e, ok := longer.est.With(capacity.SetInt(flag, n))
	if !ok || e.ContextLength == nil || *e.ContextLength != n {
		return nil
	}
	role := "decode"
	if longer.srv == p.srv {
		role = "prefill"
	}
	desc := fmt.Sprintf("%s %d on the %s server %s (the longer side comes down to the shorter: nothing that works today stops working)", flag, n, role, where(longer.srv))
	return []diag.Fix{setOn(s, longer.srv, desc, flag, strconv.FormatInt(n, 10), append([]diag.Quantity{{Name: "context", Value: float64(n), Unit: "tokens"}}, poolResult(e)...))}
}

// dtypeAgree writes the prefill side's --kv-cache-dtype on the decode
// side: prefill computes the KV and decode receives it, so decode takes
// the format it is sent in. When that would leave the decode pool below
// its context (a wider dtype doubles the cell), prefill takes decode's
// instead.
func dtypeAgree(s *Subject) []diag.Fix {
	dtype := func(x side) (string, bool) {
		v, ok := x.srv.Args["--kv-cache-dtype"]
		if !ok {
			return "auto", true // the flag's default, as the rule compares
		}
		str, ok := v.Typed.Str()
		return str, ok && v.Known
	}
	dec := side{s.Server, s.Estimate}
	dv, ok := dtype(dec)
	if !ok {
		return nil
	}
	p, pv, ok := agreeOn(prefillPartners(s), dtype, dv)
	if !ok {
		return nil
	}
	if e, ok := dec.est.With(capacity.Change{Flag: "--kv-cache-dtype", Typed: deploy.TypedString(pv), Raw: pv}); ok && fits(e) {
		desc := fmt.Sprintf("--kv-cache-dtype %s on the decode server %s (decode takes the format prefill sends)", pv, where(dec.srv))
		return []diag.Fix{setOn(s, dec.srv, desc, "--kv-cache-dtype", pv, poolResult(e))}
	}
	if e, ok := p.est.With(capacity.Change{Flag: "--kv-cache-dtype", Typed: deploy.TypedString(dv), Raw: dv}); ok && fits(e) {
		desc := fmt.Sprintf("--kv-cache-dtype %s on the prefill server %s (with prefill's dtype the decode pool would not hold its context)", dv, where(p.srv))
		return []diag.Fix{setOn(s, p.srv, desc, "--kv-cache-dtype", dv, poolResult(e))}
	}
	return nil
}

// fits: the recomputed server starts and, when its pool is known, holds
// its context.
func fits(e capacity.Estimate) bool {
	if e.StartupError != "" || e.KVBudgetBytes != nil && *e.KVBudgetBytes <= 0 {
		return false
	}
	if e.PoolTokens != nil && e.ContextLength != nil {
		return *e.PoolTokens >= *e.ContextLength
	}
	return true
}

// pageAgree writes the prefill side's page size on the decode side: the
// decode side checks the pair at its first contact, and its page size only
// aligns its own pool. The recomputed decode estimate must report the new
// page size (an attention backend that fixes its own is left to the user).
func pageAgree(s *Subject) []diag.Fix {
	page := func(x side) (int, bool) {
		if x.est == nil || x.est.PageSize <= 0 {
			return 0, false
		}
		return x.est.PageSize, true
	}
	dec := side{s.Server, s.Estimate}
	dp, ok := page(dec)
	if !ok {
		return nil
	}
	_, pp, ok := agreeOn(prefillPartners(s), page, dp)
	if !ok {
		return nil
	}
	e, ok := dec.est.With(capacity.SetInt("--page-size", int64(pp)))
	if !ok || e.PageSize != pp || !fits(e) {
		return nil
	}
	desc := fmt.Sprintf("--page-size %d on the decode server %s (decode checks the pair and its page only aligns its own pool)", pp, where(dec.srv))
	return []diag.Fix{setOn(s, dec.srv, desc, "--page-size", strconv.Itoa(pp), poolResult(e))}
}

// backendAgree writes the prefill side's transfer backend on the decode
// side: prefill servers register with the router and bootstrap the
// transfer, so one decode server changing is the smaller edit. The prefill
// server's "fake" backend has no partner value to agree on and gets none.
func backendAgree(s *Subject) []diag.Fix {
	def, known := sglangDefault("--disaggregation-transfer-backend")
	backend := func(x side) (string, bool) {
		v, ok := x.srv.Args["--disaggregation-transfer-backend"]
		if !ok {
			return def, known
		}
		str, ok := v.Typed.Str()
		if str == "mooncake_tcp" {
			str = "mooncake"
		}
		return str, ok && v.Known
	}
	dec := side{s.Server, s.Estimate}
	if dec.srv.Role != deploy.RoleDecode {
		return nil
	}
	db, ok := backend(dec)
	if !ok {
		return nil
	}
	_, pb, ok := agreeOn(prefillPartners(s), backend, db)
	if !ok || pb == "fake" {
		return nil
	}
	desc := fmt.Sprintf("--disaggregation-transfer-backend %s on the decode server %s (the prefill side's)", pb, where(dec.srv))
	return []diag.Fix{setOn(s, dec.srv, desc, "--disaggregation-transfer-backend", pb, nil)}
}

// decodePoolFits makes the decode pool hold the longest prompt its prefill
// server admits (min(context − 1, pool − 1) on that side): first by the
// decode pool's own capacity fixes with that demand, then by lowering the
// prefill context so it admits no more than the decode pool holds.
func decodePoolFits(s *Subject) []diag.Fix {
	dec := side{s.Server, s.Estimate}
	admitted := func(x side) (int64, bool) {
		if x.est == nil || x.est.MaxRequestTokens == nil {
			return 0, false
		}
		return *x.est.MaxRequestTokens, true
	}
	var p side
	var most int64
	for _, x := range prefillPartners(s) {
		if a, ok := admitted(x); ok && a > most {
			p, most = x, a
		}
	}
	if p.srv == nil || dec.est == nil {
		return nil
	}
	c := &capFixer{s: s, est: dec.est, srv: dec.srv, d: demand{ctx: most, per: 1, attnDP: 1, fixed: most}, ctxFlag: "--context-length", tpFlag: "--tp-size"}
	if dec.srv.Engine == deploy.EngineVLLM {
		c.ctxFlag, c.tpFlag = "--max-model-len", "--tensor-parallel-size"
	}
	var out []diag.Fix
	out = append(out, c.raiseCap()...)
	out = append(out, c.raiseFraction()...)
	// The prefill side admits min(context − 1, pool − 1): a context one
	// above the decode pool admits exactly what it holds.
	if limit := c.poolLimit(); limit > 0 && p.est.ContextLength != nil && limit+1 < *p.est.ContextLength {
		flag := "--context-length"
		if p.srv.Engine == deploy.EngineVLLM {
			flag = "--max-model-len"
		}
		n := limit + 1
		if e, ok := p.est.With(capacity.SetInt(flag, n)); ok && e.MaxRequestTokens != nil && *e.MaxRequestTokens <= limit {
			desc := fmt.Sprintf("%s %d on the prefill server %s (it then admits no prompt longer than the decode pool's %s tokens)", flag, n, where(p.srv), capacity.Thousands(limit))
			out = append(out, setOn(s, p.srv, desc, flag, strconv.FormatInt(n, 10), []diag.Quantity{{Name: "admitted", Value: float64(*e.MaxRequestTokens), Unit: "tokens"}}))
		}
	}
	out = append(out, c.moreTP()...)
	return out
}

// modelID is what a server loads, as model_mismatch.rego compares it: the
// model capacity resolved, else the model as written.
func modelID(x side) (string, bool) {
	if x.est != nil && x.est.Model != "" {
		return x.est.Model, true
	}
	return x.srv.Model.Raw, x.srv.Model.Known && x.srv.Model.Raw != ""
}

// modelAgree makes the decode server load what its prefill server loads:
// decode continues from the KV prefill computed, so prefill's weights are
// the ones the pair serves. For --revision and --quantization the decode
// side takes the prefill side's value; when only decode sets one, the fix
// would delete it there, which kvlint does not write, so prefill takes
// decode's value instead when its pool still holds its context.
func modelAgree(s *Subject) []diag.Fix {
	dec := side{s.Server, s.Estimate}
	dm, ok := modelID(dec)
	if !ok {
		return nil
	}
	partners := prefillPartners(s)
	p, _, ok := agreeOn(partners, modelID, dm)
	if ok {
		if !p.srv.Model.Known {
			return nil
		}
		raw := p.srv.Model.Raw
		desc := fmt.Sprintf("%s on the decode server %s (the model its prefill server %s serves)", raw, where(dec.srv), where(p.srv))
		f := diag.Fix{Description: desc}
		reps, why := setValue(s.Files, dec.srv.Model, raw)
		if why != "" {
			f.Unwritable = why
		} else {
			f.Replacements = reps
		}
		return []diag.Fix{f}
	}
	var out []diag.Fix
	for _, flag := range []string{"--revision", "--quantization"} {
		val := func(x side) (string, bool) {
			v, ok := x.srv.Args[flag]
			if !ok {
				return "", true
			}
			return v.Raw, v.Known
		}
		dv, ok := val(dec)
		if !ok {
			continue
		}
		p, pv, ok := agreeOn(partners, val, dv)
		if !ok {
			continue
		}
		if pv != "" {
			desc := fmt.Sprintf("%s %s on the decode server %s (the prefill side's)", flag, pv, where(dec.srv))
			out = append(out, setOn(s, dec.srv, desc, flag, pv, nil))
			continue
		}
		change := capacity.Change{Flag: flag, Typed: deploy.TypedString(dv), Raw: dv}
		if e, ok := p.est.With(change); ok && fits(e) {
			desc := fmt.Sprintf("%s %s on the prefill server %s (only decode sets it; kvlint adds flags and does not delete them, so prefill loads the weights as decode does)", flag, dv, where(p.srv))
			out = append(out, setOn(s, p.srv, desc, flag, dv, poolResult(e)))
		}
	}
	return out
}

// tpAgree gives both sides one TP size: the side with more GPUs comes down
// to the other's when its pool still holds its context (no GPU has to be
// found), else the side with fewer goes up (it needs that many GPUs).
func tpAgree(s *Subject) []diag.Fix {
	tp := func(x side) (int, bool) {
		if x.est == nil || x.est.TP < 1 {
			return 0, false
		}
		return x.est.TP, true
	}
	dec := side{s.Server, s.Estimate}
	dt, ok := tp(dec)
	if !ok {
		return nil
	}
	p, pt, ok := agreeOn(prefillPartners(s), tp, dt)
	if !ok {
		return nil
	}
	type option struct {
		x    side
		n    int
		role string
	}
	bigger, smaller := option{dec, pt, "decode"}, option{p, dt, "prefill"}
	if pt > dt {
		bigger, smaller = option{p, dt, "prefill"}, option{dec, pt, "decode"}
	}
	for i, o := range []option{bigger, smaller} {
		e, ok := o.x.est.With(capacity.SetInt("--tp-size", int64(o.n)))
		if !ok || e.TP != o.n || !fits(e) {
			continue
		}
		why := "it then uses fewer GPUs and its pool still holds its context"
		if i == 1 {
			why = fmt.Sprintf("it needs %d GPUs per replica then", o.n*max(e.PP, 1))
		}
		desc := fmt.Sprintf("--tp-size %d on the %s server %s (%s)", o.n, o.role, where(o.x.srv), why)
		return []diag.Fix{setOn(s, o.x.srv, desc, "--tp-size", strconv.Itoa(o.n), poolResult(e))}
	}
	return nil
}

// sglangDefault is the default of an SGLang server flag as its flag table
// reads it from server_args.py, unquoted when it is a string literal
// ('mooncake'); ok is false when the table has no such flag or no
// default.
func sglangDefault(flag string) (string, bool) {
	t := engine.Lookup(engine.SGLangServer)
	if t == nil {
		return "", false
	}
	f, ok := t.Flag(flag)
	if !ok {
		return "", false
	}
	d := strings.TrimSpace(f.Default)
	if n := len(d); n >= 2 && isQuote(d[0]) && d[n-1] == d[0] {
		d = d[1 : n-1]
	}
	return d, d != "" && d != "None"
}
