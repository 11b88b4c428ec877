package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/kvlint/kvlint/deploy"
)

// pyFloatRe is the grammar of Python's float() for a str (after strip):
// digit groups may be separated by single underscores; "inf", "infinity" and
// "nan" (any case, optionally signed) are accepted; hex is not.
var pyFloatRe = regexp.MustCompile(`^[+-]?(?:(?:\d(?:_?\d)*)?\.\d(?:_?\d)*|\d(?:_?\d)*\.?)(?:[eE][+-]?\d(?:_?\d)*)?$`)

// pythonFloat is Python's float(s).
func pythonFloat(s string) (float64, error) {
	t := pyStrip(s)
	switch strings.ToLower(strings.TrimLeft(t, "+-")) {
	case "inf", "infinity":
		if strings.HasPrefix(t, "-") {
			return math.Inf(-1), nil
		}
		return math.Inf(1), nil
	case "nan":
		return math.NaN(), nil
	}
	if strings.Count(t, "+")+strings.Count(t, "-") > 2 || !pyFloatRe.MatchString(t) {
		return 0, fmt.Errorf("could not convert string to float: %q", s)
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(t, "_", ""), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("could not convert string to float: %q", s)
	}
	return f, nil // ErrRange: ParseFloat returns ±Inf or 0 like Python does
}

// typeName is what argparse prints for a type in "invalid %(type)s value":
// the type callable's __name__ (argparse.py _get_value).
func typeName(t string) string {
	if i := strings.LastIndexByte(t, '.'); i >= 0 {
		return t[i+1:]
	}
	return t
}

// convert applies the flag's argparse type to one value and returns what
// argparse stores: an int for type=int, a float, a string, JSON for
// json.loads. A non-nil error is an argparse error: the engine exits. A
// number beyond int64 (Python accepts it; kvlint can't hold it) and a type
// kvlint does not interpret convert without error to KindNone.
func convert(f *Flag, raw string) (deploy.Typed, error) {
	return convertType(f, f.Type, raw)
}

func convertType(f *Flag, typ, raw string) (deploy.Typed, error) {
	switch typ {
	case "int":
		n, err := pythonInt(raw)
		if errors.Is(err, ErrOutOfRange) {
			return deploy.Typed{}, nil
		}
		if err != nil {
			return deploy.Typed{}, fmt.Errorf("invalid int value: %s", pyQuote(raw))
		}
		return deploy.TypedInt(n), nil
	case "float":
		v, err := pythonFloat(raw)
		if err != nil {
			return deploy.Typed{}, fmt.Errorf("invalid float value: %s", pyQuote(raw))
		}
		return deploy.TypedFloat(v), nil
	case "human_readable_int":
		n, err := HumanReadableInt(raw)
		if errors.Is(err, ErrOutOfRange) {
			return deploy.Typed{}, nil
		}
		if err != nil {
			return deploy.Typed{}, err
		}
		return deploy.TypedInt(n), nil
	case "json.loads":
		if !pyJSONValid(raw) {
			return deploy.Typed{}, fmt.Errorf("invalid %s value: %s", typeName(typ), pyQuote(raw))
		}
		return jsonTyped(raw), nil
	case "str":
		return deploy.TypedString(raw), nil
	case "nullable_str":
		// SGLang's nullable_str: "" and "None" are None.
		if raw == "" || raw == "None" {
			return deploy.TypedNull(), nil
		}
		return deploy.TypedString(raw), nil
	}
	return convertVLLM(f, typ, raw)
}

// pyJSONValid approximates json.loads: Go's JSON grammar plus the NaN and
// Infinity constants Python also accepts (so those are never reported).
func pyJSONValid(raw string) bool {
	if json.Valid([]byte(raw)) {
		return true
	}
	return strings.Contains(raw, "NaN") || strings.Contains(raw, "Infinity")
}

// checkChoice compares a value with the choices after type conversion, as
// argparse's _check_value does (an int choice matches "01").
func checkChoice(f *Flag, raw string) error {
	if len(f.Choices) == 0 {
		return nil
	}
	if f.Type == "lower_underscore" {
		raw = lowerUnderscore(raw)
	}
	if strings.HasPrefix(f.Type, "optional:") && (raw == "" || raw == "None") {
		return nil
	}
	if f.Type == "int" {
		n, err := pythonInt(raw)
		if err == nil {
			for _, c := range f.Choices {
				if m, err := strconv.ParseInt(c, 10, 64); err == nil && m == n {
					return nil
				}
			}
		}
	} else {
		for _, c := range f.Choices {
			if c == raw {
				return nil
			}
		}
	}
	msg := fmt.Sprintf("invalid choice: %s (choose from %s)", pyQuote(raw), strings.Join(f.Choices, ", "))
	if f.ChoicesExtensible {
		msg += "; a platform plugin can add choices, so this holds for a stock install"
	}
	return errors.New(msg)
}

// checkRange applies a range the engine validates after parsing.
func checkRange(f *Flag, typed deploy.Typed) error {
	if f.Min == nil && f.Max == nil {
		return nil
	}
	v, numeric := typed.Float()
	if !numeric {
		return nil
	}
	if f.InRange(v) {
		return nil
	}
	return fmt.Errorf("%s must be in %s; %s refuses to start (%s)", f.Name, f.rangeString(), f.engineOrDefault(), f.RangeSource)
}

// InRange says whether v lies inside the range the engine checks for f
// (open or closed at each end); a flag with no range takes any number.
func (f *Flag) InRange(v float64) bool {
	in := !math.IsNaN(v)
	if f.Min != nil {
		in = in && (v > *f.Min || (!f.MinOpen && v == *f.Min))
	}
	if f.Max != nil {
		in = in && (v < *f.Max || (!f.MaxOpen && v == *f.Max))
	}
	return in
}

// validate converts one known value and returns the argparse or engine
// error for it. A value argparse rejects (its type or its choices) has no
// typed value; one outside a range the engine checks after parsing keeps
// it: the number is what was given, and the error says the engine refuses
// to start with it.
func validate(f *Flag, raw string) (deploy.Typed, error) {
	typed, err := convert(f, raw)
	if err != nil {
		return deploy.Typed{}, err
	}
	if err := checkChoice(f, raw); err != nil {
		return deploy.Typed{}, err
	}
	return typed, checkRange(f, typed)
}

// pyQuote renders s as Python's repr() of a str does in argparse messages.
func pyQuote(s string) string {
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		return `"` + s + `"`
	}
	return "'" + strings.ReplaceAll(s, "'", `\'`) + "'"
}
