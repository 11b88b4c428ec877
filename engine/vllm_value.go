package engine

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/kvlint/kvlint/deploy"
)

// engineOrDefault names the engine a flag belongs to in messages.
func (f *Flag) engineOrDefault() string {
	if f.engine == "" {
		return "SGLang"
	}
	return f.engine
}

// vllmTypeRepr is how Python prints a type callable in vLLM's parse_type
// error ("Value x cannot be converted to <class 'int'>.", arg_utils.py
// parse_type).
var vllmTypeRepr = map[string]string{
	"int":                             "<class 'int'>",
	"float":                           "<class 'float'>",
	"str":                             "<class 'str'>",
	"json.loads":                      "<function loads>",
	"json":                            "<function loads>",
	"vllm_human_readable_int":         "<function human_readable_int>",
	"vllm_human_readable_int_or_auto": "<function human_readable_int_or_auto>",
}

// dictLike is union_dict_and_str's test for a JSON object
// (arg_utils.py union_dict_and_str: re.match(r"(?s)^\s*{.*}\s*$", val)).
var dictLike = regexp.MustCompile(`(?s)^\s*\{.*\}\s*$`)

// convertVLLM applies the argparse types of vLLM's table
// (arg_utils.py _compute_kwargs, optional_type, parse_type).
func convertVLLM(f *Flag, typ, raw string) (deploy.Typed, error) {
	if inner, ok := strings.CutPrefix(typ, "optional:"); ok {
		// optional_type: "" and "None" are None; any other value goes
		// through parse_type, which turns a ValueError into
		// "Value x cannot be converted to <type>.".
		if raw == "" || raw == "None" {
			return deploy.TypedNull(), nil
		}
		typed, err := convertType(f, inner, raw)
		var ate argumentTypeError
		if err != nil && !errors.As(err, &ate) {
			//lint:ignore ST1005 vLLM's own message, quoted as the user would see it
			return deploy.Typed{}, fmt.Errorf("Value %s cannot be converted to %s.", raw, reprOf(inner))
		}
		return typed, err
	}
	switch typ {
	case "vllm_human_readable_int", "vllm_human_readable_int_or_auto":
		parse := VLLMHumanReadableInt
		if typ == "vllm_human_readable_int_or_auto" {
			parse = VLLMHumanReadableIntOrAuto
		}
		n, err := parse(raw)
		switch {
		case errors.Is(err, ErrOutOfRange):
			return deploy.Typed{}, nil
		case errors.As(err, new(argumentTypeError)):
			return deploy.Typed{}, err
		case err != nil:
			return deploy.Typed{}, fmt.Errorf("invalid %s value: %s (vLLM reads 1k as 1000 and 1K as 1024)", strings.TrimPrefix(typ, "vllm_"), pyQuote(raw))
		}
		return deploy.TypedInt(n), nil
	case "json":
		// A config dataclass: pydantic validate_json after the
		// human-readable numbers are expanded; @config forbids unknown keys.
		if err := checkConfigJSON(f, raw); err != nil {
			return deploy.Typed{}, err
		}
		return jsonTyped(expandHumanNumbers(raw)), nil
	case "union_dict_and_str":
		if !dictLike.MatchString(raw) {
			return deploy.TypedString(raw), nil
		}
		if !pyJSONValid(raw) {
			//lint:ignore ST1005 vLLM's own message, quoted as the user would see it
			return deploy.Typed{}, fmt.Errorf("Value %s cannot be converted to <function loads>.", raw)
		}
		return jsonTyped(raw), nil
	case "lower_underscore":
		return deploy.TypedString(lowerUnderscore(raw)), nil
	}
	// A type function kvlint does not interpret (SGLang's
	// parse_cuda_graph_config_arg, json_list_type): accepted, not typed.
	return deploy.Typed{}, nil
}

// argumentTypeError is an argparse.ArgumentTypeError a type function raises
// itself (human_readable_int's decimals-with-binary-suffix error): argparse
// prints its message as is, and optional_type does not rewrap it.
type argumentTypeError string

func (e argumentTypeError) Error() string { return string(e) }

func reprOf(typ string) string {
	if r, ok := vllmTypeRepr[typ]; ok {
		return r
	}
	return typ
}

// lowerUnderscore is the type add_cli_args gives --moe-backend and
// --linear-backend: lambda s: s.lower().replace("-", "_").
func lowerUnderscore(s string) string {
	return strings.ReplaceAll(strings.ToLower(s), "-", "_")
}

// checkConfigJSON is the parse of a config dataclass flag
// (arg_utils.py _compute_kwargs parse_dataclass): the human-readable numbers
// are expanded, then pydantic validate_json needs a JSON object. Unknown keys
// are reported per key when the value is spread (finishVLLM).
func checkConfigJSON(f *Flag, raw string) error {
	text := expandHumanNumbers(raw)
	if !pyJSONValid(text) {
		return argumentTypeError(fmt.Sprintf("%s takes a JSON object (or dotted keys, %s.KEY VALUE); %s is not valid JSON, so pydantic's validate_json fails and argparse exits", f.Name, f.Name, pyQuote(raw)))
	}
	if n, ok := decodeJSON(text); ok && n.kind != 'o' {
		return argumentTypeError(fmt.Sprintf("%s takes a JSON object (or dotted keys, %s.KEY VALUE), not %s: pydantic's validate_json fails and argparse exits", f.Name, f.Name, pyQuote(raw)))
	}
	return nil
}
