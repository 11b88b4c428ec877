package deploy

import (
	"strconv"
	"strings"
)

// CompareVersions orders PEP 440-like release strings as the engines
// number them: 0.5.3 < 0.5.3.post1 < 0.5.4, 0.5.0rc0 < 0.5.0.
func CompareVersions(a, b string) int {
	ka, kb := versionKey(a), versionKey(b)
	for i := 0; i < len(ka) || i < len(kb); i++ {
		var x, y int
		if i < len(ka) {
			x = ka[i]
		}
		if i < len(kb) {
			y = kb[i]
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

// preReleases ranks PEP 440's pre-release segments: a release's aN <
// bN < rcN < the release itself, each ordered by N
// (https://peps.python.org/pep-0440/#pre-releases). The Rego policies'
// version_key (rules/policies/lib/release.rego) ranks them alike.
var preReleases = []struct {
	tag  string
	base int
}{{"rc", -1000}, {"b", -2000}, {"a", -3000}}

// versionKey is the release numbers (four places), then the pre-release
// (aN: -3000+N, bN: -2000+N, rcN: -1000+N, none: 0) and the post-release
// number.
func versionKey(v string) []int {
	v = strings.TrimPrefix(strings.TrimSpace(v), "v")
	post, pre := 0, 0
	if i := strings.Index(v, ".post"); i >= 0 {
		post, _ = strconv.Atoi(v[i+5:])
		v = v[:i]
	}
	for _, p := range preReleases {
		if i := strings.Index(v, p.tag); i > 0 {
			n, _ := strconv.Atoi(v[i+len(p.tag):])
			pre = p.base + n
			v = strings.TrimSuffix(v[:i], ".")
			break
		}
	}
	k := make([]int, 4, 6)
	for i, p := range strings.SplitN(v, ".", 4) {
		k[i], _ = strconv.Atoi(p)
	}
	return append(k, pre, post)
}

// ValidVersionString reports whether v reads as a release number: digits
// and dots, then an optional rc/post part (0.6.3, 0.4.6.post1, 0.5.0rc0).
func ValidVersionString(v string) bool {
	v = strings.TrimPrefix(v, "v")
	if v == "" || v[0] < '0' || v[0] > '9' {
		return false
	}
	for _, r := range v {
		if !(r >= '0' && r <= '9' || r == '.' || strings.ContainsRune("postrcab", r)) {
			return false
		}
	}
	return true
}
