package probe

import "testing"

// Fragment ids of the region tests.
const (
	idRegionOuter = 150 + iota
	idRegionInner
)

// TestRegionAccounting: a region's entry records its time less what was
// timed apart inside it (an inner region, a commlib call), and the region
// around it sees all of its time as timed apart.
func TestRegionAccounting(t *testing.T) {
	forget(idRegionOuter, idRegionInner)
	outer := RegionStart()
	for range 3 {
		inner := RegionStart()
		calSink += plainLoop(make([]int64, 64), 1000)
		RegionLoop(idRegionInner, inner, 1000)
	}
	addComm(callerRank(), 1e9) // a second in commlib: more than the region took
	Region(idRegionOuter, outer)
	in, out := fragment(t, idRegionInner), fragment(t, idRegionOuter)
	if in.Kind != "region" || in.Count != 3 || in.Iterations != 3000 || in.SumNS <= 0 || in.InclNS != in.SumNS {
		t.Errorf("inner region: %+v; want 3 entries, 3000 iterations, all its time its own", in)
	}
	if out.Kind != "region" || out.Count != 1 || out.SumNS != 0 || out.InclNS < in.InclNS {
		t.Errorf("outer region: %+v; want its inner regions' and the commlib call's time taken off (none left)", out)
	}
	a := accountOf(callerRank())
	before := a.ns
	r := RegionStart()
	Region(idRegionOuter, r)
	if d := a.ns - before; d < regionOutNS.Load() || d > 1e8 {
		t.Errorf("an empty region added %d ns to its rank's account", d)
	}
}
