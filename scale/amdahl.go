// This file defines the fit of Amdahl's law to a sweep.

package scale

import (
	"math"

	"gonum.org/v1/gonum/stat"

	"github.com/predict-tools/predict/trace"
)

// fitAmdahl fits Amdahl's serial fraction f to the rows and returns it with
// the root mean square relative error of the fitted times.
//
// With r = np/baseNP, Amdahl's law relative to the baseline is
//
//	T(np) = T₀·(f + (1−f)/r)   ⇔   T(np) − T₀/r = f·T₀·(1 − 1/r),
//
// linear in f. The fit minimises the squared relative errors of the times,
// Σ ((T_i − T(np_i))/T_i)², so that the short runs at large np count as
// much as the long ones at small np: a least-squares line through the
// origin (stat.LinearRegression) of y_i = (T_i − T₀/r_i)/T_i on
// x_i = T₀(1 − 1/r_i)/T_i, which is the closed form
// f = Σ x_i·y_i / Σ x_i². The objective is a convex quadratic in f, so
// clamping the unconstrained minimum to [0, 1] gives the constrained one.
// Exact Amdahl data give f back exactly, up to rounding. Rows at the
// baseline np carry no information (x_i = 0); with no other row, f is 0.
func fitAmdahl(rows []Row, baseNP int, base trace.Time) (f, rmsError float64) {
	t0 := float64(base)
	model := func(np int, f float64) float64 {
		r := float64(np) / float64(baseNP)
		return t0 * (f + (1-f)/r)
	}
	x := make([]float64, len(rows))
	y := make([]float64, len(rows))
	var informative bool
	for i, row := range rows {
		t, r := float64(row.Time), float64(row.NP)/float64(baseNP)
		x[i] = t0 * (1 - 1/r) / t
		y[i] = (t - t0/r) / t
		informative = informative || x[i] != 0
	}
	if informative {
		_, f = stat.LinearRegression(x, y, nil, true)
		f = min(max(f, 0), 1)
	}
	var sum float64
	for _, row := range rows {
		e := (model(row.NP, f) - float64(row.Time)) / float64(row.Time)
		sum += e * e
	}
	return f, math.Sqrt(sum / float64(len(rows)))
}

// AmdahlSpeedup is the speedup that the fitted Amdahl's law predicts at
// np processes (a float64, for curves).
func (a Analysis) AmdahlSpeedup(np float64) float64 {
	r := np / float64(a.BaselineNP)
	return 1 / (a.SerialFraction + (1-a.SerialFraction)/r)
}
