package engine

import "strings"

// suggest finds the option a mistyped one most likely meant: the same name
// with dashes for underscores, else the closest option string by edit
// distance (Damerau-Levenshtein, optimal string alignment) when it is close
// enough to be a typo. It returns the flag and the option string matched
// (which may be an alias), or nil.
func (t *Table) suggest(written string) (*Flag, string) {
	if !strings.HasPrefix(written, "-") {
		return nil, ""
	}
	// "-tp" for "--tp": a single dash where two were meant.
	candidates := []string{written, strings.ReplaceAll(written, "_", "-")}
	if !strings.HasPrefix(written, "--") {
		candidates = append(candidates, "-"+written, "-"+strings.ReplaceAll(written, "_", "-"))
	}
	for _, c := range candidates[1:] {
		if f, ok := t.byOpt[c]; ok && f.Action != "help" {
			return f, c
		}
	}
	// A unique prefix after the spelling fix ("--tp_size" → "--tp-size",
	// "-tp" → "--tp" → "--tp-size").
	for _, c := range candidates[1:] {
		var match string
		n := 0
		for _, o := range t.options {
			if strings.HasPrefix(o, c) {
				match = o
				n++
			}
		}
		if n == 1 && c != written {
			return t.byOpt[match], match
		}
	}
	best, bestOpt, bestDist := (*Flag)(nil), "", 1<<30
	name := strings.TrimLeft(written, "-")
	budget := typoBudget(len(name))
	for _, o := range t.options {
		f := t.byOpt[o]
		other := strings.TrimLeft(o, "-")
		if f.Action == "help" || abs(len(other)-len(name)) > budget {
			continue // the length alone rules it out
		}
		d := EditDistance(name, other)
		if d < bestDist {
			best, bestOpt, bestDist = f, o, d
		}
	}
	if best == nil || bestDist > budget {
		return nil, ""
	}
	return best, bestOpt
}

// typoBudget is how many edits still look like a typo of a name this long:
// one in a short name, two in a medium one, three in a long one.
func typoBudget(n int) int {
	switch {
	case n <= 5:
		return 1
	case n <= 14:
		return 2
	default:
		return 3
	}
}

// EditDistance is the optimal-string-alignment distance: insertions,
// deletions, substitutions and transpositions of adjacent bytes.
func EditDistance(a, b string) int {
	if len(a) > 256 || len(b) > 256 {
		return 1 << 30 // nothing that long is a typo of a flag name
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
