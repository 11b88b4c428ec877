package sarif

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
)

// TestGitHubConstraints checks every log in the corpus (each example, each
// end-to-end script's fixtures, the synthetic runs) against what GitHub code
// scanning documents for uploads (github/docs sarif-support.md, summarised in
// the shared reference linters.md §5), and against what kvlint promises on
// top: fingerprints on every result, relative URIs, every rule described.
func TestGitHubConstraints(t *testing.T) {
	logs := corpus(t)
	want := []string{}
	for _, r := range engine(t).Rules() {
		want = append(want, r.ID)
	}
	for _, name := range slices.Sorted(maps.Keys(logs)) {
		t.Run(name, func(t *testing.T) {
			for _, problem := range githubProblems(logs[name], want) {
				t.Error(problem)
			}
		})
	}
}

var (
	lineHashPattern = regexp.MustCompile(`^[0-9a-f]{1,16}:[1-9][0-9]*$`)
	levels          = []string{"none", "note", "warning", "error"}
	precisions      = []string{"very-high", "high", "medium", "low"}
)

// githubProblems lists every way data breaks GitHub's upload constraints or
// kvlint's own promises; wantRules are rule IDs the driver must describe.
func githubProblems(data []byte, wantRules []string) []string {
	var p problems
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(data)
	zw.Close()
	p.check(gz.Len() <= 10<<20, "gzip-compressed size %d is over 10 MB", gz.Len())

	doc, err := jsonValue(data)
	if err != nil {
		return []string{"not JSON: " + err.Error()}
	}
	p.noNulls("", doc)
	log := obj(doc)
	p.check(str(log["version"]) == "2.1.0", "version %v, want 2.1.0", log["version"])
	p.check(str(log["$schema"]) != "", "no $schema")
	runs := arr(log["runs"])
	p.check(len(runs) == 1, "%d runs, want exactly 1 (several runs of one tool and category are rejected)", len(runs))
	if len(runs) == 0 {
		return p
	}
	run := obj(runs[0])

	driver := obj(obj(run["tool"])["driver"])
	p.check(str(driver["name"]) == "kvlint", "tool.driver.name %v", driver["name"])
	p.check(str(driver["semanticVersion"]) != "", "no tool.driver.semanticVersion")
	p.check(strings.HasPrefix(str(driver["informationUri"]), "https://"), "informationUri %v", driver["informationUri"])
	ruleList, isArray := driver["rules"].([]any)
	rulesArr := ruleList
	p.check(isArray, "tool.driver.rules is not an array")
	p.check(len(ruleList) <= 25000, "%d rules, over 25,000", len(ruleList))
	var ids []string
	for i, r := range ruleList {
		rule := obj(r)
		id := str(rule["id"])
		at := fmt.Sprintf("rules[%d] %s", i, id)
		p.check(id != "", "%s: no id", at)
		p.check(!slices.Contains(ids, id), "%s: duplicate id", at)
		ids = append(ids, id)
		p.check(len(str(rule["name"])) <= 255, "%s: name longer than 255", at)
		for _, key := range []string{"shortDescription", "fullDescription"} {
			text := str(obj(rule[key])["text"])
			p.check(text != "", "%s: no %s.text", at, key)
			p.check(len(utf16.Encode([]rune(text))) <= 1024, "%s: %s longer than 1024 characters", at, key)
		}
		help := obj(rule["help"])
		p.check(str(help["text"]) != "", "%s: no help.text", at)
		p.check(str(help["markdown"]) != "", "%s: no help.markdown", at)
		base, _, _ := strings.Cut(id, "/")
		p.check(str(rule["helpUri"]) == RuleDocURL(base), "%s: helpUri %v", at, rule["helpUri"])
		p.check(slices.Contains(levels[1:], str(obj(rule["defaultConfiguration"])["level"])),
			"%s: defaultConfiguration.level %v", at, obj(rule["defaultConfiguration"])["level"])
		props := obj(rule["properties"])
		tags := arr(props["tags"])
		p.check(len(tags) <= 20, "%s: %d tags, over 20", at, len(tags))
		p.check(slices.Contains(precisions, str(props["precision"])), "%s: precision %v", at, props["precision"])
		if ss, ok := props["security-severity"]; ok {
			s, isString := ss.(string)
			f, err := strconv.ParseFloat(s, 64)
			p.check(isString && err == nil && f > 0 && f <= 10, "%s: security-severity %#v is not a number string in (0, 10]", at, ss)
		}
	}
	for _, id := range wantRules {
		p.check(slices.Contains(ids, id), "rule %s is not described", id)
	}

	results, isArray := run["results"].([]any)
	p.check(isArray, "run.results is missing or not an array (GitHub rejects a run without it, even when clean)")
	p.check(len(results) <= 25000, "%d results, over 25,000", len(results))
	baseIDs := obj(run["originalUriBaseIds"])
	for i, r := range results {
		res := obj(r)
		at := fmt.Sprintf("results[%d] %v", i, res["ruleId"])
		idx, isNum := res["ruleIndex"].(float64)
		p.check(isNum && int(idx) >= 0 && int(idx) < len(ids) && ids[int(idx)] == str(res["ruleId"]),
			"%s: ruleIndex %v does not point at rule %v", at, res["ruleIndex"], res["ruleId"])
		p.check(slices.Contains(levels, str(res["level"])), "%s: level %v", at, res["level"])
		if isNum && int(idx) >= 0 && int(idx) < len(rulesArr) {
			sev := str(obj(res["properties"])["severity"])
			shown := githubSeverity(obj(rulesArr[int(idx)]), res)
			p.check(shown == sev, "%s: GitHub would show severity %q, kvlint says %q", at, shown, sev)
		}
		p.check(str(obj(res["message"])["text"]) != "", "%s: no message.text", at)
		locs := arr(res["locations"])
		p.check(len(locs) == 1, "%s: %d locations, want 1", at, len(locs))
		for _, l := range locs {
			p.location(at+" location", l, baseIDs, true)
		}
		related := arr(res["relatedLocations"])
		p.check(len(related) <= 1000, "%s: %d related locations, over 1,000", at, len(related))
		for j, l := range related {
			p.location(fmt.Sprintf("%s relatedLocations[%d]", at, j), l, baseIDs, true)
		}
		hash := str(obj(res["partialFingerprints"])["primaryLocationLineHash"])
		p.check(lineHashPattern.MatchString(hash), "%s: primaryLocationLineHash %q", at, hash)
		for j, s := range arr(res["suppressions"]) {
			kind := str(obj(s)["kind"])
			p.check(kind == "inSource" || kind == "external", "%s: suppressions[%d].kind %q", at, j, kind)
		}
	}

	id := str(obj(run["automationDetails"])["id"])
	p.check(strings.Contains(id, "/") && !strings.HasPrefix(id, "/"), "automationDetails.id %q has no category", id)
	invs := arr(run["invocations"])
	p.check(len(invs) >= 1, "no invocations")
	if len(invs) > 0 {
		inv := obj(invs[0])
		_, hasCode := inv["exitCode"].(float64)
		_, hasSuccess := inv["executionSuccessful"].(bool)
		p.check(hasCode, "invocations[0] has no exitCode")
		p.check(hasSuccess, "invocations[0] has no executionSuccessful")
		for j, n := range arr(inv["toolExecutionNotifications"]) {
			at := fmt.Sprintf("toolExecutionNotifications[%d]", j)
			p.check(str(obj(obj(n)["message"])["text"]) != "", "%s: no message", at)
			for _, l := range arr(obj(n)["locations"]) {
				p.location(at, l, baseIDs, false)
			}
		}
	}
	return p
}

