package verify

import (
	"math"
	"math/rand/v2"
	"slices"
)

// KSGreater is the one-sided two-sample Kolmogorov–Smirnov test of Gu et al.'s prompt-caching
// audit, scipy.stats.ks_2samp(x, y, alternative="greater"): the null hypothesis is that x is
// not stochastically smaller than y (F_x(t) <= F_y(t) for every t), the alternative that it
// is, as cache-hit times are against miss times. It returns
//
//	D⁺ = max_t (F_x(t) − F_y(t))   (0 when either sample is empty)
//
// and its p-value. With equal sample sizes the p-value is exact, from the Gnedenko–Korolyuk
// lattice-path count P(D⁺ ≥ k/n) = C(2n, n−k) / C(2n, n), which is what scipy's exact method
// gives (leakage.md §1.1: D⁺ = 0.288 at n = m = 250 is p = 7.7e-10). With unequal sizes it is
// Smirnov's asymptotic exp(−2·D⁺²·nm/(n+m)), slightly conservative at these sizes.
func KSGreater(x, y []float64) (d, p float64) {
	n, m := len(x), len(y)
	if n == 0 || m == 0 {
		return 0, 1
	}
	xs, ys := slices.Clone(x), slices.Clone(y)
	slices.Sort(xs)
	slices.Sort(ys)
	i, j := 0, 0
	for i < n || j < m {
		// Step over every copy of the next value in both samples before measuring, so
		// ties never open a gap that is not there.
		var t float64
		switch {
		case j >= m || i < n && xs[i] <= ys[j]:
			t = xs[i]
		default:
			t = ys[j]
		}
		for i < n && xs[i] == t {
			i++
		}
		for j < m && ys[j] == t {
			j++
		}
		d = max(d, float64(i)/float64(n)-float64(j)/float64(m))
	}
	if n == m {
		k := int(math.Round(d * float64(n)))
		return d, exactKSGreater(n, k)
	}
	nm := float64(n) * float64(m) / float64(n+m)
	return d, math.Min(1, math.Exp(-2*d*d*nm))
}

// exactKSGreater is P(D⁺ ≥ k/n) for two samples of n: C(2n, n−k) / C(2n, n), computed in
// logarithms so that it stays exact to float precision down to 1e-300.
func exactKSGreater(n, k int) float64 {
	if k <= 0 {
		return 1
	}
	if k > n {
		return 0
	}
	return math.Exp(logChoose(2*n, n-k) - logChoose(2*n, n))
}

func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// AUC is the probability that a draw from x is smaller than a draw from y, ties counting
// one half: the Mann–Whitney U of x against y divided by n·m. For hit times x and miss
// times y it is how often a single timing tells a hit from a miss (0.5: never better than a
// coin; 1: always). NaN when either sample is empty.
func AUC(x, y []float64) float64 {
	n, m := len(x), len(y)
	if n == 0 || m == 0 {
		return math.NaN()
	}
	ys := slices.Clone(y)
	slices.Sort(ys)
	var u float64
	for _, v := range x {
		// greater: how many y exceed v; equal: how many tie with it.
		lo, _ := slices.BinarySearch(ys, v)
		hi := lo
		for hi < m && ys[hi] == v {
			hi++
		}
		u += float64(m-hi) + 0.5*float64(hi-lo)
	}
	return u / (float64(n) * float64(m))
}

// median of a sample (NaN when empty).
func median(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := slices.Clone(x)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// ksPower is the power of KSGreater at level alpha against a cache hit that saves gainUs on
// the share reach of the hit arm's requests, estimated by simulation: each of
// powerReplicates audits draws a MISS sample and a HIT sample of len(miss) from the run's
// own MISS times (with replacement), takes gainUs off each HIT draw with probability
// reach (never below 1 µs), and runs the test. The run's noise (queueing behind the
// background traffic) is thus in both arms, as it would be in a real audit. NaN when
// there is no MISS sample.
func ksPower(miss []float64, gainUs, reach, alpha float64, r *rand.Rand) float64 {
	n := len(miss)
	if n == 0 {
		return math.NaN()
	}
	x, y := make([]float64, n), make([]float64, n)
	hits := 0
	for range powerReplicates {
		for i := range n {
			y[i] = miss[r.IntN(n)]
			x[i] = miss[r.IntN(n)]
			if r.Float64() < reach {
				x[i] = max(1, x[i]-gainUs)
			}
		}
		if _, p := KSGreater(x, y); p < alpha {
			hits++
		}
	}
	return float64(hits) / powerReplicates
}
