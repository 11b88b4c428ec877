package helm

import "strings"

// maxAlignCells bounds the line-matching table; beyond it only lines that
// occur once in each text are matched.
const maxAlignCells = 4 << 20

// alignment maps offsets of one text (the plain render) to offsets of another
// (a traced render, stripped) line by line: a line of the first that equals a
// matched line of the second maps column for column. When the two texts are
// equal every offset maps to itself.
type alignment struct {
	same     bool
	a, b     *lines
	lineToB  []int // for each line of a (0-based), the matched line of b, or -1
	matched  int   // lines of a that matched
	allLines int
}

func align(a, b string) *alignment {
	al := &alignment{a: newLines(a), b: newLines(b)}
	al.allLines = al.a.count()
	if a == b {
		al.same = true
		al.matched = al.allLines
		return al
	}
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	al.lineToB = make([]int, len(la))
	for i := range al.lineToB {
		al.lineToB[i] = -1
	}
	// Common prefix and suffix first; charts differ in a line or two
	// (a checksum, a name cut by trunc), so this is most of the work.
	p := 0
	for p < len(la) && p < len(lb) && la[p] == lb[p] {
		al.lineToB[p] = p
		p++
	}
	s := 0
	for s < len(la)-p && s < len(lb)-p && la[len(la)-1-s] == lb[len(lb)-1-s] {
		al.lineToB[len(la)-1-s] = len(lb) - 1 - s
		s++
	}
	ma, mb := la[p:len(la)-s], lb[p:len(lb)-s]
	if len(ma) > 0 && len(mb) > 0 {
		var pairs [][2]int
		if len(ma)*len(mb) <= maxAlignCells {
			pairs = lcs(ma, mb)
		} else {
			pairs = uniqueMatches(ma, mb)
		}
		for _, pr := range pairs {
			al.lineToB[p+pr[0]] = p + pr[1]
		}
	}
	for _, j := range al.lineToB {
		if j >= 0 {
			al.matched++
		}
	}
	return al
}

// toB maps an offset of a to b, or -1 when its line has no match.
func (al *alignment) toB(off int) int {
	if al.same {
		return off
	}
	line, col := al.a.position(off)
	if line-1 >= len(al.lineToB) || al.lineToB[line-1] < 0 {
		return -1
	}
	return al.b.lineStart(al.lineToB[line-1]+1) + col - 1
}

// lcs matches the lines of a and b by a longest common subsequence.
func lcs(a, b []string) [][2]int {
	n, m := len(a), len(b)
	t := make([][]int32, n+1)
	for i := range t {
		t[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	var out [][2]int
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case a[i] == b[j]:
			out = append(out, [2]int{i, j})
			i++
			j++
		case t[i+1][j] >= t[i][j+1]:
			i++
		default:
			j++
		}
	}
	return out
}

// uniqueMatches pairs lines that occur exactly once in each text, keeping
// the pairs in increasing order in both.
func uniqueMatches(a, b []string) [][2]int {
	count := func(xs []string) map[string]int {
		m := map[string]int{}
		for _, x := range xs {
			m[x]++
		}
		return m
	}
	ca, cb := count(a), count(b)
	where := map[string]int{}
	for j, x := range b {
		if cb[x] == 1 {
			where[x] = j
		}
	}
	var out [][2]int
	last := -1
	for i, x := range a {
		if ca[x] != 1 {
			continue
		}
		if j, ok := where[x]; ok && j > last {
			out = append(out, [2]int{i, j})
			last = j
		}
	}
	return out
}
