package capacity

import "testing"

// The default --mem-fraction-static against the worked values of the
// reference sheet (sglang.md §2.4, from server_args.py
// _handle_gpu_memory_settings L3867-4062 and reserve_for_graph_mb L4131-4163).
func TestDefaultMemFractionWorkedValues(t *testing.T) {
	if n := len(prefillCaptureSizes(8192)); n != 58 {
		t.Fatalf("prefill capture sizes up to 8192: %d, want 58", n)
	}
	// H100 (81,559 MiB), non-MLA, tp 1, chunked 8192, decode max_bs 256,
	// 58 prefill sizes: reserved = 512 + 1.5×8192 + 128 + 2×256 + 8×58 = 13,904.
	h100 := memFractionInput{GPUMiB: 81559, TP: 1, PP: 1, DP: 1, DisaggMode: "null", ChunkedPrefill: 8192,
		MaxPrefillTokens: 16384, DecodeGraph: true, DecodeMaxBS: 256, PrefillGraph: true, PrefillCaptures: 58}
	frac, steps := defaultMemFraction(h100)
	if frac != 0.830 {
		t.Errorf("H100 mem_fraction_static = %v, want 0.830", frac)
	}
	if !containsText(steps, "= 13904 MiB") {
		t.Errorf("reserved is not 13,904 MiB: %q", steps)
	}
	// H200 (143,771 MiB), tp 8: decode max_bs 512 → reserved 15,312 → 0.893.
	h200 := h100
	h200.GPUMiB, h200.TP, h200.DecodeMaxBS = 143771, 8, 512
	if frac, _ := defaultMemFraction(h200); frac != 0.893 {
		t.Errorf("H200 tp8 mem_fraction_static = %v, want 0.893", frac)
	}
	if frac, _ := defaultMemFraction(memFractionInput{}); frac != 0.88 {
		t.Errorf("unknown GPU: %v, want 0.88", frac)
	}
}

func TestMemDefaultsByGPUMemory(t *testing.T) {
	tests := []struct {
		mib            int64
		tp             int
		chunked, maxBS int
	}{
		{15360, 1, 2048, 8},   // T4
		{23034, 1, 2048, 24},  // L4
		{23034, 4, 2048, 80},  // L4 tp4
		{46068, 2, 4096, 32},  // L40S
		{81559, 1, 8192, 256}, // H100
		{81559, 8, 8192, 512},
		{143771, 8, 8192, 512},  // H200
		{183359, 8, 16384, 512}, // B200
		{0, 1, 4096, 160},       // unknown
	}
	for _, tt := range tests {
		c, bs := memDefaults(tt.mib, tt.tp)
		if c != tt.chunked || bs != tt.maxBS {
			t.Errorf("memDefaults(%d, %d) = %d, %d; want %d, %d", tt.mib, tt.tp, c, bs, tt.chunked, tt.maxBS)
		}
	}
}

// The default through EstimateServer, where the CUDA-graph settings come from
// the flags and the model.
func TestDefaultMemFractionFromServer(t *testing.T) {
	tests := []struct {
		name  string
		model string
		gpu   string
		args  []string
		want  float64
		// reserved is the reserved MiB the derivation must show ("" = unchecked).
		reserved string
	}{
		{"H100 worked value", "meta-llama/Llama-3.1-8B-Instruct", "H100", nil, 0.830, "= 13904 MiB"},
		{"H200 tp8", "meta-llama/Llama-3.1-70B-Instruct", "H200", []string{"--tp-size", "8"}, 0.893, "= 15312 MiB"},
		// MLA disables the default (breakable) prefill CUDA graph, so no
		// prefill reserve: 512 + 12288 + 1024 + 2×512 = 14,848.
		{"DeepSeek-V3 H200 tp8", "deepseek-ai/DeepSeek-V3", "H200", []string{"--tp-size", "8"}, 0.897, "= 14848 MiB"},
		// DP attention adds 3×512×8 + 1.5×512×8 (max_bs > 300):
		// 512 + 12288 + 1024 + 1024 + 12288 + 6144 = 33,280.
		{"DeepSeek-V3 H200 DP attention", "deepseek-ai/DeepSeek-V3", "H200", []string{"--tp-size", "8", "--dp-size", "8", "--enable-dp-attention", ""}, 0.769, "= 33280 MiB"},
		// PD decode: activation max(64, 2048) → 512 + 3072 + 1024 + 1024 = 5,632,
		// raised to the 10,240 floor.
		{"PD decode H100 tp8", "meta-llama/Llama-3.1-70B-Instruct", "H100", []string{"--tp-size", "8", "--disaggregation-mode", "decode", "--max-running-requests", "64"}, 0.874, "= 5632 MiB"},
		// PD prefill: no decode graph; the breakable prefill graph stays (58
		// sizes): 512 + 12288 + 1024 + 464 = 14,288.
		{"PD prefill H100 tp8", "meta-llama/Llama-3.1-70B-Instruct", "H100", []string{"--tp-size", "8", "--disaggregation-mode", "prefill"}, 0.825, "= 14288 MiB"},
		// --disable-cuda-graph: 512 + 12288 + 128 = 12,928.
		{"no CUDA graph", "meta-llama/Llama-3.1-8B-Instruct", "H100", []string{"--disable-cuda-graph", ""}, 0.841, "= 12928 MiB"},
		// --chunked-prefill-size 16384 (74 prefill sizes) and decode max_bs 128:
		// 512 + 24576 + 128 + 2×128 + 8×74 = 26,064.
		{"larger chunks", "meta-llama/Llama-3.1-8B-Instruct", "H100", []string{"--chunked-prefill-size", "16384", "--cuda-graph-max-bs-decode", "128"}, 0.680, "= 26064 MiB"},
		// --max-total-tokens caps the prefill capture sizes at 4096 (50 sizes):
		// 512 + 12288 + 128 + 512 + 400 = 13,840.
		{"max-total-tokens caps prefill captures", "meta-llama/Llama-3.1-8B-Instruct", "H100", []string{"--max-total-tokens", "4096"}, 0.830, "= 13840 MiB"},
		// The deprecated --cuda-graph-max-bs spelling, if the parser keeps it.
		{"deprecated max-bs flag", "meta-llama/Llama-3.1-8B-Instruct", "H100", []string{"--cuda-graph-max-bs", "128"}, 0.833, "= 13648 MiB"},
		// An explicit decode batch list: its largest entry is the max.
		{"decode bs list", "meta-llama/Llama-3.1-8B-Instruct", "H100", []string{"--cuda-graph-bs-decode", "1 2 4 8 64"}, 0.834, "= 13520 MiB"},
		{"unknown GPU", "meta-llama/Llama-3.1-8B-Instruct", "", nil, 0.88, ""},
		{"explicit", "meta-llama/Llama-3.1-8B-Instruct", "H100", []string{"--mem-fraction-static", "0.9"}, 0.9, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			est := EstimateServer(server(tt.model, tt.gpu, tt.args...), Options{})
			if est.MemFractionStatic == nil {
				t.Fatalf("no mem fraction; assumptions %q", est.Assumptions)
			}
			if *est.MemFractionStatic != tt.want {
				t.Errorf("mem_fraction_static = %v, want %v\n%q", *est.MemFractionStatic, tt.want, est.Derivation)
			}
			if tt.reserved != "" && !containsText(est.Derivation, tt.reserved) {
				t.Errorf("derivation does not reserve %q:\n%q", tt.reserved, est.Derivation)
			}
		})
	}
}
