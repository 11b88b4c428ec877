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
			x.add('\a', start)
		case 'b':
			x.add('\b', start)
		case 'e', 'E':
			x.add(0x1b, start)
		case 'f':
			x.add('\f', start)
		case 'n':
			x.add('\n', start)
		case 'r':
			x.add('\r', start)
		case 't':
			x.add('\t', start)
		case 'v':
			x.add('\v', start)
		case '\\', '\'', '"', '?':
			x.add(n, start)
		case 'c':
			// \cX is control-X.
			if i+1 < e {
				i++
				x.add(t[i]&0x1f, start)
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
				x.add(byte(v), start)
				continue
			}
			var buf [utf8.UTFMax]byte
			for _, b := range buf[:utf8.EncodeRune(buf[:], rune(v))] {
				x.add(b, start)
			}
		default:
			if '0' <= n && n <= '7' {
				v, j := 0, i
				for j < e && j < i+3 && '0' <= t[j] && t[j] <= '7' {
					v = v*8 + int(t[j]-'0')
					j++
				}
				i = j - 1
				x.add(byte(v), start)
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
