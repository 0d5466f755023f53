package machine

import (
	"testing"

	"github.com/predict-tools/predict/trace"
)

const nsT = trace.Nanosecond

// logGOPSimDefaults are LogGOPSim's default parameters (peers.md §1.2).
var logGOPSimDefaults = LogGOPS{
	Latency:       2500 * nsT,
	Overhead:      1500 * nsT,
	GapPerMessage: 1000 * nsT,
	GapPerByte:    6 * NanosecondPerByte,
	EagerLimit:    65535,
}

func TestLogGOPSDefaults(t *testing.T) {
	p := logGOPSimDefaults
	// A 1 KiB eager message.
	const s = 1024
	check := func(what string, got, want trace.Time) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %d ps, want %d ps", what, got, want)
		}
	}
	check("SendOverhead(1KiB)", p.SendOverhead(s), 1500*nsT)
	check("RecvOverhead(1KiB)", p.RecvOverhead(s), 1500*nsT)
	check("Gap(1KiB)", p.Gap(s), (1000+1023*6)*nsT)
	check("Transfer(1KiB)", p.Transfer(s), (1500+2500+1023*6)*nsT) // 10138 ns
	link := Link{LogGOPS: &p}
	check("OneWay(1KiB)", link.OneWay(s), 11638*nsT)
	if !p.Eager(s) || !p.Eager(65535) || p.Eager(65536) {
		t.Errorf("Eager: want s <= 65535")
	}
	// An empty message costs what a 1-byte one does.
	check("Transfer(0)", p.Transfer(0), 4000*nsT)
	check("Transfer(1)", p.Transfer(1), 4000*nsT)
	// O charges both CPUs per byte beyond the first, and not the wire.
	p.OverheadPerByte = 2 * NanosecondPerByte
	check("SendOverhead(1KiB, O=2ns/B)", p.SendOverhead(s), (1500+1023*2)*nsT)
	check("RecvOverhead(1KiB, O=2ns/B)", p.RecvOverhead(s), (1500+1023*2)*nsT)
	check("Transfer(1KiB, O=2ns/B)", p.Transfer(s), 10138*nsT)
	// A rendezvous-sized message: 1 MiB.
	p = logGOPSimDefaults
	check("Transfer(1MiB)", p.Transfer(1<<20), (1500+2500+((1<<20)-1)*6)*nsT)
}

func TestTable(t *testing.T) {
	tab := Table{
		{Bytes: 1, Time: 1000 * nsT},
		{Bytes: 1025, Time: 2024 * nsT},  // slope 1 ns/B
		{Bytes: 2049, Time: 2536 * nsT},  // slope 0.5 ns/B
		{Bytes: 4097, Time: 3560 * nsT},  // slope 0.5 ns/B
		{Bytes: 8193, Time: 11752 * nsT}, // slope 2 ns/B
	}
	for _, c := range []struct {
		s    int64
		want trace.Time
	}{
		{0, 1000 * nsT},          // below the first point: its time
		{1, 1000 * nsT},          // on a point
		{513, 1512 * nsT},        // interpolated
		{1025, 2024 * nsT},       // on a point
		{1026, 2024500},          // half a nanosecond more
		{3073, 3048 * nsT},       // interpolated, second segment
		{8193, 11752 * nsT},      // the last point
		{16385, 28136 * nsT},     // extrapolated with the last slope: 11752 + 8192·2
		{1 << 30, 2147479014000}, // far beyond: 11752 ns + (2^30 − 8193)·2 ns
	} {
		if got := tab.At(c.s); got != c.want {
			t.Errorf("At(%d) = %d, want %d", c.s, got, c.want)
		}
	}
	if got := (Table{}).At(100); got != 0 {
		t.Errorf("empty table: At = %d, want 0", got)
	}
	// Rounding to the nearest picosecond: 1 ps over 3 bytes.
	small := Table{{0, 0}, {3, 1}}
	if got := small.At(1); got != 0 {
		t.Errorf("At(1) of 1 ps over 3 B = %d, want 0", got)
	}
	if got := small.At(2); got != 1 {
		t.Errorf("At(2) of 1 ps over 3 B = %d, want 1", got)
	}
}

