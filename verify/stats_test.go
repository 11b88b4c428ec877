package verify

import (
	"math"
	"math/rand/v2"
	"testing"
)

// shifted returns n hit times with the first k below every miss time (n miss times of 100…),
// so D⁺ is exactly k/n.
func shifted(n, k int) (hit, miss []float64) {
	for i := range n {
		miss = append(miss, 100+float64(i))
		if i < k {
			hit = append(hit, float64(i)-1000)
		} else {
			hit = append(hit, 100+float64(i)+0.5)
		}
	}
	return hit, miss
}

// TestKSGreaterMatchesGuReleasedPValues pins the exact p-values to the ones leakage.md §1.1
// recomputed from Gu et al.'s released data (scipy ks_2samp, alternative="greater", n=m=250).
func TestKSGreaterMatchesGuReleasedPValues(t *testing.T) {
	cases := []struct {
		k    int
		d, p float64
	}{
		{72, 0.288, 7.7e-10},
		{103, 0.412, 1.1e-19},
		{130, 0.52, 1.7e-31},
		{250, 1.0, 8.6e-150},
	}
	for _, tc := range cases {
		hit, miss := shifted(250, tc.k)
		d, p := KSGreater(hit, miss)
		if math.Abs(d-tc.d) > 1e-12 {
			t.Errorf("k=%d: D⁺ = %v, want %v", tc.k, d, tc.d)
		}
		if rel := math.Abs(p-tc.p) / tc.p; rel > 0.05 {
			t.Errorf("D⁺=%v: p = %.3g, want %.2g", tc.d, p, tc.p)
		}
	}
}

func TestKSGreaterIsOneSided(t *testing.T) {
	hit, miss := shifted(50, 50)
	// Misses are never faster than hits: the "greater" statistic of miss against hit is 0.
	if d, p := KSGreater(miss, hit); d != 0 || p != 1 {
		t.Errorf("reversed samples: D⁺ %v p %v; want 0 and 1", d, p)
	}
	if d, p := KSGreater(hit, hit); d != 0 || p != 1 {
		t.Errorf("identical samples: D⁺ %v p %v; want 0 and 1", d, p)
	}
	if d, p := KSGreater(nil, hit); d != 0 || p != 1 {
		t.Errorf("empty sample: D⁺ %v p %v", d, p)
	}
}

func TestKSGreaterTies(t *testing.T) {
	// All values equal: no gap, whatever the order the ties are visited in.
	x := []float64{5, 5, 5, 5}
	y := []float64{5, 5, 5, 5}
	if d, _ := KSGreater(x, y); d != 0 {
		t.Errorf("tied samples: D⁺ = %v, want 0", d)
	}
	// x = {1,2,2,3}, y = {2,2,3,4}: F_x − F_y is 1/4 at 1, 1/4 at 2, 1/4 at 3, 0 at 4.
	if d, _ := KSGreater([]float64{1, 2, 2, 3}, []float64{2, 2, 3, 4}); d != 0.25 {
		t.Errorf("D⁺ = %v, want 0.25", d)
	}
}

func TestKSGreaterSmallExact(t *testing.T) {
	// n = m = 2: of the C(4,2) = 6 equally likely orderings, D⁺ ≥ 1/2 in C(4,1) = 4 and
	// D⁺ = 1 in C(4,0) = 1.
	if p := exactKSGreater(2, 1); math.Abs(p-4.0/6) > 1e-12 {
		t.Errorf("P(D⁺ ≥ 1/2) = %v, want 2/3", p)
	}
	if p := exactKSGreater(2, 2); math.Abs(p-1.0/6) > 1e-12 {
		t.Errorf("P(D⁺ ≥ 1) = %v, want 1/6", p)
	}
	// Brute force over every interleaving of 4 + 4 distinct values.
	n := 4
	counts := map[int]int{}
	total := 0
	for mask := 0; mask < 1<<(2*n); mask++ {
		if popcount(mask) != n {
			continue
		}
		total++
		var x, y []float64
		for b := 0; b < 2*n; b++ {
			if mask&(1<<b) != 0 {
				x = append(x, float64(b))
			} else {
				y = append(y, float64(b))
			}
		}
		d, _ := KSGreater(x, y)
		counts[int(math.Round(d*float64(n)))]++
	}
	atLeast := 0
	for k := n; k >= 1; k-- {
		atLeast += counts[k]
		if got, want := exactKSGreater(n, k), float64(atLeast)/float64(total); math.Abs(got-want) > 1e-12 {
			t.Errorf("P(D⁺ ≥ %d/%d) = %v, brute force %v", k, n, got, want)
		}
	}
}

