package rules

import (
	"context"
	"math"
	"strconv"
	"testing"

	"github.com/kvlint/kvlint/capacity"
	"github.com/kvlint/kvlint/deploy"
)

// FuzzEvaluate feeds the policies odd numbers (zero, negative, huge) in every
// capacity fact they read: Evaluate must never fail on them, since a
// builtin error would abort the whole run, and every finding must point at a
// written span.
func FuzzEvaluate(f *testing.F) {
	f.Add(int64(61440), int64(-1), int64(131072), int64(1<<34), int64(1), int64(0), int64(1), int64(0), int64(0), 0.83, int64(1<<36), int64(1<<34))
	f.Add(int64(0), int64(0), int64(0), int64(0), int64(0), int64(0), int64(0), int64(0), int64(0), 0.0, int64(0), int64(0))
	f.Add(int64(-5), int64(32000), int64(65536), int64(-1), int64(64), int64(64), int64(8), int64(3), int64(12), 0.5, int64(-1), int64(7))
	f.Add(int64(math.MaxInt64), int64(math.MaxInt64), int64(math.MaxInt64), int64(math.MinInt64), int64(math.MaxInt64), int64(math.MaxInt64), int64(math.MaxInt64), int64(math.MaxInt64), int64(math.MaxInt64), math.MaxFloat64, int64(math.MaxInt64), int64(math.MaxInt64))
	f.Add(int64(1), int64(1), int64(2), int64(0), int64(-3), int64(-1), int64(-2), int64(-4), int64(-1), -1.0, int64(-7), int64(-9))
	e := engine(f)
	f.Fuzz(func(t *testing.T, pool, bound, ctx, budget, page, mrr, dp, replicas, expected int64, mf float64, gpuMem, weights int64) {
		opt := func(v int64) *int64 {
			if v == -1 {
				return nil // -1 stands for unknown
			}
			return &v
		}
		file := "serve.sh"
		srv := &deploy.Server{
			Engine: deploy.EngineSGLang, Role: deploy.RoleDecode, Span: span(file, 3, 1, "python3"),
			Args: map[string]deploy.Value{
				"--page-size":            arg(file, 4, 3, "x"),
				"--enable-dp-attention":  arg(file, 5, 3, "true"),
				"--max-running-requests": arg(file, 6, 3, "x"),
			},
			Replicas: deploy.Known(strconv.FormatInt(replicas, 10), deploy.Span{}),
			Opaque:   []deploy.Value{deploy.Unknown("$EXTRA", span(file, 7, 3, "$EXTRA"))},
		}
		est := capacity.Estimate{
			Engine: deploy.EngineSGLang, DP: int(dp % (1 << 20)), PageSize: int(page % (1 << 20)),
			PoolTokens: opt(pool), PoolUpperBound: opt(bound), ContextLength: opt(ctx), ContextSource: "flag",
			KVBudgetBytes: opt(budget), MaxRunningRequests: opt(mrr), MemFractionStatic: &mf,
			GPUMemoryBytes: opt(gpuMem), WeightsBytesPerGPU: opt(weights),
			Missing: []string{"gpu", "model"},
		}
		settings := Settings{ExpectedConcurrency: int(expected % (1 << 20))}
		findings, err := e.Evaluate(context.Background(), []*deploy.Server{srv}, []capacity.Estimate{est}, settings)
		if err != nil {
			t.Fatalf("Evaluate: %v", err)
		}
		for _, fd := range findings {
			if fd.Span.IsZero() || fd.Message == "" {
				t.Errorf("finding %+v points nowhere or says nothing", fd)
			}
		}
	})
}
