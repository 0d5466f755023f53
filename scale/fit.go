// This file defines the fit of the serial fraction to a sweep: Amdahl's law
// for strong scaling and its form for weak scaling.

package scale

import (
	"math"

	"gonum.org/v1/gonum/stat"

	"github.com/predict-tools/predict/trace"
)

// fitSerialFraction fits the serial fraction f to the rows and returns it
// with the root mean square relative error of the fitted times.
//
// A fraction f of the baseline's work is serial and the rest is divided
// among the ranks. With r = np/baseNP:
//
//   - strong scaling (the same problem at every np), Amdahl's law:
//     T(np) = T₀·(f + (1−f)/r), so T(np) − T₀/r = f·T₀·(1 − 1/r);
//   - weak scaling (the problem grows r-fold): the serial work grows
//     with the problem as the parallel work does, but only the parallel
//     part is spread over the r-fold ranks:
//     T(np) = T₀·(f·r + (1−f)), so T(np) − T₀ = f·T₀·(r − 1).
//
// The weak form is why Amdahl's reading ("does not scale" because the
// time does not shrink) is wrong for weak scaling: the time should stay
// at T₀, and only what grows with np is lost. Its scaled speedup
// r·T₀/T(np) = r/(1 + f·(r−1)) tends to 1/f, the same bound as Amdahl's
// (Gustafson's law is the case where the serial part does not grow with
// the problem: f = 0 here, constant time, unbounded scaled speedup).
//
// Both are linear in f: T(np) − a = f·b. The fit minimises the squared
// relative errors of the times, Σ ((T_i − T(np_i))/T_i)², so that short
// runs count as much as long ones: a least-squares line through the
// origin (stat.LinearRegression) of y_i = (T_i − a_i)/T_i on
// x_i = b_i/T_i, the closed form f = Σ x_i·y_i / Σ x_i². The objective is
// a convex quadratic in f, so clamping the unconstrained minimum to
// [0, 1] (strong) or [0, ∞) (weak: a time that grows faster than np gives
// f > 1) gives the constrained one. Exact data give f back, up to
// rounding. Rows at the baseline np carry no information (x_i = 0); with
// no other row, f is 0.
func fitSerialFraction(rows []Row, baseNP int, base trace.Time, weak bool) (f, rmsError float64) {
	t0 := float64(base)
	x := make([]float64, len(rows))
	y := make([]float64, len(rows))
	var informative bool
	for i, row := range rows {
		t, r := float64(row.Time), float64(row.NP)/float64(baseNP)
		if weak {
			x[i], y[i] = t0*(r-1)/t, (t-t0)/t
		} else {
			x[i], y[i] = t0*(1-1/r)/t, (t-t0/r)/t
		}
		informative = informative || x[i] != 0
	}
	if informative {
		_, f = stat.LinearRegression(x, y, nil, true)
		f = max(f, 0)
		if !weak {
			f = min(f, 1)
		}
	}
	var sum float64
	for _, row := range rows {
		r := float64(row.NP) / float64(baseNP)
		model := t0 * (f + (1-f)/r)
		if weak {
			model = t0 * (f*r + 1 - f)
		}
		e := (model - float64(row.Time)) / float64(row.Time)
		sum += e * e
	}
	return f, math.Sqrt(sum / float64(len(rows)))
}

// FittedSpeedup is the speedup that the fitted serial fraction predicts
// at np processes (a float64, for curves): Amdahl's 1/(f + (1−f)/r), or
// in weak scaling the scaled speedup r/(1 + f·(r−1)).
func (a Analysis) FittedSpeedup(np float64) float64 {
	r := np / float64(a.BaselineNP)
	if a.Weak() {
		return r / (1 + a.SerialFraction*(r-1))
	}
	return 1 / (a.SerialFraction + (1-a.SerialFraction)/r)
}
