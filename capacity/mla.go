package capacity

// IsMLA reports whether SGLang serves the model with multi-head latent
// attention (configs/model_config.py _derive_model_shapes, the MLA branch):
// its KV cell is one latent vector per token, replicated on every attention-TP
// rank, so prefill and decode servers may shard it differently. For other
// models a different TP size on each side of a PD pair takes the slow or
// unsupported paths of disaggregation/common/conn.py.
func (m *Model) IsMLA() bool { return m.isMLA() }
