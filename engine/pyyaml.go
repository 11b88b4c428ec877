package engine

import (
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// SGLang loads --config files with PyYAML's yaml.safe_load, which resolves
// plain scalars by YAML 1.1 rules (yes/no/on/off are booleans, 010 is octal,
// 1e3 is a string), and then turns each value into argv text with Python's
// str() (server_args_config_parser.py _convert_config_to_args L141-187).
// yaml.v3 follows YAML 1.2, so the resolution is redone here from the
// scalar's text and style. Regular expressions: PyYAML resolver.py
// (Resolver.add_implicit_resolver for bool, float, int, null).
var (
	yaml11Bool  = regexp.MustCompile(`^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`)
	yaml11Float = regexp.MustCompile(`^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
	yaml11Int   = regexp.MustCompile(`^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$`)
	yaml11Null  = regexp.MustCompile(`^(?:~|null|Null|NULL|)$`)
)

// pyKind is the Python type PyYAML gives a node.
type pyKind int

const (
	pyStr pyKind = iota
	pyBool
	pyInt
	pyFloat
	pyNone
	pyList
	pyDict
)

// pyScalar is a resolved scalar: its Python type and its str() text.
type pyScalar struct {
	kind pyKind
	text string // str(value) in Python
	b    bool
}

// resolveScalar resolves a scalar node as PyYAML's safe_load would.
func resolveScalar(n *yaml.Node) pyScalar {
	tag := n.Tag
	plain := n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) == 0
	explicit := n.Style&yaml.TaggedStyle != 0
	v := n.Value
	switch {
	case explicit && tag == "!!str":
		return pyScalar{kind: pyStr, text: v}
	case (plain && !explicit && yaml11Null.MatchString(v)) || (explicit && tag == "!!null"):
		return pyScalar{kind: pyNone, text: "None"}
	case (plain && !explicit && yaml11Bool.MatchString(v)) || (explicit && tag == "!!bool"):
		b := false
		switch strings.ToLower(v) {
		case "yes", "true", "on":
			b = true
		}
		if b {
			return pyScalar{kind: pyBool, text: "True", b: true}
		}
		return pyScalar{kind: pyBool, text: "False"}
	case (plain && !explicit && yaml11Int.MatchString(v)) || (explicit && tag == "!!int"):
		if s, ok := yaml11IntText(v); ok {
			return pyScalar{kind: pyInt, text: s}
		}
	case (plain && !explicit && yaml11Float.MatchString(v)) || (explicit && tag == "!!float"):
		if f, ok := yaml11FloatValue(v); ok {
			return pyScalar{kind: pyFloat, text: pyFloatRepr(f)}
		}
	}
	return pyScalar{kind: pyStr, text: v}
}

// yaml11IntText is PyYAML's construct_yaml_int, printed in decimal.
func yaml11IntText(v string) (string, bool) {
	s := strings.ReplaceAll(v, "_", "")
	sign := ""
	if s != "" && (s[0] == '-' || s[0] == '+') {
		if s[0] == '-' {
			sign = "-"
		}
		s = s[1:]
	}
	n := new(big.Int)
	var ok bool
	switch {
	case s == "0":
		return "0", true
	case strings.HasPrefix(s, "0b"):
		_, ok = n.SetString(s[2:], 2)
	case strings.HasPrefix(s, "0x"):
		_, ok = n.SetString(s[2:], 16)
	case strings.HasPrefix(s, "0"):
		_, ok = n.SetString(s[1:], 8)
	case strings.Contains(s, ":"):
		ok = true
		for _, d := range strings.Split(s, ":") {
			m, err := strconv.ParseInt(d, 10, 64)
			if err != nil {
				return "", false
			}
			n.Mul(n, big.NewInt(60)).Add(n, big.NewInt(m))
		}
	default:
		_, ok = n.SetString(s, 10)
	}
	if !ok {
		return "", false
	}
	if n.Sign() == 0 {
		return "0", true
	}
	return sign + n.String(), true
}

// yaml11FloatValue is PyYAML's construct_yaml_float.
func yaml11FloatValue(v string) (float64, bool) {
	s := strings.ToLower(strings.ReplaceAll(v, "_", ""))
	sign := 1.0
	if s != "" && (s[0] == '-' || s[0] == '+') {
		if s[0] == '-' {
			sign = -1
		}
		s = s[1:]
	}
	switch {
	case s == ".inf":
		return sign * math.Inf(1), true
	case s == ".nan":
		return math.NaN(), true
	case strings.Contains(s, ":"):
		parts := strings.Split(s, ":")
		f := 0.0
		for _, d := range parts {
			x, err := strconv.ParseFloat(d, 64)
			if err != nil {
				return 0, false
			}
			f = f*60 + x
		}
		return sign * f, true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false
	}
	return sign * f, true
}

// pyFloatRepr is Python's repr(float) (also its str()): the shortest digits
// that round-trip, in positional notation when the decimal exponent is in
// [-4, 16), else in scientific notation with a signed two-digit exponent;
// integral values keep a ".0" (Python/pystrtod.c format_float_short, 'r').
func pyFloatRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	sign := ""
	if e[0] == '-' {
		sign, e = "-", e[1:]
	}
	mant, expText, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expText)
	digits := strings.Replace(mant, ".", "", 1)
	decpt := exp + 1 // value = 0.digits × 10^decpt
	if decpt <= -4 || decpt > 16 {
		m := digits[:1]
		if len(digits) > 1 {
			m += "." + digits[1:]
		}
		es := "+"
		if exp < 0 {
			es, exp = "-", -exp
		}
		return sign + m + "e" + es + pad2(exp)
	}
	switch {
	case decpt <= 0:
		return sign + "0." + strings.Repeat("0", -decpt) + digits
	case decpt >= len(digits):
		return sign + digits + strings.Repeat("0", decpt-len(digits)) + ".0"
	default:
		return sign + digits[:decpt] + "." + digits[decpt:]
	}
}

func pad2(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// renderBudget bounds how many nodes one rendering visits: aliases can
// make a small file expand exponentially ("billion laughs").
const renderBudget = 100000

// pyStrNode renders a node as Python's str() of what safe_load returns.
// Scalars give their str(); a list or dict nested in a list gives its repr.
func pyStrNode(n *yaml.Node) string {
	n = deref(n)
	switch n.Kind {
	case yaml.ScalarNode:
		return resolveScalar(n).text
	case yaml.SequenceNode, yaml.MappingNode:
		budget := renderBudget
		return pyRepr(n, &budget)
	}
	return ""
}

func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// pyRepr renders a node as Python's repr() of its value.
func pyRepr(n *yaml.Node, budget *int) string { return pythonRepr.render(n, budget) }

// jsonDumps renders a node as Python's json.dumps() of its value (default
// separators ", " and ": ", ensure_ascii), which SGLang uses for a dict
// value (server_args_config_parser.py L155-156).
func jsonDumps(n *yaml.Node, budget *int) string { return pythonJSON.render(n, budget) }

// pyRendering is what repr() and json.dumps() share: a list in [], a dict
// in {} with ", " and ": " between items. They differ in how a scalar and
// a dict key are written, and in what stands for a node with no value.
type pyRendering struct {
	scalar func(pyScalar) string
	key    func(pyScalar) string
	none   string
}

var (
	pythonRepr = pyRendering{scalar: reprScalar, key: reprScalar, none: ""}
	pythonJSON = pyRendering{scalar: jsonScalar, key: jsonKey, none: "null"}
)

func (r pyRendering) render(n *yaml.Node, budget *int) string {
	n = deref(n)
	if *budget--; *budget < 0 {
		return "..."
	}
	switch n.Kind {
	case yaml.SequenceNode:
		parts := make([]string, len(n.Content))
		for i, c := range n.Content {
			parts[i] = r.render(c, budget)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case yaml.MappingNode:
		var parts []string
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := deref(n.Content[i])
			var key string
			if k.Kind == yaml.ScalarNode {
				key = r.key(resolveScalar(k))
			} else {
				key = r.render(k, budget)
			}
			parts = append(parts, key+": "+r.render(n.Content[i+1], budget))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case yaml.ScalarNode:
		return r.scalar(resolveScalar(n))
	}
	return r.none
}

func reprScalar(s pyScalar) string {
	if s.kind == pyStr {
		return pyQuote(s.text)
	}
	return s.text
}

// jsonKey is a dict key as json.dumps writes it: always a string, with
// True/False/None spelled as JSON spells them.
func jsonKey(s pyScalar) string {
	key := s.text
	switch s.kind {
	case pyBool:
		key = strings.ToLower(key)
	case pyNone:
		key = "null"
	}
	return jsonString(key)
}

func jsonScalar(s pyScalar) string {
	switch s.kind {
	case pyStr:
		return jsonString(s.text)
	case pyBool:
		return strings.ToLower(s.text)
	case pyNone:
		return "null"
	case pyFloat:
		switch s.text {
		case "nan":
			return "NaN"
		case "inf":
			return "Infinity"
		case "-inf":
			return "-Infinity"
		}
	}
	return s.text
}

// jsonString quotes s as json.dumps does with ensure_ascii=True.
func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20 || (r >= 0x7f && r <= 0xffff):
			b.WriteString(`\u` + hex4(int(r)))
		case r > 0xffff:
			r -= 0x10000
			b.WriteString(`\u` + hex4(0xd800+int(r>>10)) + `\u` + hex4(0xdc00+int(r&0x3ff)))
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func hex4(n int) string {
	s := strconv.FormatInt(int64(n), 16)
	return strings.Repeat("0", 4-len(s)) + s
}
