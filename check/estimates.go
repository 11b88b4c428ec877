package check

import (
	"slices"
	"strings"

	"github.com/kvlint/kvlint/capacity"
)

// noteLists keeps one copy of each distinct list of capacity notes
// (Derivation, Assumptions, Missing). Servers of a large repository repeat a
// few hundred estimates: at 50,000 generated files 18,837 servers have 732
// distinct estimates, and their derivations held ~15 MB of identical text
// until the report was written.
type noteLists map[string][]string

// share returns a list equal to l, the first one seen with this content.
// The lists it returns are clipped, so an append copies instead of writing
// into a list other estimates hold.
func (m noteLists) share(l []string) []string {
	if len(l) == 0 {
		return l // nil and empty stay as they were
	}
	key := strings.Join(l, "\x00")
	if s, ok := m[key]; ok && slices.Equal(s, l) {
		return s
	}
	l = slices.Clip(l)
	m[key] = l
	return l
}

// shareNotes makes est hold the shared copies of its note lists.
func (m noteLists) shareNotes(est *capacity.Estimate) {
	est.Derivation = m.share(est.Derivation)
	est.Assumptions = m.share(est.Assumptions)
	est.Missing = m.share(est.Missing)
}
