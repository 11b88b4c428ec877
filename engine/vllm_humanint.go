package engine

import (
	"fmt"
	"math"
	"strings"
)

// vLLM's human_readable_int reads its suffixes differently from SGLang's
// (HumanReadableInt): one letter, lowercase decimal and uppercase binary.
//
// Source: vllm/utils/argparse_utils.py human_readable_int at vllm-project/vllm
// 9aaf83ef502f (the commit of data/vllm_serve.tsv).
var (
	vllmDecimalSuffix = map[byte]float64{'k': 1e3, 'm': 1e6, 'g': 1e9, 't': 1e12}
	vllmBinarySuffix  = map[byte]int64{'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30, 'T': 1 << 40}
)

// VLLMHumanReadableInt parses a value the way vLLM's human_readable_int does
// (the type of --max-num-batched-tokens and --kv-cache-memory-bytes, and of
// --max-model-len through human_readable_int_or_auto):
//
//	value = value.strip()
//	re.fullmatch(r"(\d+(?:\.\d+)?)([kKmMgGtT])", value)
//	lowercase (decimal): int(float(number) * 10**(3n))
//	uppercase (binary):  int(number) * 2**(10n); a decimal number is an
//	                     ArgumentTypeError
//	otherwise:           int(value)
//
// So 1k = 1000, 1K = 1024, 25.6k = 25600, 1m = 10^6, 1M = 2^20, 32K = 32768,
// and 1.5K is rejected — unlike SGLang, where 1K is an error and 1M is 10^6.
// The decimal product is a float64, as in Python: 1.005k is 1004.
//
// Divergences on input no deployment writes: ASCII digits only (the regex
// module's \d and int() accept any Unicode digit); a value beyond int64
// returns an error wrapping ErrOutOfRange where Python succeeds.
func VLLMHumanReadableInt(raw string) (int64, error) {
	value := pyStrip(raw)
	if n := len(value); n >= 2 && isDecimalNumber(value[:n-1]) {
		number, suffix := value[:n-1], value[n-1]
		if mult, ok := vllmDecimalSuffix[suffix]; ok {
			f, err := pythonFloat(number)
			if err != nil {
				return 0, err
			}
			v := math.Trunc(f * mult)
			if v >= math.MaxInt64 || math.IsInf(v, 0) {
				return 0, fmt.Errorf("%q: %w", raw, ErrOutOfRange)
			}
			return int64(v), nil
		}
		if mult, ok := vllmBinarySuffix[suffix]; ok {
			if strings.Contains(number, ".") {
				return 0, argumentTypeError(fmt.Sprintf("Decimals are not allowed with binary suffixes like %c. Did you mean to use %s%c instead?", suffix, number, suffix+('a'-'A')))
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
	}
	return pythonInt(value)
}

// VLLMHumanReadableIntOrAuto is human_readable_int_or_auto, the type of
// --max-model-len: "-1" or "auto" (any case) mean -1, fit the context to
// the memory; anything else is VLLMHumanReadableInt.
func VLLMHumanReadableIntOrAuto(raw string) (int64, error) {
	value := pyStrip(raw)
	if value == "-1" || strings.EqualFold(value, "auto") {
		return -1, nil
	}
	return VLLMHumanReadableInt(value)
}