func TestLinkTable(t *testing.T) {
	m := testMachine()
	m.Table.Inter = Table{{Bytes: 1, Time: 5 * trace.Microsecond}, {Bytes: 1 << 20, Time: 100 * trace.Microsecond}}
	inter := m.Level(true)
	// The table decides the one-way time; the transfer leaves room for the
	// receive overhead.
	if got, want := inter.OneWay(1), 5*trace.Microsecond; got != want {
		t.Errorf("OneWay(1) = %d, want %d", got, want)
	}
	if got, want := inter.Transfer(1), 5*trace.Microsecond-inter.RecvOverhead(1); got != want {
		t.Errorf("Transfer(1) = %d, want %d", got, want)
	}
	// Beyond the eager limit (64 KiB) the table's ping-pong ran the
	// rendezvous protocol: its time holds the handshake the interpreter
	// adds, o + L = 4 µs and L = 2.5 µs, so the data's part is 6.5 µs less
	// and a rendezvous ping-pong costs the table's time.
	if req, ans := inter.Rendezvous(1 << 20); req != 4000*nsT || ans != 2500*nsT {
		t.Errorf("Rendezvous(1MiB) = %d, %d, want 4000 and 2500 ns", req, ans)
	}
	if got, want := inter.OneWay(1<<20), 100*trace.Microsecond-6500*nsT; got != want {
		t.Errorf("OneWay(1MiB) = %d, want %d", got, want)
	}
	if got, want := inter.PingPong(1<<20), 100*trace.Microsecond; got != want {
		t.Errorf("rendezvous ping-pong of 1 MiB = %d, want the table's %d", got, want)
	}
	// A table that leaves less than the handshake beyond the overheads
	// (o = 1.5 µs each side): at 128 KiB, 6 µs − 3 µs leaves 3 µs of the
	// 6.5, taken from both legs in proportion (4:2.5); the ping-pong is
	// still the table's time. Below the eager limit (an Ssend) the
	// handshake is whole: the table's time was an eager send's.
	m.Table.Inter = Table{{Bytes: 1, Time: 5 * trace.Microsecond}, {Bytes: 1 << 17, Time: 6 * trace.Microsecond}}
	inter = m.Level(true)
	if req, ans := inter.Rendezvous(1 << 17); req != 1_846_154 || ans != 1_153_846 {
		t.Errorf("Rendezvous(128KiB) = %d, %d, want 1846154 and 1153846 ps (3 µs × 4/6.5 and the rest)", req, ans)
	}
	if got, want := inter.PingPong(1<<17), 6*trace.Microsecond; got != want {
		t.Errorf("ping-pong of 128 KiB = %d, want the table's %d", got, want)
	}
	if req, ans := inter.Rendezvous(100); req != 4000*nsT || ans != 2500*nsT {
		t.Errorf("Rendezvous(100) = %d, %d, want the whole handshake", req, ans)
	}
	// Never less than the send overhead, even for a table that says so.
	m.Table.Inter = Table{{Bytes: 1, Time: 1 * nsT}, {Bytes: 2, Time: 2 * nsT}}
	if got, want := m.Level(true).Transfer(1), m.Inter.SendOverhead(1); got != want {
		t.Errorf("Transfer below the overheads = %d, want the send overhead %d", got, want)
	}
	// The intra level has no table: the fit decides.
	if got, want := m.Level(false).Transfer(1000), m.Intra.Transfer(1000); got != want {
		t.Errorf("intra Transfer = %d, want the fit's %d", got, want)
	}
}

