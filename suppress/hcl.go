package suppress

import (
	"regexp"
	"strings"
)

// hclHeredoc opens a heredoc: <<EOT or <<-EOT.
var hclHeredoc = regexp.MustCompile(`^<<-?([A-Za-z_][A-Za-z0-9_-]*)\s*$`)

// hclScanner tokenizes HCL enough to find comments: # and // to the end of
// the line, /* */ across lines, but not inside "strings" (whose ${ }
// interpolations may hold strings of their own) or heredocs.
type hclScanner struct {
	lay   *layout
	modes []byte // open contexts: 's' string, 'i' ${ } interpolation, 'b' { } inside one
	depth int    // open brackets in code
	// depthAt[n] is the bracket depth at the start of line n (n ≤ lines+1).
	depthAt []int
	// heredocEnd[n] is the last line of a heredoc opened on line n.
	heredocEnd map[int]int
}

// scanHCL finds the comments of an HCL file (Terraform .tf, .tfvars, .hcl).
// A line's extent is the line where the brackets it opens close (a block,
// a list, a map), or the end of a heredoc it opens.
// https://github.com/hashicorp/hcl/blob/main/hclsyntax/spec.md#comments-and-whitespace
func scanHCL(lines []string) *layout {
	h := &hclScanner{lay: newLayout(len(lines)), depthAt: make([]int, len(lines)+2), heredocEnd: map[int]int{}}
	var block *comment // an open /* comment
	var blockText strings.Builder
	heredoc, heredocStart := "", 0
	for idx, text := range lines {
		n := idx + 1
		h.depthAt[n] = h.depth
		if heredoc != "" {
			if strings.TrimSpace(text) == heredoc {
				h.heredocEnd[heredocStart] = n
				heredoc = ""
			}
			continue
		}
		code := false // the line has something besides comments
		for i := 0; i < len(text); {
			if block != nil {
				j := strings.Index(text[i:], "*/")
				if j < 0 {
					blockText.WriteString(text[i:] + "\n")
					break
				}
				blockText.WriteString(text[i : i+j])
				block.endLine, block.endCol = n, i+j+3
				block.own = block.own && isBlank(text[i+j+2:])
				block.text = strings.TrimSpace(blockText.String())
				h.lay.add(*block)
				block = nil
				i += j + 2
				continue
			}
			c := text[i]
			next := byte(0)
			if i+1 < len(text) {
				next = text[i+1]
			}
			if top := h.top(); top == 's' {
				switch {
				case c == '\\':
					i += 2
				case c == '"':
					h.pop()
					i++
				case (c == '$' || c == '%') && next == c:
					i += 2 // $${ and %%{ are literal
				case (c == '$' || c == '%') && next == '{':
					h.modes = append(h.modes, 'i')
					i += 2
				default:
					i++
				}
				continue
			}
			switch {
			case c == ' ' || c == '\t':
				i++
				continue
			case c == '#' || (c == '/' && next == '/'):
				start := i + 1
				if c == '/' {
					start = i + 2
				}
				h.lay.add(comment{line: n, col: i + 1, endCol: len(text) + 1, text: text[start:], own: !code})
				i = len(text)
				continue
			case c == '/' && next == '*':
				block = &comment{line: n, col: i + 1, own: !code}
				blockText.Reset()
				i += 2
				continue
			case c == '"':
				h.modes = append(h.modes, 's')
			case c == '<' && next == '<' && len(h.modes) == 0:
				if m := hclHeredoc.FindStringSubmatch(text[i:]); m != nil {
					heredoc, heredocStart = m[1], n
					i = len(text)
					code = true
					continue
				}
			case c == '{' || c == '[' || c == '(':
				if len(h.modes) > 0 {
					h.modes = append(h.modes, 'b')
				} else {
					h.depth++
				}
			case c == '}' || c == ']' || c == ')':
				if len(h.modes) > 0 {
					h.pop() // closes a 'b', or an interpolation back to its string
				} else if h.depth > 0 {
					h.depth--
				}
			}
			code = true
			i++
		}
	}
	h.depthAt[len(lines)+1] = h.depth
	h.lay.extent = func(line int) int {
		if line < 1 || line > len(lines) {
			return line
		}
		last := line
		if h.depthAt[line+1] > h.depthAt[line] {
			last = len(lines)
			for n := line + 1; n <= len(lines); n++ {
				if h.depthAt[n+1] <= h.depthAt[line] {
					last = n
					break
				}
			}
		}
		for n := line; n <= last; n++ {
			last = max(last, h.heredocEnd[n])
		}
		return last
	}
	return h.lay
}

func (h *hclScanner) top() byte {
	if len(h.modes) == 0 {
		return 0
	}
	return h.modes[len(h.modes)-1]
}

func (h *hclScanner) pop() {
	if len(h.modes) > 0 {
		h.modes = h.modes[:len(h.modes)-1]
	}
}
