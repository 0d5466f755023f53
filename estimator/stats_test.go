package estimator

import (
	"math"
	"testing"
)

func TestStats(t *testing.T) {
	// 100 measurements of 1000 ns ± 10 ns with 20 ns of probe overhead.
	m := moments{overheadNS: 20, min: math.Inf(1)}
	for i := range 100 {
		x := 1020.0 + 10
		if i%2 == 0 {
			x = 1020 - 10
		}
		m.count++
		m.sum += x
		m.sumSq += x * x
		m.min, m.max = math.Min(m.min, x), math.Max(m.max, x)
	}
	mean, sd, lo, hi, errAbs, errRel := m.stats()
	if mean != 1_000_000 || sd != 10_000 || lo != 990_000 || hi != 1_010_000 {
		t.Errorf("mean %d sd %d min %d max %d (ps)", mean, sd, lo, hi)
	}
	// |Δ| = 3·10/√100 = 3 ns; δ = 3/(1000−10).
	if errAbs != 3000 || math.Abs(errRel-3.0/990) > 1e-12 {
		t.Errorf("error %d ps, %g", errAbs, errRel)
	}
}

func TestBalance(t *testing.T) {
	mean, d := balance([]int64{110, 110, 110, 110}, 10)
	if mean != 100 || d != 0 {
		t.Errorf("uniform: mean %g D %g", mean, d)
	}
	// A triangular loop: iterations 10..100 ns.
	var tri []int64
	for i := int64(1); i <= 10; i++ {
		tri = append(tri, 10*i)
	}
	if _, d := balance(tri, 0); d < 0.5 {
		t.Errorf("triangular: D %g, want it unbalanced", d)
	}
}
