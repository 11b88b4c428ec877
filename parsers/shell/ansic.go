package shell

import "unicode/utf8"

// ansiC appends the body text[s:e] of a $'...' string with bash's escapes
// decoded. Each decoded byte is placed on the backslash of its escape.
func (x *expander) ansiC(s, e int) {
	t := x.w.text
	for i := s; i < e; i++ {
		c := t[i]
		if c != '\\' || i+1 >= e {
			x.add(c, i)
			continue
		}
		start := i
		i++
		switch n := t[i]; n {
		case 'a':
			x.addSrc('\a', start, -1)
		case 'b':
			x.addSrc('\b', start, -1)
		case 'e', 'E':
			x.addSrc(0x1b, start, -1)
		case 'f':
			x.addSrc('\f', start, -1)
		case 'n':
			x.addSrc('\n', start, -1)
		case 'r':
			x.addSrc('\r', start, -1)
		case 't':
			x.addSrc('\t', start, -1)
		case 'v':
			x.addSrc('\v', start, -1)
		case '\\', '\'', '"', '?':
			x.addSrc(n, start, -1)
		case 'c':
			// \cX is control-X.
			if i+1 < e {
				i++
				x.addSrc(t[i]&0x1f, start, -1)
			} else {
				x.add('\\', start)
				x.add('c', i)
			}
		case 'x', 'u', 'U':
			limit := map[byte]int{'x': 2, 'u': 4, 'U': 8}[n]
			v, j := 0, i+1
			for j < e && j < i+1+limit && isHex(t[j]) {
				v = v*16 + hexVal(t[j])
				j++
			}
			if j == i+1 {
				x.add('\\', start)
				x.add(n, i)
				continue
			}
			i = j - 1
			if n == 'x' {
				x.addSrc(byte(v), start, -1)
				continue
			}
			var buf [utf8.UTFMax]byte
			for _, b := range buf[:utf8.EncodeRune(buf[:], rune(v))] {
				x.addSrc(b, start, -1)
			}
		default:
			if '0' <= n && n <= '7' {
				v, j := 0, i
				for j < e && j < i+3 && '0' <= t[j] && t[j] <= '7' {
					v = v*8 + int(t[j]-'0')
					j++
				}
				i = j - 1
				x.addSrc(byte(v), start, -1)
				continue
			}
			// An unknown escape is kept as written.
			x.add('\\', start)
			x.add(n, i)
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func hexVal(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	default:
		return int(c-'A') + 10
	}
}
