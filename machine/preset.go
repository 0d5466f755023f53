// This file defines the presets: machines shipped with predict whose
// figures are documented typical values, and the lookup of a machine by
// preset name or file path.

package machine

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/predict-tools/predict/trace"
)

const (
	ns = trace.Nanosecond
	us = trace.Microsecond
)

// goThreads are the thread costs of the presets other than ideal: Go
// runtime figures measured with estimator.MeasureLocal on the development
// machine (a 2-vCPU AMD EPYC VM, Go 1.26, medians of three runs, rounded).
// They depend on the Go scheduler more than on the cluster, so the cluster
// presets use them too. Start, the wake-up of a parked worker, is the largest; a
// cache-resident 4 MiB copy ran at about 55 GB/s.
var goThreads = ThreadCosts{
	Create:          400 * ns,
	SetTask:         80 * ns,
	Start:           4700 * ns,
	Copy:            18 * PicosecondPerByte,
	CAS:             2300, // 2.3 ns
	CreateAtomic:    15 * ns,
	CreateSemaphore: 35 * ns,
	TryLock:         4500, // 4.5 ns
	Release:         4500, // 4.5 ns
}

// presets builds each preset afresh, so callers may change what they get.
var presets = map[string]func() *Machine{
	"ideal":          ideal,
	"local":          local,
	"ethernet-10g":   ethernet10G,
	"infiniband-hdr": infinibandHDR,
}

