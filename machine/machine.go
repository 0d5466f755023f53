// This file defines the machine description: its shape, LogGOPS levels,
// ping-pong tables, NIC contention, thread costs and collective choices.

package machine

import (
	"maps"
	"slices"

	"github.com/predict-tools/predict/trace"
)

// FormatName and FormatVersion identify machine files.
const (
	FormatName    = "predict-machine"
	FormatVersion = 1
)

// A Machine describes a target: its nodes and how ranks are placed on them,
// the cost of messages within and between nodes, of thread primitives and
// of computation. A Machine is plain data: build one with [Preset], [Load],
// [Parse] or estimator.Calibrate, or fill the fields and call
// [Machine.Validate].
// The cost methods read it and never change it, so one Machine may serve
// many interpretations at once.
type Machine struct {
	Name        string // short name, e.g. a preset's or a cluster's
	Description string // one line for humans
	Source      string // where the figures come from (measurement, publication, calibration run)
	Origin      Origin // how the figures were obtained

	// Shape. Nodes is the number of nodes the machine offers, 0 for as many
	// as a job needs. RanksPerNode is how many ranks a job places on a node,
	// 0 for no limit (the job spreads over all Nodes); it may exceed
	// CoresPerNode (oversubscription). See [Machine.NodeOf].
	Nodes        int
	CoresPerNode int
	RanksPerNode int
	Mapping      Mapping
	Placement    []int // rank → node, with Mapping == Explicit only

	// CPUFactor scales measured compute times to the target: a fragment
	// measured at t runs in t·CPUFactor there (0.5: the target's cores are
	// twice as fast as those of the profiling run). See [Machine.Compute].
	CPUFactor float64

	Intra LogGOPS // between ranks on one node
	Inter LogGOPS // between ranks on different nodes
	Table Tables  // optional ping-pong tables; they override the LogGOPS transfer time

	NIC     NIC
	Threads ThreadCosts
	// MemoryBandwidth is what a node's memory delivers to all its cores
	// at once, in bytes per second (a STREAM triad with one stream per
	// core, as predict calibrate measures it); 0: unknown.
	MemoryBandwidth float64
	// Wakeup is the delay of a blocked rank in resuming (see [Wakeup]);
	// empty: none.
	Wakeup Wakeup
	// StealDelay is how long a core that is free, or frees, takes to run a
	// rank that another rank of its node readied to run next on its own
	// core (Go's runnext), while that rank keeps its core: the in-process
	// runtime's idle P steals such a goroutine only after a pause
	// (runtime.runqgrab's usleep(3), which Linux's timer slack stretches
	// to tens of µs). 0: at once. Runtimes whose ranks are processes
	// (MPI) have none.
	StealDelay trace.Time
	// Noise is how a rank's bursts of compute vary (see [Noise]); empty:
	// none, each takes its mean.
	Noise Noise

	// Collectives maps a collective's name (see [CollectiveNames]) to the
	// algorithm to use; a collective that is absent, or mapped to Auto,
	// is chosen by size and np as MPI libraries do ([Machine.CollectiveAlgorithm]).
	Collectives map[string]Algorithm
}

// Origin says how a machine's figures were obtained. Reports print it, and
// say loudly when a preset stands in for a calibration.
type Origin string

const (
	// OriginPreset: typical figures shipped with predict, not measured on
	// the target.
	OriginPreset Origin = "preset"
	// OriginMeasured: a quick measurement on this machine (files written
	// by earlier versions of predict; estimator.Calibrate writes
	// OriginCalibrated, --quick too).
	OriginMeasured Origin = "measured"
	// OriginCalibrated: a full calibration on the target (predict calibrate).
	OriginCalibrated Origin = "calibrated"
	// OriginUser: written or edited by hand; the figures are the user's.
	OriginUser Origin = "user"
)

var origins = []Origin{OriginPreset, OriginMeasured, OriginCalibrated, OriginUser}

// Mapping is the policy that places ranks on nodes.
type Mapping string

const (
	// Block: consecutive ranks fill a node before the next one is used.
	Block Mapping = "block"
	// Cyclic: ranks go round-robin over the nodes the job uses.
	Cyclic Mapping = "cyclic"
	// Explicit: Placement lists the node of every rank.
	Explicit Mapping = "explicit"
)

var mappings = []Mapping{Block, Cyclic, Explicit}