func popcount(x int) int {
	c := 0
	for ; x > 0; x &= x - 1 {
		c++
	}
	return c
}

func TestKSGreaterUnequalSizesAsymptotic(t *testing.T) {
	hit := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	var miss []float64
	for i := range 20 {
		miss = append(miss, 100+float64(i))
	}
	d, p := KSGreater(hit, miss)
	want := math.Exp(-2 * 1 * 10 * 20 / 30.0)
	if d != 1 || math.Abs(p-want)/want > 1e-12 {
		t.Errorf("D⁺ %v p %v; want 1 and %v", d, p, want)
	}
}

// TestKSGreaterAACalibration is leakage.md §5.2's calibration on a small scale: two samples
// from one distribution give p-values that look uniform and never fall absurdly low.
func TestKSGreaterAACalibration(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	below05, below001 := 0, 0
	const runs = 400
	for range runs {
		x, y := make([]float64, 60), make([]float64, 60)
		for i := range x {
			x[i], y[i] = r.NormFloat64(), r.NormFloat64()
		}
		_, p := KSGreater(x, y)
		if p < 0.05 {
			below05++
		}
		if p < 1e-3 {
			below001++
		}
	}
	// The exact test is conservative on a lattice: at most about 5% below 0.05.
	if below05 > runs*9/100 || below001 > 2 {
		t.Errorf("A/A: %d of %d p-values below 0.05, %d below 1e-3", below05, runs, below001)
	}
}

func TestAUC(t *testing.T) {
	cases := []struct {
		name string
		x, y []float64
		want float64
	}{
		{"separated", []float64{1, 2}, []float64{3, 4}, 1},
		{"reversed", []float64{3, 4}, []float64{1, 2}, 0},
		{"all tied", []float64{1, 1}, []float64{1, 1}, 0.5},
		// pairs (x<y): 1<2,1<4,3<4 = 3; ties: none; of 4 pairs.
		{"interleaved", []float64{1, 3}, []float64{2, 4}, 0.75},
		// x=2 against {2,3}: one tie (0.5) and one win (1) → 1.5 of 2.
		{"one tie", []float64{2}, []float64{2, 3}, 0.75},
	}
	for _, tc := range cases {
		if got := AUC(tc.x, tc.y); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: AUC %v, want %v", tc.name, got, tc.want)
		}
	}
	if !math.IsNaN(AUC(nil, []float64{1})) {
		t.Error("AUC of an empty sample should be NaN")
	}
}

func TestMedian(t *testing.T) {
	if m := median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("median %v", m)
	}
	if m := median([]float64{4, 1, 2, 3}); m != 2.5 {
		t.Errorf("median %v", m)
	}
}

// TestKSPowerFollowsTheEffect: against no effect the simulated power is about α (here 0);
// against a shift larger than the noise it is 1; against a shift on only a small share of
// the hit arm (a round-robin router that primes few replicas) it falls.
func TestKSPowerFollowsTheEffect(t *testing.T) {
	r := newRand(1, "t")
	miss := make([]float64, 60)
	for i := range miss {
		miss[i] = 1000 + 100*r.Float64() // noise of 100 µs
	}
	if p := ksPower(miss, 0, 1, 1e-6, newRand(2, "p")); p > 0.01 {
		t.Errorf("power against no effect = %.3f", p)
	}
	if p := ksPower(miss, 500, 1, 1e-6, newRand(2, "p")); p < 0.99 {
		t.Errorf("power against a 500 µs shift = %.3f", p)
	}
	if p := ksPower(miss, 500, 0.25, 1e-6, newRand(2, "p")); p > 0.5 {
		t.Errorf("power against a shift on a quarter of the hits = %.3f", p)
	}
	if p := ksPower(nil, 500, 1, 1e-6, newRand(2, "p")); !math.IsNaN(p) {
		t.Errorf("power without a MISS sample = %g, want NaN", p)
	}
}
