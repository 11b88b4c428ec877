package engine

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
	"unicode"
)

// ErrOutOfRange marks a number Python would accept (its ints are unbounded)
// but that does not fit an int64. Callers that only need to know whether the
// engine accepts a value should not treat it as invalid.
var ErrOutOfRange = errors.New("out of the int64 range")

// siMultiplier and iecMultiplier are SGLang's suffix tables: SI suffixes
// (decimals allowed) and IEC suffixes (integers only). Suffixes are
// case-sensitive: "1m" and "1K" are errors.
//
// Source: python/sglang/srt/utils/common.py human_readable_int L2848-2880
// (sgl-project/sglang main as mirrored at modal-projects/sglang 8905cbd4).
var (
	siMultiplier  = map[string]int64{"k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
	iecMultiplier = map[string]int64{"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40}
)

// HumanReadableInt parses a value the way SGLang's human_readable_int does
// (the type of --context-length, --max-total-tokens, --max-prefill-tokens):
//
//	value = value.strip()
//	re.fullmatch(r"(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)", value)
//	IEC suffix: decimals rejected, else int(number) * 2**(10n)
//	SI suffix:  int(Decimal(number) * 10**(3n))   (truncates toward zero)
//	otherwise:  int(value)                        (Python's int(): sign, "1_000")
//
// So 32k = 32000, 1M = 10^6, 128Ki = 131072, 1Mi = 2^20, 25.6k = 25600,
// 1.5Ki is an error, and 1m, 1K, 32K are errors.
//
// Source: python/sglang/srt/utils/common.py human_readable_int L2848-2880
// at modal-projects/sglang 8905cbd4.
//
// Divergences, all on input no deployment writes: Python's \d and int()
// accept any Unicode decimal digit, this accepts ASCII digits only; a value
// beyond int64 returns an error wrapping ErrOutOfRange where Python succeeds.
func HumanReadableInt(raw string) (int64, error) {
	value := pyStrip(raw)
	if number, suffix, ok := splitHumanSuffix(value); ok {
		if mult, iec := iecMultiplier[suffix]; iec {
			if strings.Contains(number, ".") {
				return 0, fmt.Errorf("decimals are not allowed with IEC suffixes like %q: use an integer such as %q, or an SI value such as %q",
					suffix, strings.SplitN(number, ".", 2)[0]+suffix, number+suffix[:1])
			}
			n, err := pythonInt(number)
			if err != nil {
				return 0, err
			}
			if n > math.MaxInt64/mult {
				return 0, fmt.Errorf("%q: %w", raw, ErrOutOfRange)
			}
			return n * mult, nil
		}
		return siValue(raw, number, siMultiplier[suffix])
	}
	n, err := pythonInt(value)
	if err != nil {
		if errors.Is(err, ErrOutOfRange) {
			return 0, err
		}
		return 0, fmt.Errorf("invalid integer value: '%s'; use a plain integer, SI suffixes (1k, 1M) or IEC suffixes (1Ki, 1Mi); suffixes are case-sensitive", value)
	}
	return n, nil
}

// splitHumanSuffix matches (\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T) against the
// whole of s. The two-letter IEC suffixes come first in the alternation, so
// "1Mi" is 1 Mi, not "1M" followed by junk.
func splitHumanSuffix(s string) (number, suffix string, ok bool) {
	for _, suf := range []string{"Ki", "Mi", "Gi", "Ti", "k", "M", "G", "T"} {
		if n, found := strings.CutSuffix(s, suf); found && isDecimalNumber(n) {
			return n, suf, true
		}
	}
	return "", "", false
}

// isDecimalNumber matches \d+(?:\.\d+)? with ASCII digits.
func isDecimalNumber(s string) bool {
	intPart, frac, hasDot := strings.Cut(s, ".")
	if !allDigits(intPart) {
		return false
	}
	return !hasDot || allDigits(frac)
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// decimalPrecision is the default precision of Python's decimal context:
// Decimal(number) * mult rounds the product to 28 significant digits
// (ROUND_HALF_EVEN) before int() truncates it.
const decimalPrecision = 28

// siValue computes int(Decimal(number) * mult) exactly as Python does.
func siValue(raw, number string, mult int64) (int64, error) {
	intPart, frac, _ := strings.Cut(number, ".")
	coef, ok := new(big.Int).SetString(intPart+frac, 10)
	if !ok {
		return 0, fmt.Errorf("invalid number %q", number)
	}
	coef.Mul(coef, big.NewInt(mult))
	scale := len(frac) // value = coef * 10^-scale
	if digits := len(coef.String()); digits > decimalPrecision {
		drop := digits - decimalPrecision
		coef = roundHalfEven(coef, drop)
		scale -= drop
	}
	// int() truncates toward zero; a negative scale multiplies.
	ten := big.NewInt(10)
	if scale > 0 {
		coef.Quo(coef, new(big.Int).Exp(ten, big.NewInt(int64(scale)), nil))
	} else if scale < 0 {
		coef.Mul(coef, new(big.Int).Exp(ten, big.NewInt(int64(-scale)), nil))
	}
	if !coef.IsInt64() {
		return 0, fmt.Errorf("%q: %w", raw, ErrOutOfRange)
	}
	return coef.Int64(), nil
}

// roundHalfEven drops the last n decimal digits of a non-negative c,
// rounding half to even, and returns the shortened coefficient.
func roundHalfEven(c *big.Int, n int) *big.Int {
	div := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
	q, r := new(big.Int).QuoRem(c, div, new(big.Int))
	switch r.Mul(r, big.NewInt(2)).Cmp(div) {
	case 1:
		q.Add(q, big.NewInt(1))
	case 0:
		if q.Bit(0) == 1 {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

// pyStrip is Python's str.strip() with no argument: it removes Unicode
// whitespace, which for Python also includes the separators U+001C-U+001F.
func pyStrip(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
	})
}

// pythonInt is Python's int(s) for a str in base 10: surrounding whitespace,
// an optional sign, and single underscores between digits are allowed
// ("+8", " 16 ", "1_000", "007"); anything else is an error.
func pythonInt(s string) (int64, error) {
	t := pyStrip(s)
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg = t[0] == '-'
		t = t[1:]
	}
	digits, ok := pyDigits(t)
	if !ok {
		return 0, fmt.Errorf("invalid literal for int() with base 10: %q", s)
	}
	n, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return 0, fmt.Errorf("invalid literal for int() with base 10: %q", s)
	}
	if neg {
		n.Neg(n)
	}
	if !n.IsInt64() {
		return 0, fmt.Errorf("%q: %w", s, ErrOutOfRange)
	}
	return n.Int64(), nil
}

// pyDigits checks Python's digit-group grammar (digit (["_"] digit)*) and
// returns the digits without underscores.
func pyDigits(t string) (string, bool) {
	if t == "" {
		return "", false
	}
	var b strings.Builder
	prevDigit := false
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case c >= '0' && c <= '9':
			b.WriteByte(c)
			prevDigit = true
		case c == '_' && prevDigit && i+1 < len(t):
			prevDigit = false
		default:
			return "", false
		}
	}
	return b.String(), prevDigit
}