// LogGOPS is the cost model of one level (intra-node or inter-node) in the
// LogGOPS model of LogGOPSim (Hoefler et al.): JSON keys L, o, g, G, O, S.
type LogGOPS struct {
	Latency         trace.Time // L: wire latency of a message
	Overhead        trace.Time // o: CPU time to send or to receive a message
	GapPerMessage   trace.Time // g: minimum time between two message injections at a NIC
	GapPerByte      PerByte    // G: time per byte on the wire (1/bandwidth)
	OverheadPerByte PerByte    // O: CPU time per byte to send or to receive
	EagerLimit      int64      // S: bytes; messages of at most S bytes are eager, larger ones rendezvous
}

// Tables holds the optional ping-pong tables of the two levels, and the
// optional piecewise-linear fits of them. An empty table means the LogGOPS
// fit alone decides; segments need their level's table, which decides
// inside its range, and extend it beyond its last point (see
// [Link.Transfer]).
type Tables struct {
	Intra Table
	Inter Table
	// IntraSegments and InterSegments are the fits of Intra and Inter
	// (machine file: table.intra.segments, table.inter.segments).
	IntraSegments Segments
	InterSegments Segments
}

// A Table is a piecewise-linear ping-pong table: message size → one-way
// time (half a round trip, what a calibration measures), sorted by strictly
// increasing size, at least two points. See [Table.At].
type Table []TablePoint

// TablePoint is one measured point of a [Table].
type TablePoint struct {
	Bytes int64
	Time  trace.Time
}

// NIC describes contention at the network interfaces of nodes. With
// Contention off (the default, as in LogGOPSim) messages between nodes
// never delay one another beyond each rank's own gap g. With it on, every
// node has one injection and one ejection port that inter-node messages
// occupy for bytes × Injection and bytes × Ejection, one at a time
// ([NICQueues]). A zero Injection or Ejection means the inter-node G: the
// NIC serializes messages at the link rate.
type NIC struct {
	Contention bool
	Injection  PerByte
	Ejection   PerByte
}

// ThreadCosts are the costs of thread primitives inside a rank, after
// ParJava's thesis §4.1.2 (seed-003 §4.5; its names in parentheses). The
// interpreter adds the waiting times (a lock held by another thread, a join
// waiting for the slowest task) itself.
type ThreadCosts struct {
	Create          trace.Time // per thread of a new pool: NewPool(n) costs n × Create (time_tCreate)
	SetTask         trace.Time // the master's cost of handing one task to the pool (pr_SetTask)
	Start           trace.Time // from SetTask until a free worker starts the task (time_tStart)
	Copy            PerByte    // copying data between threads, per byte (time_copy)
	CAS             trace.Time // an atomic compare-and-set, swap or add (time_aCAS)
	CreateAtomic    trace.Time // creating an atomic variable (time_aCreate)
	CreateSemaphore trace.Time // creating a semaphore, mutex or barrier (time_sCreate)
	TryLock         trace.Time // one attempt to take a lock or semaphore (time_tryLock)
	Release         trace.Time // releasing a lock or semaphore (time_release)
}

// IsPreset reports whether m's figures are a preset's, standing in for a
// calibration of the target.
func (m *Machine) IsPreset() bool { return m.Origin == OriginPreset }

// Info names a machine in the record of a prediction (predict run's and
// predict scale's JSON).
type Info struct {
	Name        string `json:"name"`
	Origin      string `json:"origin"` // preset, measured, calibrated, user
	Description string `json:"description"`
	File        string `json:"file,omitempty"` // the machine file, when not a preset
}

// Info returns the record of m, read from file ("" for a preset).
func (m *Machine) Info(file string) *Info {
	return &Info{Name: m.Name, Origin: string(m.Origin), Description: m.Description, File: file}
}

// Clone returns a deep copy of m.
func (m *Machine) Clone() *Machine {
	c := *m
	c.Placement = slices.Clone(m.Placement)
	c.Table.Intra = slices.Clone(m.Table.Intra)
	c.Table.Inter = slices.Clone(m.Table.Inter)
	c.Table.IntraSegments = slices.Clone(m.Table.IntraSegments)
	c.Table.InterSegments = slices.Clone(m.Table.InterSegments)
	c.Collectives = maps.Clone(m.Collectives)
	c.Wakeup = slices.Clone(m.Wakeup)
	c.Noise = slices.Clone(m.Noise)
	for i := range c.Noise {
		c.Noise[i].Deviations = slices.Clone(m.Noise[i].Deviations)
	}
	return &c
}
