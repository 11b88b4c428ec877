package suppress

import (
	"regexp"
	"strings"
)

var (
	// A parser directive (# escape=`) among the first lines of a Dockerfile.
	dockerDirective = regexp.MustCompile(`^#\s*([a-zA-Z]+)\s*=\s*(\S+)\s*$`)
	// A heredoc in an instruction: <<EOF, <<-EOF, <<"EOF".
	dockerHeredoc = regexp.MustCompile(`<<(-?)["']?([A-Za-z_][A-Za-z0-9_]*)["']?`)
)

// scanDockerfile finds Dockerfile comments: lines whose first non-blank
// character is "#" (a "#" later in a line is an argument, and comment lines
// inside a continued instruction are removed by the builder). A line's
// extent is the end of the instruction it belongs to, continuation lines and
// heredoc bodies included.
// https://docs.docker.com/reference/dockerfile/#format
func scanDockerfile(lines []string) *layout {
	lay := newLayout(len(lines))
	escape := `\`
	for _, text := range lines {
		m := dockerDirective.FindStringSubmatch(text)
		if m == nil {
			break
		}
		if strings.EqualFold(m[1], "escape") {
			escape = m[2]
		}
	}
	endOf := make([]int, len(lines)+2)
	var members []int // the lines of the current instruction
	finish := func() {
		if len(members) > 0 {
			last := members[len(members)-1]
			for _, n := range members {
				endOf[n] = last
			}
		}
		members = members[:0]
	}
	cont := false
	heredoc, strip := "", false
	for i, text := range lines {
		n := i + 1
		trimmed := strings.TrimSpace(text)
		if heredoc != "" {
			members = append(members, n)
			end := text
			if strip {
				end = strings.TrimLeft(text, "\t")
			}
			if end == heredoc {
				heredoc = ""
				if !cont {
					finish()
				}
			}
			continue
		}
		if strings.HasPrefix(trimmed, "#") {
			h := strings.Index(text, "#")
			lay.add(comment{line: n, col: h + 1, endCol: len(text) + 1, text: text[h+1:], own: true})
			continue
		}
		if trimmed == "" {
			continue // blank lines inside a continuation are skipped too
		}
		if !cont {
			finish()
		}
		members = append(members, n)
		cont = strings.HasSuffix(strings.TrimRight(text, " \t"), escape)
		if m := dockerHeredoc.FindStringSubmatch(text); m != nil {
			heredoc, strip = m[2], m[1] == "-"
			continue
		}
		if !cont {
			finish()
		}
	}
	finish()
	lay.extent = func(line int) int {
		if line < len(endOf) && endOf[line] > line {
			return endOf[line]
		}
		return line
	}
	return lay
}
