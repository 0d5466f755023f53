// This file defines the fit of LogGOPS parameters to a ping-pong table:
// a line by least squares in relative terms, with the eager limit found
// where the table jumps (the change of protocol), and the parameters that
// make the interpreter's model of a ping-pong that line.

package estimator

import (
	"fmt"
	"math"

	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/trace"
	"gonum.org/v1/gonum/mat"
)

// PingPongPoint is one row of a ping-pong table: the one-way time (half a
// round trip) of messages of Bytes bytes, and the first call's, measured
// apart (seed-001 §2.1).
//
// FirstRTT is the first round trip at this size, right after its set-up
// (each rank's buffers allocated and touched, the garbage collected, the
// ranks met): the first call's cost at this size, and with it rank 1's
// wake-up from the command's broadcast (it may have parked there). It is
// never in OneWay, whose batches each leave their first round trip out
// for the same wake-up.
type PingPongPoint struct {
	Bytes    int64    `json:"bytes"`
	OneWay   Estimate `json:"one_way"`
	FirstRTT float64  `json:"first_rtt_ns"`
}

// LineFit is the fit of a ping-pong table, one-way(s) = Intercept +
// Slope·(s−1), plus Jump for messages larger than EagerLimit (0 and
// EagerLimit = −1 when the table shows no change of protocol). It
// minimizes the squared relative residuals, so that small and large
// messages count alike.
type LineFit struct {
	Intercept  float64 `json:"intercept_ns"`
	Slope      float64 `json:"slope_ns_per_byte"`
	Jump       float64 `json:"jump_ns"`
	EagerLimit int64   `json:"eager_limit"` // the largest size before the jump; −1: none found
	RelRMS     float64 `json:"rel_rms"`     // root mean square of the relative residuals
}

// At is the fitted one-way time of s bytes.
func (f LineFit) At(s int64) float64 {
	t := f.Intercept + f.Slope*float64(max(s-1, 0))
	if f.EagerLimit >= 0 && s > f.EagerLimit {
		t += f.Jump
	}
	return t
}

// jumpGain is how much a jump must reduce the squared residuals of the
// line to be taken as a change of protocol, and minJump how large a rise
// it must be next to the line at that size: noise and cache effects bend
// a table a little everywhere, a protocol changes it at one place.
const (
	jumpGain = 0.25
	minJump  = 0.05
)

// fitLine fits sizes → times (ns) with and without a jump after each size
// that leaves two points on either side, and keeps the jump that fits
// best when it is worth it: for a runtime whose eager limit is not known
// (the table's jump is then S).
func fitLine(sizes []int64, times []float64) (LineFit, error) {
	return fitLineLimits(sizes, times, nil)
}

// fitLineAt fits sizes → times with a jump allowed only after limit, the
// runtime's known eager limit: a knee elsewhere (a cache's) is no change
// of protocol, and must not move S.
func fitLineAt(sizes []int64, times []float64, limit int64) (LineFit, error) {
	return fitLineLimits(sizes, times, []int64{limit})
}

// fitLineLimits fits the line, and a jump after each of limits (nil:
// after each size) that leaves two points on either side, keeping the
// best jump when it is worth it.
func fitLineLimits(sizes []int64, times []float64, limits []int64) (LineFit, error) {
	if err := checkTable(sizes, times); err != nil {
		return LineFit{}, err
	}
	best, bestSS, err := solveLine(sizes, times, -1)
	if err != nil {
		return LineFit{}, err
	}
	plain := bestSS
	if limits == nil {
		limits = sizes
	}
	for _, limit := range limits {
		k := 0 // the sizes up to limit
		for k < len(sizes) && sizes[k] <= limit {
			k++
		}
		if k < 2 || len(sizes)-k < 2 {
			continue
		}
		f, ss, err := solveLine(sizes, times, limit)
		if err != nil || ss >= bestSS {
			continue
		}
		at := f.Intercept + f.Slope*float64(sizes[k]-1)
		// Only a rise is a change to a costlier protocol (a rendezvous
		// adds its handshake); a fall is something else (a pipelined
		// protocol, buffering) and no eager limit.
		if ss <= jumpGain*plain && f.Jump >= minJump*math.Abs(at) {
			best, bestSS = f, ss
		}
	}
	best.RelRMS = math.Sqrt(bestSS / float64(len(sizes)))
	return best, nil
}