type problems []string

func (p *problems) check(ok bool, format string, args ...any) {
	if !ok {
		*p = append(*p, fmt.Sprintf(format, args...))
	}
}

// location checks a location's URI and, when needRegion, its region.
func (p *problems) location(at string, l any, baseIDs map[string]any, needRegion bool) {
	phys := obj(obj(l)["physicalLocation"])
	art := obj(phys["artifactLocation"])
	uri := str(art["uri"])
	u, err := url.Parse(uri)
	p.check(uri != "" && err == nil, "%s: uri %q is not a URI reference", at, uri)
	p.check(!strings.Contains(uri, `\`), "%s: uri %q has a backslash", at, uri)
	if err == nil && u.Scheme == "" {
		base := str(art["uriBaseId"])
		p.check(base == SrcRoot, "%s: relative uri %q has uriBaseId %q, want %s", at, uri, base, SrcRoot)
		p.check(baseIDs[base] != nil, "%s: uriBaseId %q is not in originalUriBaseIds", at, base)
		p.check(!strings.HasPrefix(u.Path, "/") && !strings.HasPrefix(u.Path, "../"), "%s: uri %q leaves %s", at, uri, SrcRoot)
	} else if err == nil {
		p.check(u.Scheme == "file", "%s: uri %q has scheme %q; only file is accepted beside the checkout", at, uri, u.Scheme)
	}
	reg, hasRegion := phys["region"]
	if !needRegion && !hasRegion {
		return
	}
	r := obj(reg)
	num := func(k string) int {
		f, ok := r[k].(float64)
		if !ok {
			return -1
		}
		return int(f)
	}
	sl, sc, el, ec := num("startLine"), num("startColumn"), num("endLine"), num("endColumn")
	p.check(sl >= 1, "%s: startLine %v, want ≥ 1", at, r["startLine"])
	p.check(sc >= 1, "%s: startColumn %v, want ≥ 1", at, r["startColumn"])
	p.check(el >= sl, "%s: endLine %v before startLine %v", at, r["endLine"], r["startLine"])
	p.check(ec >= 1, "%s: endColumn %v, want ≥ 1", at, r["endColumn"])
	p.check(el > sl || ec >= sc, "%s: endColumn %d before startColumn %d on one line", at, ec, sc)
}

// noNulls reports JSON nulls: the schema allows none where kvlint writes
// them, and GitHub rejects empty required properties.
func (p *problems) noNulls(path string, v any) {
	switch v := v.(type) {
	case nil:
		*p = append(*p, "null at "+path)
	case map[string]any:
		for k, e := range v {
			p.noNulls(path+"."+k, e)
		}
	case []any:
		for i, e := range v {
			p.noNulls(fmt.Sprintf("%s[%d]", path, i), e)
		}
	}
}

func obj(v any) map[string]any { m, _ := v.(map[string]any); return m }
func arr(v any) []any          { a, _ := v.([]any); return a }
func str(v any) string         { s, _ := v.(string); return s }

// githubSeverity is the severity GitHub code scanning shows for a result
// under descriptor rule, as its documentation says it derives it
// (sarif-support-for-code-scanning, "reportingDescriptor object"): the
// descriptor's properties.security-severity decides, by band (over 9.0
// critical, 7.0–8.9 high, 4.0–6.9 medium, 0.1–3.9 low), whatever the
// result says; a rule without one is not a security alert and shows the
// result's level, which for kvlint is only ever info as a note.
func githubSeverity(rule, result map[string]any) string {
	ss, ok := obj(rule["properties"])["security-severity"].(string)
	if !ok {
		if str(result["level"]) == "note" {
			return "info"
		}
		return "level " + str(result["level"])
	}
	f, err := strconv.ParseFloat(ss, 64)
	switch {
	case err != nil || f <= 0 || f > 10:
		return "invalid " + ss
	case f >= 9.0:
		return "critical"
	case f >= 7.0:
		return "high"
	case f >= 4.0:
		return "medium"
	}
	return "low"
}
