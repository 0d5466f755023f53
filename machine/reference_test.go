package machine

import (
	"math"
	"math/big"
	"testing"

	"github.com/predict-tools/predict/trace"
)

// This file holds a reference model of the cost functions in exact
// arbitrary-precision integers, and checkCosts, which holds every cost
// function of a machine to it: equal when the exact cost fits the clock,
// Overflow when it does not, never negative.

var bigMax = big.NewInt(math.MaxInt64)

// roundDiv returns n/d rounded to the nearest integer, halves away from
// zero; d > 0.
func roundDiv(n, d *big.Int) *big.Int {
	q, r := new(big.Int).QuoRem(n, d, new(big.Int))
	if new(big.Int).Lsh(new(big.Int).Abs(r), 1).Cmp(d) >= 0 {
		q.Add(q, big.NewInt(int64(n.Sign())))
	}
	return q
}

func bi(v int64) *big.Int { return big.NewInt(v) }

func add(xs ...*big.Int) *big.Int {
	s := new(big.Int)
	for _, x := range xs {
		s.Add(s, x)
	}
	return s
}

func mul(a, b *big.Int) *big.Int { return new(big.Int).Mul(a, b) }

func refTimes(p PerByte, n int64) *big.Int { return roundDiv(mul(bi(int64(p)), bi(n)), bi(1000)) }

func refOverhead(p *LogGOPS, s int64) *big.Int {
	return add(bi(int64(p.Overhead)), refTimes(p.OverheadPerByte, extra(s)))
}

func refGap(p *LogGOPS, s int64) *big.Int {
	return add(bi(int64(p.GapPerMessage)), refTimes(p.GapPerByte, extra(s)))
}

func refLogGOPSTransfer(p *LogGOPS, s int64) *big.Int {
	return add(bi(int64(p.Overhead)), bi(int64(p.Latency)), refTimes(p.GapPerByte, extra(s)))
}

func refAt(t Table, s int64) *big.Int {
	n := len(t)
	if n == 0 {
		return new(big.Int)
	}
	if n == 1 || s <= t[0].Bytes {
		return bi(int64(t[0].Time))
	}
	i := 1
	for i < n-1 && t[i].Bytes < s {
		i++
	}
	a, b := t[i-1], t[i]
	dt := bi(int64(b.Time) - int64(a.Time))
	return add(bi(int64(a.Time)), roundDiv(mul(dt, bi(s-a.Bytes)), bi(b.Bytes-a.Bytes)))
}

func refLinkTransfer(l Link, s int64) *big.Int {
	if len(l.Table) == 0 {
		return refLogGOPSTransfer(l.LogGOPS, s)
	}
	at, o := refAt(l.Table, s), refOverhead(l.LogGOPS, s)
	if at.Cmp(bigMax) >= 0 || o.Cmp(bigMax) >= 0 {
		return bigMax
	}
	less := o
	if s > l.EagerLimit {
		// The rendezvous handshake: o(1) + 2L, saturating as AddTime.
		less = add(o, refOverhead(l.LogGOPS, 1), mul(bi(2), bi(int64(l.Latency))))
		if less.Cmp(bigMax) > 0 {
			less = bigMax
		}
	}
	d := new(big.Int).Sub(at, less)
	if d.Cmp(o) < 0 {
		return o
	}
	return d
}

// refCompute is t·f exactly, from the binary value of f.
func refCompute(t trace.Time, f float64) *big.Int {
	r := new(big.Rat).SetFloat64(f)
	return roundDiv(mul(bi(int64(t)), r.Num()), r.Denom())
}

// checkCost holds got to the exact cost ref.
func checkCost(t *testing.T, what string, got trace.Time, ref *big.Int) {
	t.Helper()
	switch {
	case got < 0:
		t.Errorf("%s = %d: negative", what, got)
	case ref.Cmp(bigMax) >= 0 && got != Overflow:
		t.Errorf("%s = %d, want Overflow (exact %s)", what, got, ref)
	case ref.Cmp(bigMax) < 0 && (ref.Sign() < 0 || got != trace.Time(ref.Int64())):
		t.Errorf("%s = %d, want %s", what, got, ref)
	}
}

// checkCosts holds every cost function of the valid machine m to the
// reference at message size s, compute time and clock ct (≥ 0) and
// thread count n.
func checkCosts(t *testing.T, m *Machine, s int64, ct trace.Time, n int) {
	t.Helper()
	for _, inter := range []bool{false, true} {
		l := m.Level(inter)
		p := l.LogGOPS
		checkCost(t, "SendOverhead", p.SendOverhead(s), refOverhead(p, s))
		checkCost(t, "RecvOverhead", p.RecvOverhead(s), refOverhead(p, s))
		checkCost(t, "Gap", p.Gap(s), refGap(p, s))
		checkCost(t, "LogGOPS.Transfer", p.Transfer(s), refLogGOPSTransfer(p, s))
		checkCost(t, "Table.At", l.Table.At(s), refAt(l.Table, s))
		tr := refLinkTransfer(l, s)
		checkCost(t, "Link.Transfer", l.Transfer(s), tr)
		checkCost(t, "Link.OneWay", l.OneWay(s), add(tr, refOverhead(p, s)))
	}
	checkCost(t, "Compute", m.Compute(ct), refCompute(ct, m.CPUFactor))
	c := &m.Threads
	checkCost(t, "PoolCreate", c.PoolCreate(n), mul(bi(int64(max(n, 0))), bi(int64(c.Create))))
	checkCost(t, "CopyCost", c.CopyCost(s), refTimes(c.Copy, max(s, 0)))
	checkCost(t, "LockAcquired", c.LockAcquired(ct, ct/2), add(bi(int64(ct)), bi(int64(c.TryLock))))

	// Three inter-node messages of s bytes through one pair of NICs,
	// sent at ct: each arrives no earlier than on an idle network, and
	// no earlier than the one before it.
	if q := m.NewNICQueues(2); q != nil {
		idle := AddTime(ct, m.Level(true).Transfer(s))
		prev := trace.Time(0)
		for range 3 {
			got := q.Deliver(0, 1, ct, s, idle)
			if got < idle || got < prev {
				t.Errorf("Deliver(%d B at %d) = %d: before the idle arrival %d or the previous message's %d", s, ct, got, idle, prev)
			}
			prev = got
		}
	}
}