// checkTable checks that a ping-pong table can be fitted: at least 2
// sizes, increasing, each with a positive time.
func checkTable(sizes []int64, times []float64) error {
	if len(sizes) != len(times) || len(sizes) < 2 {
		return fmt.Errorf("a ping-pong table needs at least 2 sizes, got %d", len(sizes))
	}
	for i, t := range times {
		if !(t > 0) || math.IsInf(t, 0) {
			return fmt.Errorf("%d B: one-way time %g ns: want a positive time", sizes[i], t)
		}
		if i > 0 && sizes[i] <= sizes[i-1] {
			return fmt.Errorf("sizes not increasing: %d B after %d B", sizes[i], sizes[i-1])
		}
	}
	return nil
}

// solveLine is the weighted least-squares line (with a jump after limit
// when limit ≥ 0) and its sum of squared relative residuals.
func solveLine(sizes []int64, times []float64, limit int64) (LineFit, float64, error) {
	cols := 2
	if limit >= 0 {
		cols = 3
	}
	a := mat.NewDense(len(sizes), cols, nil)
	b := mat.NewVecDense(len(sizes), nil)
	for i, s := range sizes {
		w := 1 / times[i] // relative residuals
		a.Set(i, 0, w)
		a.Set(i, 1, w*float64(max(s-1, 0)))
		if limit >= 0 && s > limit {
			a.Set(i, 2, w)
		}
		b.SetVec(i, 1)
	}
	var x mat.VecDense
	if err := x.SolveVec(a, b); err != nil {
		return LineFit{}, 0, fmt.Errorf("fitting the ping-pong table: %v", err)
	}
	f := LineFit{Intercept: x.AtVec(0), Slope: x.AtVec(1), EagerLimit: -1}
	if limit >= 0 {
		f.Jump, f.EagerLimit = x.AtVec(2), limit
	}
	ss := 0.0
	for i, s := range sizes {
		r := f.At(s)/times[i] - 1
		ss += r * r
	}
	return f, ss, nil
}

// Residual compares the model's one-way time at a size with the table's.
type Residual struct {
	Bytes    int64   `json:"bytes"`
	Measured float64 `json:"measured_ns"`
	Model    float64 `json:"model_ns"`
	Rel      float64 `json:"rel"` // model/measured − 1
}

// modelOneWay is the interpreter's one-way time of a ping-pong of s bytes
// with the LogGOPS parameters alone (machine.Link.PingPong).
func modelOneWay(lg *machine.LogGOPS, s int64) trace.Time {
	return machine.Link{LogGOPS: lg}.PingPong(s)
}

// residuals compares lg's ping-pong with the table.
func residuals(lg *machine.LogGOPS, table []PingPongPoint) []Residual {
	out := make([]Residual, len(table))
	for i, p := range table {
		model := float64(modelOneWay(lg, p.Bytes)) / float64(trace.Nanosecond)
		out[i] = Residual{Bytes: p.Bytes, Measured: p.OneWay.Mean, Model: model, Rel: model/p.OneWay.Mean - 1}
	}
	return out
}

