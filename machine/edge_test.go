package machine

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/predict-tools/predict/trace"
)

// edgeSizes are message sizes (and byte and thread counts) at the edges:
// empty, tiny, the largest table size, where float64 stops being exact,
// where a 1 ms/B cost fills the clock, and the int64 limits.
var edgeSizes = []int64{
	math.MinInt64, -1, 0, 1, 2, 1 << 20, MaxTableBytes, MaxTableBytes + 1, 1<<53 + 1,
	9223372037, 9223372038, math.MaxInt64 / 1000, math.MaxInt64 - 1, math.MaxInt64,
}

// edgeTimes are compute fragments and clocks at the edges.
var edgeTimes = []trace.Time{
	0, 1, 3, trace.Microsecond, 9223372, 9223373, trace.Second, 9223372036854, 9223372036855,
	1<<53 + 1, trace.Time(math.MaxInt64 / 2), math.MaxInt64 - 1, math.MaxInt64,
}

// maxMachine is a valid machine with every cost at its bound.
func maxMachine(cpu float64) *Machine {
	m := testMachine()
	m.CPUFactor = cpu
	for _, p := range []*LogGOPS{&m.Intra, &m.Inter} {
		*p = LogGOPS{Latency: MaxDuration, Overhead: MaxDuration, GapPerMessage: MaxDuration,
			GapPerByte: MaxPerByte, OverheadPerByte: MaxPerByte, EagerLimit: math.MaxInt64}
	}
	// The last segment rises at exactly MaxPerByte.
	m.Table.Inter = Table{{0, MaxTableTime - 3600*trace.Millisecond}, {3600, MaxTableTime}, {MaxTableBytes, MaxTableTime}}
	m.Table.Intra = Table{{1, MaxTableTime}, {MaxTableBytes, MaxTableTime}}
	m.NIC = NIC{Contention: true, Injection: MaxPerByte, Ejection: MaxPerByte}
	d := MaxDuration
	m.Threads = ThreadCosts{Create: d, SetTask: d, Start: d, Copy: MaxPerByte, CAS: d, CreateAtomic: d, CreateSemaphore: d, TryLock: d, Release: d}
	return m
}

// TestCostsAtTheBounds evaluates every cost function of machines at the
// bounds on sizes and times at the edges: each is exact or Overflow.
func TestCostsAtTheBounds(t *testing.T) {
	for _, cpu := range []float64{MaxCPUFactor, MinCPUFactor, 1, 0.7, math.Nextafter(MaxCPUFactor, 0)} {
		m := maxMachine(cpu)
		if err := m.Validate(); err != nil {
			t.Fatalf("the machine at the bounds is refused: %v", err)
		}
		for _, s := range edgeSizes {
			for _, ct := range edgeTimes {
				checkCosts(t, m, s, ct, int(s))
			}
		}
	}
	// A few exact values at the bounds, by hand.
	m := maxMachine(MaxCPUFactor)
	p := &m.Inter
	for _, c := range []struct {
		what      string
		got, want trace.Time
	}{
		{"Gap(1MiB)", p.Gap(1 << 20), trace.Second + (1<<20-1)*trace.Millisecond},
		{"Transfer(1MiB)", p.Transfer(1 << 20), 2*trace.Second + (1<<20-1)*trace.Millisecond},
		{"Gap(2^48)", p.Gap(MaxTableBytes), Overflow},
		{"Transfer(MaxInt64)", p.Transfer(math.MaxInt64), Overflow},
		{"table extrapolated to 2^48+3600", m.Table.Inter.At(MaxTableBytes + 3600), MaxTableTime},
		{"Compute(9.2s) at 1e6", m.Compute(9223372036854), 9223372036854000000},
		{"Compute(MaxInt64) at 1e6", m.Compute(math.MaxInt64), Overflow},
		{"PoolCreate(MaxInt)", m.Threads.PoolCreate(math.MaxInt), Overflow},
		{"LockAcquired(Overflow, 0)", m.Threads.LockAcquired(Overflow, 0), Overflow},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.what, c.got, c.want)
		}
	}
}

// randomMachine returns a valid machine with costs drawn log-uniformly up
// to their bounds, and, when monotone, tables whose times never decrease.
func randomMachine(r *rand.Rand, monotone bool) *Machine {
	logUniform := func(limit int64) int64 {
		if r.IntN(8) == 0 {
			return 0
		}
		return int64(math.Exp(r.Float64() * math.Log(float64(limit))))
	}
	dur := func() trace.Time { return trace.Time(logUniform(int64(MaxDuration))) }
	perByte := func() PerByte { return PerByte(logUniform(int64(MaxPerByte))) }
	level := func() LogGOPS {
		return LogGOPS{Latency: dur(), Overhead: dur(), GapPerMessage: dur(), GapPerByte: perByte(), OverheadPerByte: perByte(), EagerLimit: logUniform(math.MaxInt64)}
	}
	table := func() Table {
		if r.IntN(2) == 0 {
			return nil
		}
		var t Table
		size := logUniform(1 << 10)
		time := trace.Time(logUniform(int64(trace.Second)))
		for range 2 + r.IntN(6) {
			t = append(t, TablePoint{Bytes: size, Time: time})
			step := 1 + logUniform(MaxTableBytes/64)
			size += step
			rise := PerByte(logUniform(int64(MaxPerByte))).Times(step)
			if !monotone && r.IntN(3) == 0 {
				rise = -rise
			}
			time = min(max(AddTime(time, rise), 0), MaxTableTime)
		}
		if last := &t[len(t)-1]; last.Time < t[len(t)-2].Time {
			last.Time = t[len(t)-2].Time
		}
		return t
	}
	m := testMachine()
	m.CPUFactor = math.Exp(math.Log(MinCPUFactor) + r.Float64()*(math.Log(MaxCPUFactor)-math.Log(MinCPUFactor)))
	m.Intra, m.Inter = level(), level()
	m.Table = Tables{Intra: table(), Inter: table()}
	m.NIC = NIC{Contention: r.IntN(2) == 0, Injection: perByte(), Ejection: perByte()}
	m.Threads = ThreadCosts{Create: dur(), SetTask: dur(), Start: dur(), Copy: perByte(), CAS: dur(),
		CreateAtomic: dur(), CreateSemaphore: dur(), TryLock: dur(), Release: dur()}
	return m
}