// TestLinkCopy: moving s bytes with no message around them costs s·G
// without a table, and with one what s bytes add to the table's first
// size, never less than s·G. Hand-computed on a table of 5 µs at 1 B and
// 100 µs at 1 MiB: at 512 KiB the table says 5 + 95·(512Ki − 1)/(1Mi − 1)
// µs, 47.499955 µs more than at 1 B.
func TestLinkCopy(t *testing.T) {
	m := testMachine()
	intra := m.Level(false)
	if got, want := intra.Copy(1<<19), m.Intra.GapPerByte.Times(1<<19); got != want {
		t.Errorf("Copy without a table = %d, want s·G = %d", got, want)
	}
	m.Table.Intra = Table{{Bytes: 1, Time: 5 * trace.Microsecond}, {Bytes: 1 << 20, Time: 100 * trace.Microsecond}}
	m.Intra.GapPerByte = PerByte(10_000) // 10 ps a byte: below the table's 90.6
	intra = m.Level(false)
	if got, want := intra.Copy(1<<19), trace.Time(47_499_955); got != want {
		t.Errorf("Copy(512KiB) = %d ps, want the table's difference %d", got, want)
	}
	if got, want := intra.Copy(1), m.Intra.GapPerByte.Times(1); got != want {
		t.Errorf("Copy(1) = %d, want s·G = %d (at the table's first size)", got, want)
	}
	m.Intra.GapPerByte = PerByte(1_000_000) // 1 ns a byte: above the table's slope
	intra = m.Level(false)
	if got, want := intra.Copy(1<<19), trace.Time(1000<<19); got != want {
		t.Errorf("Copy(512KiB) = %d ps, want s·G = %d", got, want)
	}
}

func TestLinkLevel(t *testing.T) {
	m := testMachine() // 4 ranks per node, block
	if l := m.Link(0, 3, 16); l.Inter || l.LogGOPS != &m.Intra {
		t.Errorf("ranks 0 and 3 of 16: want the intra-node level")
	}
	if l := m.Link(3, 4, 16); !l.Inter || l.LogGOPS != &m.Inter {
		t.Errorf("ranks 3 and 4 of 16: want the inter-node level")
	}
}

func TestCompute(t *testing.T) {
	m := testMachine()
	if got := m.Compute(12345); got != 12345 {
		t.Errorf("factor 1: Compute(12345) = %d", got)
	}
	m.CPUFactor = 0.5
	if got := m.Compute(12345); got != 6173 { // 6172.5 rounds up
		t.Errorf("factor 0.5: Compute(12345) = %d, want 6173", got)
	}
	m.CPUFactor = 2.5
	if got := m.Compute(trace.Second); got != 2500*trace.Millisecond {
		t.Errorf("factor 2.5: Compute(1s) = %d", got)
	}
}

func TestThreadCosts(t *testing.T) {
	// seed-003 §11 vectors 5 and 6.
	c := ThreadCosts{Create: 50 * trace.Microsecond, Copy: 100 * PicosecondPerByte, TryLock: 2}
	if got := c.PoolCreate(8); got != 400*trace.Microsecond {
		t.Errorf("PoolCreate(8) = %d, want 400us", got)
	}
	if got := c.CopyCost(1 << 20); got != 104857600 {
		t.Errorf("CopyCost(1MiB) = %d ps, want 104857.6 ns", got)
	}
	// th2 asks at 6 for a lock released at 15: it gets it at 15 + TryLock.
	if got := c.LockAcquired(6, 15); got != 17 {
		t.Errorf("LockAcquired(6, 15) = %d, want 17", got)
	}
	// th1 asks at 5 for a lock released at 0: no wait.
	if got := c.LockAcquired(5, 0); got != 7 {
		t.Errorf("LockAcquired(5, 0) = %d, want 7", got)
	}
}

// testMachine is a small valid machine: 4 ranks per node, block mapping,
// LogGOPSim's defaults between nodes and cheaper ones within.
func testMachine() *Machine {
	return &Machine{
		Name:         "test",
		Origin:       OriginUser,
		Nodes:        0,
		CoresPerNode: 4,
		RanksPerNode: 4,
		Mapping:      Block,
		CPUFactor:    1,
		Intra: LogGOPS{
			Latency: 200 * nsT, Overhead: 100 * nsT, GapPerMessage: 100 * nsT,
			GapPerByte: 100 * PicosecondPerByte, EagerLimit: 4096,
		},
		Inter: logGOPSimDefaults,
	}
}
