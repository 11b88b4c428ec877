package capacity

import (
	"fmt"
	"math"
)

// derivedContextLength is SGLang's default --context-length:
// get_context_length (python/sglang/srt/utils/hf_transformers/common.py
// L457-476), called by ModelConfig._derive_context_length
// (configs/model_config.py L729-761). The first of CONTEXT_LENGTH_KEYS in
// the config, times rope_scaling's factor — which counts as 1 when
// original_max_position_embeddings is in rope_scaling or its rope_type is
// "llama3" — truncated to an int; 2048 when no key is present.
// ok is false when the model's source did not state the keys.
func derivedContextLength(m *Model) (n int64, how string, ok bool) {
	if m.ContextUnstated {
		return 0, "", false
	}
	if m.ContextKey == "" {
		return 2048, "the config has none of max_sequence_length, seq_length, max_seq_len, model_max_length, max_position_embeddings: SGLang's fallback 2048", true
	}
	factor := 1.0
	why := ""
	if rs := m.RopeScaling; rs != nil && !rs.empty() {
		if rs.Factor != 0 {
			factor = rs.Factor
		}
		switch {
		case rs.HasOriginalMax:
			factor, why = 1, " (rope_scaling has original_max_position_embeddings, so its factor is not applied)"
		case rs.RopeType == "llama3":
			factor, why = 1, " (rope_type llama3: factor not applied)"
		}
	}
	v := float64(m.ContextValue) * factor
	if v > math.MaxInt64/2 || v < 0 || math.IsNaN(v) {
		return 0, "", false
	}
	n = int64(v)
	if factor == 1 {
		return n, fmt.Sprintf("%s = %d%s", m.ContextKey, m.ContextValue, why), true
	}
	return n, fmt.Sprintf("%s %d × rope_scaling factor %g = %d", m.ContextKey, m.ContextValue, factor, n), true
}

// empty mirrors Python's truthiness of the rope_scaling dict: an empty dict
// applies no factor.
func (r *RopeScaling) empty() bool {
	return r.Type == "" && r.RopeType == "" && r.Factor == 0 && !r.HasOriginalMax
}