// TestCostProperties draws random valid machines and sizes: every cost is
// exact or Overflow, never negative, and monotone in the size (in the
// time for Compute), Overflow included.
func TestCostProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 2))
	for i := range 400 {
		monotone := i%2 == 0
		m := randomMachine(r, monotone)
		if err := m.Validate(); err != nil {
			t.Fatalf("random machine %d is refused: %v", i, err)
		}
		sizes := []int64{0, 1, math.MaxInt64}
		times := []trace.Time{0, math.MaxInt64}
		for range 30 {
			sizes = append(sizes, int64(math.Exp(r.Float64()*math.Log(math.MaxInt64))))
			times = append(times, trace.Time(math.Exp(r.Float64()*math.Log(math.MaxInt64))))
		}
		slices.Sort(sizes)
		slices.Sort(times)
		for k, s := range sizes {
			checkCosts(t, m, s, times[k%len(times)], int(s%100000))
		}
		type costFunc struct {
			name string
			f    func(int64) trace.Time
			all  bool // monotone even with a non-monotone table
		}
		var funcs []costFunc
		for _, inter := range []bool{false, true} {
			l := m.Level(inter)
			funcs = append(funcs,
				costFunc{"SendOverhead", l.SendOverhead, true},
				costFunc{"Gap", l.Gap, true},
				costFunc{"LogGOPS.Transfer", l.LogGOPS.Transfer, true},
				costFunc{"Table.At", l.Table.At, false},
				costFunc{"Link.PingPong", l.PingPong, false},
			)
		}
		funcs = append(funcs,
			costFunc{"CopyCost", m.Threads.CopyCost, true},
			costFunc{"PoolCreate", func(n int64) trace.Time { return m.Threads.PoolCreate(int(n)) }, true},
			costFunc{"Compute", func(t int64) trace.Time { return m.Compute(trace.Time(t)) }, true},
		)
		for _, c := range funcs {
			if !c.all && !monotone {
				continue
			}
			for k := 1; k < len(sizes); k++ {
				if a, b := c.f(sizes[k-1]), c.f(sizes[k]); b < a {
					t.Fatalf("machine %d: %s(%d) = %d < %s(%d) = %d: not monotone\n%s", i, c.name, sizes[k], b, c.name, sizes[k-1], a, m.Describe())
				}
			}
		}
	}
}

// TestScaleTimeExact holds scaleTime to exact rational arithmetic on
// random times and factors over the whole float64 range, and the
// saturating helpers at their edges.
func TestScaleTimeExact(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 3))
	for range 20000 {
		tm := trace.Time(r.Int64())
		if r.IntN(2) == 0 {
			tm >>= r.IntN(63)
		}
		f := math.Float64frombits(r.Uint64() &^ (1 << 63))
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		checkCost(t, "scaleTime", scaleTime(tm, f), refCompute(tm, f))
	}
	for _, f := range []float64{math.NaN(), math.Inf(1)} {
		if got := scaleTime(1, f); got != Overflow {
			t.Errorf("scaleTime(1, %v) = %d, want Overflow", f, got)
		}
	}
	if got := scaleTime(-3, 0.5); got != -2 { // halves away from zero
		t.Errorf("scaleTime(-3, 0.5) = %d, want -2", got)
	}
	for _, c := range []struct {
		got, want trace.Time
	}{
		{AddTime(math.MaxInt64-1, 1), Overflow},
		{AddTime(math.MaxInt64-1, 2), Overflow},
		{AddTime(Overflow, -5), Overflow},
		{AddTime(math.MinInt64+1, -2), math.MinInt64},
		{subTime(math.MinInt64+1, 2), math.MinInt64},
		{subTime(0, math.MinInt64), Overflow},
		{MulTime(1<<32, 1<<31), Overflow},
		{MulTime(Overflow, 1), Overflow},
		{MulTime(3, 5), 15},
		{RoundTime(2.5), 3},
		{RoundTime(-2.5), -3},
		{RoundTime(1 << 62), 1 << 62},
		{RoundTime(math.Nextafter(1<<63, 0)), 1<<63 - 1024},
		{RoundTime(1 << 63), Overflow},
		{RoundTime(math.Inf(1)), Overflow},
		{RoundTime(math.NaN()), Overflow},
		{RoundTime(-(1 << 63)), math.MinInt64},
		{RoundTime(math.Inf(-1)), math.MinInt64},
	} {
		if c.got != c.want {
			t.Errorf("saturating arithmetic: got %d, want %d", c.got, c.want)
		}
	}
	for _, c := range []struct {
		a, b, want int64
	}{
		{1 << 31, 1 << 31, 1 << 62},
		{1 << 32, 1 << 31, math.MaxInt64},
		{-(1 << 32), 1 << 31, math.MinInt64},
		{math.MinInt64, 1, math.MinInt64},
		{math.MinInt64, -1, math.MaxInt64},
		{-3, 4, -12},
	} {
		if got := mulSat(c.a, c.b); got != c.want {
			t.Errorf("mulSat(%d, %d) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