// PresetNames returns the names of the presets, sorted.
func PresetNames() []string {
	names := make([]string, 0, len(presets))
	for name := range presets {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Preset returns a fresh copy of the named preset machine: ideal, local,
// ethernet-10g or infiniband-hdr. Its Origin is [OriginPreset].
func Preset(name string) (*Machine, error) {
	build, ok := presets[name]
	if !ok {
		return nil, fmt.Errorf("unknown machine preset %q: the presets are %s", name, strings.Join(PresetNames(), ", "))
	}
	return build(), nil
}

// Resolve returns the machine that a --machine argument names: a preset
// when the argument is a preset's name and has no path separator or dot
// ("local"), else the machine file at that path ("./local",
// "cluster.machine.json").
func Resolve(nameOrPath string) (*Machine, error) {
	if _, ok := presets[nameOrPath]; ok && !strings.ContainsAny(nameOrPath, `/\.`) {
		return Preset(nameOrPath)
	}
	if _, err := os.Stat(nameOrPath); err != nil && !strings.ContainsAny(nameOrPath, `/\.`) {
		return nil, fmt.Errorf("machine %q: neither a preset (%s) nor a file", nameOrPath, strings.Join(PresetNames(), ", "))
	}
	return Load(nameOrPath)
}

// commlibEagerLimit is commlib.DefaultEagerLimit, the eager limit of the
// in-process runtime, which the ideal and local presets take. machine
// describes targets and does not import the programs' runtime;
// TestCommlibEagerLimit keeps the two equal.
const commlibEagerLimit = 64 << 10

// idealCores are the ideal machine's cores per node: more than any rank's
// threads, so that none waits for a core.
const idealCores = 1 << 16

// ideal is free communication and threads: what remains is computation and
// the order that messages impose (POP's ideal-network replay, Dimemas with
// latency 0 and infinite bandwidth). For Amdahl checks.
func ideal() *Machine {
	free := LogGOPS{EagerLimit: commlibEagerLimit}
	return &Machine{
		Name:        "ideal",
		Description: "ideal machine: communication and thread primitives cost nothing, bandwidth is infinite, every thread has a core",
		Source: "by definition (zero costs, as Dimemas's ideal network); the eager limit is commlib's " +
			"DefaultEagerLimit so that sends block where the program's runtime would; 65536 cores a node, so that no thread waits for one",
		Origin:       OriginPreset,
		Nodes:        0,
		CoresPerNode: idealCores,
		RanksPerNode: 1,
		Mapping:      Block,
		CPUFactor:    1,
		Intra:        free,
		Inter:        free,
	}
}

// local describes the in-process runtime on the development machine
// (commlib's benchmarks, commlib/bench_test.go, and a quick measurement of
// the time). estimator.Calibrate measures the machine at hand instead.
func local() *Machine {
	// One-way 1 B = o + L + o = 150 + 800 + 150 ns = 1.1 µs; G = 1/(20 GB/s).
	lg := LogGOPS{
		Latency:       800 * ns,
		Overhead:      150 * ns,
		GapPerMessage: 400 * ns,
		GapPerByte:    50 * PicosecondPerByte,
		EagerLimit:    commlibEagerLimit,
	}
	return &Machine{
		Name:        "local",
		Description: "this machine's in-process runtime (ranks as goroutines of one process)",
		Source: "measured on the development machine (2-vCPU AMD EPYC VM, Go 1.26): commlib's benchmarks give a one-way " +
			"ping-pong time of about 1.1 us for 1 B and about 20 GB/s at 4 MiB; MeasureLocal gives median Send calls of " +
			"about 150 ns, Recv of an arrived message 80-130 ns, 320-660 ns per message in a stream, and the thread costs; " +
			"eager limit commlib.DefaultEagerLimit; collectives linear because commlib's are centralized. For reference, " +
			"Barrier at np=64 took about 100 us and Allreduce of one float64 about 110 us there, dominated by scheduling " +
			"64 goroutines on 2 cores, which these figures do not model; a rank blocked beyond commlib's 100 us of polling resumes " +
			"11-17 us late (the wake-up curve, MeasureLocal's medians of five runs); a rank readied to run next on a busy core " +
			"waits 78 us before a free core takes it (the steal delay, Go's pause before it steals from runnext)",
		Origin:       OriginPreset,
		Nodes:        1,
		CoresPerNode: runtime.NumCPU(),
		RanksPerNode: 0,
		Mapping:      Block,
		CPUFactor:    1,
		Intra:        lg,
		Inter:        lg,
		Threads:      goThreads,
		Collectives:  LinearCollectives(),
		Wakeup:       localWakeup,
		StealDelay:   localSteal,
	}
}

// localSteal is the in-process runtime's steal delay on the development
// machine (machine.StealDelay): the median over 59 trials of
// estimator's steal measurement, 78-80 us in two runs (2026-11-28, load
// 0.3); a plain Go program with channels gave 72-77 us for readiers that
// computed on for 150 us to 3 ms.
const localSteal = 78 * us

// localWakeup is the in-process runtime's wake-up curve on the development
// machine: the medians of five runs of estimator.MeasureLocal (one-way
// times of 1 B to a rank blocked in Recv while its partner computed for
// the time blocked, trimmed means less the one-way time to a rank that did
// not block). commlib polls for 100 us (DefaultSpinWait) before it parks
// a blocked rank; beyond, the operating system wakes its thread.
var localWakeup = Wakeup{
	{50 * us, 1 * us},
	{100 * us, 2600 * ns},
	{150 * us, 11 * us},
	{300 * us, 12500 * ns},
	{trace.Millisecond, 14 * us},
	{3 * trace.Millisecond, 17 * us},
}

// ethernet10G is a commodity cluster on 10 Gigabit Ethernet with MPI over
// kernel TCP.
//
// Inter-node: one-way 1 B = 5 + 15 + 5 µs = 25 µs, the low end of the
// 25-50 µs usually measured for MPI over TCP on 10 GbE (OSU latency);
// 1.1 GB/s for large messages: 10 Gb/s is 1.25 GB/s, TCP/IPv4 over
// 1500-byte frames carries 1460 of every 1538 bytes on the wire (≈1.19 GB/s
// of payload), and MPI over TCP reaches about 1.1 GB/s. g = 6 µs (some
// 170,000 small messages per second per process); the split of the latency
// into o and L is an assumption. S = 64 KiB, Open MPI's TCP BTL default
// (btl_tcp_eager_limit = 65536).
//
// Intra-node shared memory: one-way 0.4 µs, 10 GB/s, S = 4 KiB, Open MPI's
// vader BTL default (btl_vader_eager_limit). 32 cores per node.
func ethernet10G() *Machine {
	return &Machine{
		Name:        "ethernet-10g",
		Description: "commodity cluster: 10 Gigabit Ethernet, MPI over TCP, 32 cores per node",
		Source: "typical published figures, rounded, not a measurement of any one cluster: inter-node one-way " +
			"25 us for small messages (MPI over kernel TCP on 10 GbE measures 25-50 us with the OSU latency test) " +
			"and 1.1 GB/s for large ones (10 Gb/s = 1.25 GB/s, about 1.19 GB/s of TCP payload with 1500-byte frames); " +
			"eager limit 64 KiB (Open MPI btl_tcp_eager_limit default); intra-node shared memory 0.4 us and 10 GB/s, " +
			"eager limit 4 KiB (Open MPI btl_vader_eager_limit default); the split of latency into o and L, and g, " +
			"are assumptions; thread costs are Go runtime figures from the development machine",
		Origin:       OriginPreset,
		Nodes:        0,
		CoresPerNode: 32,
		RanksPerNode: 32,
		Mapping:      Block,
		CPUFactor:    1,
		Intra: LogGOPS{
			Latency:       200 * ns,
			Overhead:      100 * ns,
			GapPerMessage: 150 * ns,
			GapPerByte:    100 * PicosecondPerByte, // 10 GB/s
			EagerLimit:    4096,
		},
		Inter: LogGOPS{
			Latency:       15 * us,
			Overhead:      5 * us,
			GapPerMessage: 6 * us,
			GapPerByte:    909091, // fs/B: 1/(1.1 GB/s) = 909.091 ps/B
			EagerLimit:    65536,
		},
		Threads: goThreads,
	}
}

// infinibandHDR is an HPC cluster on InfiniBand HDR (200 Gb/s).
//
// Inter-node: one-way 1 B = 0.2 + 0.7 + 0.2 µs = 1.1 µs and 24 GB/s for
// large messages: HDR signals at 200 Gb/s with 64b/66b coding (≈24.2 GB/s
// of data), and OSU latency and bandwidth tests on HDR adapters report
// about 1.0-1.1 µs and 24 GB/s. g = 0.2 µs (5 million small messages per
// second per process); the split of the latency into o and L is an
// assumption. S = 12 KiB, the openib BTL eager limit of Open MPI as usually
// reported.
//
// Intra-node shared memory: one-way 0.3 µs, 16 GB/s, S = 4 KiB (Open MPI's
// vader BTL default). 64 cores per node.
func infinibandHDR() *Machine {
	return &Machine{
		Name:        "infiniband-hdr",
		Description: "HPC cluster: InfiniBand HDR (200 Gb/s), 64 cores per node",
		Source: "typical published figures, rounded, not a measurement of any one cluster: inter-node one-way " +
			"1.1 us for small messages and 24 GB/s for large ones (HDR: 200 Gb/s with 64b/66b coding, about 24.2 GB/s " +
			"of data; OSU latency/bandwidth results on HDR adapters are about 1.0-1.1 us and 24 GB/s); eager limit " +
			"12 KiB (Open MPI's openib BTL default as usually reported); intra-node shared memory 0.3 us and 16 GB/s, " +
			"eager limit 4 KiB (Open MPI btl_vader_eager_limit default); the split of latency into o and L, and g, " +
			"are assumptions; thread costs are Go runtime figures from the development machine",
		Origin:       OriginPreset,
		Nodes:        0,
		CoresPerNode: 64,
		RanksPerNode: 64,
		Mapping:      Block,
		CPUFactor:    1,
		Intra: LogGOPS{
			Latency:       150 * ns,
			Overhead:      75 * ns,
			GapPerMessage: 100 * ns,
			GapPerByte:    62500, // fs/B: 1/(16 GB/s) = 62.5 ps/B
			EagerLimit:    4096,
		},
		Inter: LogGOPS{
			Latency:       700 * ns,
			Overhead:      200 * ns,
			GapPerMessage: 200 * ns,
			GapPerByte:    41667, // fs/B: 1/(24 GB/s) = 41.667 ps/B
			EagerLimit:    12288,
		},
		Threads: goThreads,
	}
}

// LinearCollectives makes every collective linear: commlib's in-process
// collectives are centralized (each rank deposits its part in one shared
// instance and the last to arrive completes it), a fan-in and fan-out
// through one point rather than a tree.
func LinearCollectives() map[string]Algorithm {
	c := map[string]Algorithm{}
	for _, name := range CollectiveNames() {
		c[name] = Linear
	}
	return c
}
