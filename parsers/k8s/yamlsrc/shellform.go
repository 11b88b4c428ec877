package yamlsrc

import "strings"

// shells are the programs whose -c option takes a script.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "ash": true, "zsh": true, "ksh": true}

// ShellScript recognises the `sh -c SCRIPT` form of a container's argv
// (Kubernetes command+args, a compose entrypoint+command): words[0] names a
// POSIX shell (through /usr/bin/env too), options follow, and one of them is
// a cluster with c in it (-c, -ec, -lc, -xec). It returns the index of the
// script word, or -1 when argv is not that form. Words after the script are
// the script's $0, $1, ….
func ShellScript(words []string) int {
	i := 0
	if i < len(words) && base(words[i]) == "env" {
		i++
		for i < len(words) && strings.Contains(words[i], "=") && !strings.HasPrefix(words[i], "-") {
			i++
		}
	}
	if i >= len(words) || !shells[base(words[i])] {
		return -1
	}
	for i++; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "-o" || w == "+o" || w == "-O" || w == "+O":
			i++ // the option's name
		case w == "--":
			return -1
		case strings.HasPrefix(w, "--"):
			// --login, --norc, --noprofile: no argument
		case strings.HasPrefix(w, "-") && len(w) > 1:
			if strings.Contains(w, "c") {
				if i+1 < len(words) {
					return i + 1
				}
				return -1
			}
		case strings.HasPrefix(w, "+") && len(w) > 1:
		default:
			return -1 // a script file, not -c
		}
	}
	return -1
}

func base(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