// LevelInputs are the measurements a level's LogGOPS parameters come from
// besides the ping-pong line: the per-byte CPU cost of a send call (O, the
// slope of the eager Send call's time by size), the cost of a send and a
// receive call of 1 B, the gap per message of a stream (g), and the
// runtime's configured eager limit S.
type LevelInputs struct {
	SendPerByte float64 // ns/B
	CallCost    float64 // ns: the mean of a 1 B Send call and a Recv of an arrived 1 B message
	StreamGap   float64 // ns per message
	// S is the runtime's configured eager limit (bytes, 0: every message
	// rendezvous). SKnown says that it is the protocol's exactly (the
	// in-process runtime): S is then pinned, and a jump of the table
	// splits o from L only when it falls at S. Otherwise (an MPI library,
	// whose own limits may differ) the table's jump is S, and S is the
	// fallback where the table shows none.
	S      int64
	SKnown bool
}

// nsTime is a time of x ns in the machine's picoseconds, 0 for a negative x.
func nsTime(x float64) trace.Time {
	return trace.Time(math.Round(math.Max(x, 0) * float64(trace.Nanosecond)))
}

// nsPerByte is a cost of x ns per byte in the machine's units, 0 for a
// negative x.
func nsPerByte(x float64) machine.PerByte {
	return machine.PerByte(math.Round(math.Max(x, 0) * float64(machine.NanosecondPerByte)))
}

// logGOPS turns a line fit into LogGOPS parameters such that modelOneWay
// is the line: Intercept = 2o + L, Slope = G + O, and, with a jump,
// Jump = o + 2L, so o = (2·Intercept − Jump)/3, L = (2·Jump − Intercept)/3.
// Where the table has no jump (with S known: none at S), or a jump LogGOPS
// cannot make (o or L would be negative), o is the measured call cost and
// L the rest of the intercept. It says which way it went.
func logGOPS(f LineFit, in LevelInputs) (machine.LogGOPS, string) {
	ns, perByte := nsTime, nsPerByte
	O := math.Min(math.Max(in.SendPerByte, 0), math.Max(f.Slope, 0))
	lg := machine.LogGOPS{
		GapPerMessage:   ns(in.StreamGap),
		GapPerByte:      perByte(f.Slope - O),
		OverheadPerByte: perByte(O),
	}
	jump := f.EagerLimit >= 0 && (!in.SKnown || f.EagerLimit == in.S)
	o := (2*f.Intercept - f.Jump) / 3
	L := (2*f.Jump - f.Intercept) / 3
	if jump && o >= 0 && L >= 0 {
		lg.Overhead, lg.Latency, lg.EagerLimit = ns(o), ns(L), f.EagerLimit
		if in.SKnown {
			return lg, fmt.Sprintf("o and L from the intercept (2o+L) and the jump at the runtime's eager limit %d B (o+2L)", f.EagerLimit)
		}
		return lg, fmt.Sprintf("o and L from the intercept (2o+L) and the jump at the eager limit %d B (o+2L)", f.EagerLimit)
	}
	o = math.Min(in.CallCost, f.Intercept/2)
	lg.Overhead, lg.Latency = ns(o), ns(f.Intercept-2*o)
	switch {
	case in.SKnown && f.EagerLimit >= 0 && f.EagerLimit == in.S:
		lg.EagerLimit = in.S
		return lg, fmt.Sprintf("the runtime's eager limit %d B, where the table jumps %+.0f ns (which LogGOPS's rendezvous o+2L cannot make); o from the calls, L the rest of the intercept", in.S, f.Jump)
	case in.SKnown:
		lg.EagerLimit = in.S
		return lg, fmt.Sprintf("the runtime's eager limit %d B, where the table shows no change of protocol; o from the calls, L the rest of the intercept", in.S)
	case f.EagerLimit >= 0:
		lg.EagerLimit = f.EagerLimit
		return lg, fmt.Sprintf("eager limit %d B from the table's jump (%+.0f ns, which LogGOPS's rendezvous o+2L cannot make); o from the calls, L the rest of the intercept", f.EagerLimit, f.Jump)
	}
	lg.EagerLimit = in.S
	return lg, fmt.Sprintf("no change of protocol in the table: the runtime's eager limit %d B; o from the calls, L the rest of the intercept", in.S)
}
