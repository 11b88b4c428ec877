package report

import (
	"testing"

	"github.com/kvlint/kvlint/capacity"
	"github.com/kvlint/kvlint/deploy"
)

func i64(n int64) *int64 { return &n }

func TestMemoryBarDrawsUnknownPartsAsUnknown(t *testing.T) {
	s := &deploy.Server{Name: "s", Role: deploy.RoleColocated}
	for _, c := range []struct {
		name string
		e    capacity.Estimate
		// kinds are the segments left to right; unknownGiB is the width of
		// the unknown one in GiB of the bar.
		kinds      []string
		unknownGiB float64
	}{
		{
			name: "weights unknown",
			e:    capacity.Estimate{GPUMemoryBytes: i64(80 << 30), KVBudgetBytes: i64(50 << 30)},
			// The budget is known, so its part is drawn; the weights and the
			// rest are not, and share what it leaves.
			kinds: []string{"unknown", "kv"}, unknownGiB: 30,
		},
		{
			name:  "pool unknown",
			e:     capacity.Estimate{GPUMemoryBytes: i64(80 << 30), WeightsBytesPerGPU: i64(16 << 30)},
			kinds: []string{"weights", "unknown"}, unknownGiB: 64,
		},
		{
			name: "everything known",
			e: capacity.Estimate{GPUMemoryBytes: i64(80 << 30), WeightsBytesPerGPU: i64(16 << 30), KVBudgetBytes: i64(48 << 30),
				PoolTokens: i64(1 << 20), CellBytesPerToken: i64(48 << 10)},
			kinds: []string{"weights", "kv", "reserve"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := memoryBar(s, c.e, 0)
			var kinds []string
			x := 0.0
			for _, seg := range b.Segments {
				kinds = append(kinds, seg.Kind)
				if seg.X < x-0.2 || seg.X > x+0.2 {
					t.Errorf("%s starts at %v, after %v", seg.Kind, seg.X, x)
				}
				x = seg.X + seg.W
				if seg.Kind == "unknown" {
					if want := c.unknownGiB / 80 * barWidth; seg.W < want-0.2 || seg.W > want+0.2 {
						t.Errorf("unknown part %v wide, want %v", seg.W, want)
					}
					if seg.Label == "" {
						t.Error("unknown part without a label")
					}
				}
			}
			if len(kinds) != len(c.kinds) {
				t.Fatalf("segments %v, want %v", kinds, c.kinds)
			}
			for i := range kinds {
				if kinds[i] != c.kinds[i] {
					t.Fatalf("segments %v, want %v", kinds, c.kinds)
				}
			}
			if x < barWidth-0.5 || x > barWidth+0.5 {
				t.Errorf("segments end at %v, the bar is %v", x, barWidth)
			}
		})
	}
}

func TestDemandCountsAsKV102(t *testing.T) {
	ctx := i64(32768)
	for _, c := range []struct {
		name     string
		s        *deploy.Server
		e        capacity.Estimate
		expected int
		want     int64
	}{
		{"running requests", &deploy.Server{}, capacity.Estimate{ContextLength: ctx, MaxRunningRequests: i64(8), DP: 1}, 100, 8 * 32768},
		{"expected over replicas and dp", &deploy.Server{Replicas: deploy.Value{Raw: "2", Known: true}}, capacity.Estimate{ContextLength: ctx, DP: 2}, 10, 3 * 32768},
		{"nothing declared", &deploy.Server{}, capacity.Estimate{ContextLength: ctx}, 0, 32768},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, _, ok := demand(c.s, c.e, c.expected)
			if !ok || got != c.want {
				t.Errorf("demand = %d, %v; want %d", got, ok, c.want)
			}
		})
	}
	if _, why, ok := demand(&deploy.Server{}, capacity.Estimate{}, 4); ok || why == "" {
		t.Errorf("an unknown context gave a demand")
	}
}
