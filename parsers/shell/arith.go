package shell

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// arith evaluates an arithmetic expansion $((...)) when every operand is a
// literal or a known variable holding an integer. Assignments, ++/--, and
// anything that could fail at run time (division by zero) are left unknown.
func (x *expander) arith(e syntax.ArithmExpr) (int64, bool) {
	switch n := e.(type) {
	case *syntax.ParenArithm:
		return x.arith(n.X)
	case *syntax.UnaryArithm:
		if n.Op == syntax.Inc || n.Op == syntax.Dec {
			x.st.forget(arithTarget(n.X))
			return 0, false
		}
		v, ok := x.arith(n.X)
		if !ok {
			return 0, false
		}
		switch n.Op {
		case syntax.Plus:
			return v, true
		case syntax.Minus:
			return -v, true
		case syntax.Not:
			return b2i(v == 0), true
		case syntax.BitNegation:
			return ^v, true
		}
		return 0, false
	case *syntax.BinaryArithm:
		if n.Op == syntax.TernQuest {
			cond, ok := x.arith(n.X)
			alt, isAlt := n.Y.(*syntax.BinaryArithm)
			if !ok || !isAlt || alt.Op != syntax.TernColon {
				return 0, false
			}
			if cond != 0 {
				return x.arith(alt.X)
			}
			return x.arith(alt.Y)
		}
		if isArithAssign(n.Op) {
			x.arith(n.Y)
			x.st.forget(arithTarget(n.X))
			return 0, false
		}
		a, ok := x.arith(n.X)
		if !ok {
			return 0, false
		}
		b, ok := x.arith(n.Y)
		if !ok {
			return 0, false
		}
		return binaryArith(n.Op, a, b)
	case *syntax.Word:
		f, _ := x.w.expandString(n, x.st)
		if !f.known {
			return 0, false
		}
		return x.operand(strings.TrimSpace(string(f.raw)), 0)
	}
	return 0, false
}

// operand reads an integer literal, or the name of a variable holding one.
func (x *expander) operand(s string, depth int) (int64, bool) {
	if s == "" {
		return 0, true // bash treats an empty or unset operand as 0
	}
	if isName(s) {
		v, ok := x.st.lookup(s)
		if !ok || depth > 8 {
			return 0, false
		}
		if v.unset {
			return 0, true
		}
		return x.operand(strings.TrimSpace(v.val.Raw), depth+1)
	}
	base := 10
	switch {
	case strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X"):
		s, base = s[2:], 16
	case len(s) > 1 && s[0] == '0':
		s, base = s[1:], 8
	case strings.Contains(s, "#"):
		return 0, false // base#digits
	}
	v, err := strconv.ParseInt(s, base, 64)
	return v, err == nil
}

func binaryArith(op syntax.BinAritOperator, a, b int64) (int64, bool) {
	switch op {
	case syntax.Add:
		return a + b, true
	case syntax.Sub:
		return a - b, true
	case syntax.Mul:
		return a * b, true
	case syntax.Quo:
		if b == 0 {
			return 0, false
		}
		return a / b, true
	case syntax.Rem:
		if b == 0 {
			return 0, false
		}
		return a % b, true
	case syntax.Pow:
		if b < 0 {
			return 0, false
		}
		r := int64(1)
		for ; b > 0; b >>= 1 {
			if b&1 == 1 {
				r *= a
			}
			a *= a
		}
		return r, true
	case syntax.Eql:
		return b2i(a == b), true
	case syntax.Neq:
		return b2i(a != b), true
	case syntax.Lss:
		return b2i(a < b), true
	case syntax.Leq:
		return b2i(a <= b), true
	case syntax.Gtr:
		return b2i(a > b), true
	case syntax.Geq:
		return b2i(a >= b), true
	case syntax.And:
		return a & b, true
	case syntax.Or:
		return a | b, true
	case syntax.Xor:
		return a ^ b, true
	case syntax.Shl:
		return a << (uint64(b) & 63), true
	case syntax.Shr:
		return a >> (uint64(b) & 63), true
	case syntax.AndArit:
		return b2i(a != 0 && b != 0), true
	case syntax.OrArit:
		return b2i(a != 0 || b != 0), true
	case syntax.Comma:
		return b, true
	}
	return 0, false
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func isArithAssign(op syntax.BinAritOperator) bool {
	switch op {
	case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn,
		syntax.RemAssgn, syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn,
		syntax.ShrAssgn, syntax.AndBoolAssgn, syntax.OrBoolAssgn, syntax.XorBoolAssgn, syntax.PowAssgn:
		return true
	}
	return false
}

// arithTarget names the variable an arithmetic assignment or ++/-- writes.
func arithTarget(e syntax.ArithmExpr) map[string]bool {
	if w, ok := e.(*syntax.Word); ok {
		if name := w.Lit(); isName(name) {
			return map[string]bool{name: true}
		}
	}
	if w, ok := e.(*syntax.Word); ok && len(w.Parts) == 1 {
		if p, ok := w.Parts[0].(*syntax.ParamExp); ok && p.Param != nil {
			return map[string]bool{p.Param.Value: true}
		}
	}
	return nil
}
