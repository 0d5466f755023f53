// This file defines the interpreter's entry point: the world is built from
// the reduced model, the profile and the machine; package initializers and
// the driver run first (flags get the program's arguments); then the SPMD
// body runs in every logical process.

package interp

import (
	"fmt"
	"go/token"
	"strings"
	"sync"

	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/modelgen"
	"github.com/predict-tools/predict/profile"
	"github.com/predict-tools/predict/reduce"
	"github.com/predict-tools/predict/trace"
	"golang.org/x/tools/go/ssa"
)

// Program is a program prepared for interpretation: loaded, modeled and
// reduced once (reduce.Prepare), interpreted at any np.
type Program struct {
	*reduce.Prepared

	// What the program computes once per profile (entryFor), under
	// perProfMu.
	perProfMu sync.Mutex
	units     map[*profile.File]*unitTimes // units.go
	balances  map[*profile.File]*balance   // balance.go

	memoryMu sync.Mutex
	memory   map[memoryKey]*MemoryEstimate // memory.go
}

// Prepare loads, models and reduces the main package pattern (relative to
// dir).
func Prepare(dir, pattern string) (*Program, error) {
	p, err := reduce.Prepare(modelgen.Config{Dir: dir, Pattern: pattern}, reduce.Options{})
	if err != nil {
		return nil, err
	}
	return New(p), nil
}

// New returns the program p for interpretation.
func New(p *reduce.Prepared) *Program { return &Program{Prepared: p} }

// Config is one interpretation.
type Config struct {
	NP      int
	Machine *machine.Machine
	Profile *profile.File // nil: compute costs nothing
	Args    []string      // the program's arguments
	// Trace, when set, receives the modeled trace's events, in the order
	// the interpreter produces them (trace.Sort orders them).
	Trace func(trace.Event)
	// MaxEvents stops a run after that many communication events (0: no
	// limit).
	MaxEvents int64
	// RankDetail is the largest np for which Result.Ranks is filled
	// (default 4096).
	RankDetail int
	// Nodes asks for Result.Nodes: how each node's cores were used
	// (nodes.go).
	Nodes bool
	// Threads is what commlib.Threads returns: the threads per rank of
	// the program's pools (0: the program's own choice, its argument).
	Threads int
	// MemoryLimit is the memory in bytes a run may use (0: GOMEMLIMIT,
	// else the system's available memory; memory.go). A run at a large
	// np that will not fit is refused with a *MemoryError.
	MemoryLimit int64
	// NoNoise leaves the machine's noise out (machine.Noise): each burst
	// of compute takes its mean time, and ranks that do the same work
	// never wait for each other. NoiseSeed seeds the ranks' draws (any
	// value; the commands' default is DefaultNoiseSeed).
	NoNoise   bool
	NoiseSeed uint64
	// Memory, when set, is the program's measured memory per process
	// (Program.EstimateMemory), used instead of measuring it again.
	Memory *MemoryEstimate
	// sample, when set, sees the world once its processes have started
	// and after each step (memory.go measures the heap with it).
	sample func(w *World)
}

// World is one interpretation in progress: a run of a compiled program
// (Compiled, whose plan and code it shares) with its own processes,
// scheduler, communication state, recycling and counters.
type World struct {
	*Compiled

	cfg   Config
	intra linkCost
	inter linkCost
	// wake is the machine's wake-up curve: the delay of a blocked rank
	// in resuming (resume); empty: none.
	wake machine.Wakeup
	// steal is the machine's steal delay (machine.StealDelay): how long a
	// free core takes to run a rank readied to run next on a busy one
	// (nodecores.go); 0: at once.
	steal int64
	// noise is the machine's noise of compute bursts (noise.go); nil:
	// none, or left out.
	noise machine.Noise
	// burstLen is, per operation's site (siteID), the length without
	// noise of the last burst of compute, of any rank, that started there
	// (noise.go).
	burstLen []int64
	// nodeRanks counts the ranks per node, active those not blocked in
	// communication or ended (cores.go, initNodes).
	nodeRanks, active []int32

	procs   []*proc
	ready   procHeap
	blocked int
	// parks counts the blocks of ranks that gave up a core of a node with
	// more ranks than cores (schedule; coresLimit).
	parks    int64
	finished int

	hot []hotCounter // per fragment index

	groups   []*group
	nodeOf   []int32 // world rank → node
	msgID    int64
	reqID    int64
	collID   int64
	messages int64
	events   int64
	freeMsgs []*message // recycled (recycle.go)
	freeReqs []*request

	assumptions map[string]string
	inited      map[*function]bool
	flags       *flagSet
	body        V
	bodySite    string
	running     *proc // the process the scheduler runs, for modeling limits
}

// fragment is a measured part of the program and its time per execution.
type fragment struct {
	index int
	node  string
	kind  string
	pos   string
	// seen is the executions the timing pass counted (0: not counted),
	// with the profile's arguments. For a run with the same arguments,
	// limit bounds the executions the model may charge, far beyond those
	// (0: none; see runawayLimit), and recorded is seen; both are set
	// per run (Compiled.reset).
	seen     int64
	limit    int64
	recorded int64
	mean     int64
	errRel   float64 // the profile's relative error bound of mean
	units    bool    // the innermost iterations of a loop counted in units: not an execution of it
	// alloc, for a segment that allocates problem-sized slices: its time
	// follows the bytes it allocates (units.go).
	alloc *allocUnits
	// alone is its time with no other rank computing beside it over its
	// time as measured (the profile's AloneRel); 0: not known (cores.go).
	alone float64
	// loaded is its time beside the timing pass's memory co-runners over
	// its time as measured (the profile's LoadedRel); 0: not known.
	loaded float64
}

// loopPlan is a loop run as a whole.
type loopPlan struct {
	node    string
	pos     string
	frag    *fragment
	perIter int64
	// firstIters are, for an unbalanced loop whose iterations differ by
	// their index (profile.LoopStats.FirstItersPS), the time of its first
	// j iterations at firstIters[j-1]; laterIter the time of each after
	// them. Empty: every iteration costs perIter.
	firstIters []int64
	laterIter  int64
	blocks     map[int]bool
	exit       *block
	exitFrom   *block      // the block the loop is left from
	why        string      // why it is iterated rather than collapsed
	runHeader  bool        // the header computes the bound: its ops run first
	clockOp    token.Token // a loop "for Wtime() < bound": the loop goes on while Wtime() clockOp bound
	ind        *reduce.Induction
	init       operand
	bound      operand
	step       operand // a step the loop does not change (ind.StepValue)
	phiSlot    int
	ranked     *profile.LoopStats
	byRec      []map[int]*profile.RankTrips // per record (records.go)
	meanRec    []int64                      // mean trips per entry, per record
	byRank     map[int]*profile.RankTrips   // the run's record's
	from       recordChoice                 // which record that is
	meanTrips  int64                        // the run's record's, scaled
	scale      float64                      // the run's scaling of trips (1: none)
	trend      string                       // how it scales them
	used       bool
	// inner, for a nest timed per innermost iteration: the inner loop's
	// induction, its count known on entry.
	inner                 *reduce.Induction
	innerInit, innerBound operand
	innerGuarded          bool // the inner loop is tested at the bottom behind a guard
	// innerPrep computes, on entry, what the inner start and bound need
	// of the instructions inside the nest (they do not change in it).
	innerPrep []op
	// boundPrep computes on entry a bound read inside the loop but not in
	// its header (it does not change in the loop).
	boundPrep []op
	// For a loop of a nest counted in units (units.go): a unit's time,
	// exactly (units > 0), and the units its runs count, known on entry.
	unit  unitTime
	count func(p *proc, fr *frame) int64
}

func (lp *loopPlan) rankTrips(r int) *profile.RankTrips {
	lp.used = true
	return lp.byRank[r]
}

// runAlone runs fn to completion in the driver (no communication).
func (w *World) runAlone(p *proc, fn *function) error {
	w.running = p
	p.call(fn, nil, nil, -1, "")
	for {
		if p.cur.stack == nil {
			return nil
		}
		switch p.step() {
		case cStop:
			if p.err != nil {
				return p.err
			}
			p.cur.stack = nil
			return nil
		case cBlock, cYield:
			return fmt.Errorf("%s: communication outside the SPMD body", fn.id)
		}
	}
}

// runtimePackage reports commlib and the packages of this tool that
// commlib uses: their initializers are not the program's.
func runtimePackage(l *modelgen.Loaded, p *ssa.Package) bool {
	path := p.Pkg.Path()
	for _, rt := range []string{"github.com/predict-tools/predict/commlib", "github.com/predict-tools/predict/trace"} {
		if path == rt || strings.HasPrefix(path, rt+"/") {
			return true
		}
	}
	return false
}

func (w *World) newGroup(world []int, size int) *group {
	g := &group{id: len(w.groups), world: world, size: size, colls: map[int64]*collInstance{},
		posted: make([][]*request, size), unexpected: make([][]*message, size)}
	w.groups = append(w.groups, g)
	return g
}

func linkOf(l machine.Link) linkCost {
	return linkCost{
		latency:     int64(l.Latency),
		eager:       l.EagerLimit,
		rendezvousF: l.Rendezvous,
		transferF:   l.Transfer,
		sendOvhF:    l.SendOverhead,
		recvOvhF:    l.RecvOverhead,
		gapF:        l.Gap,
		size:        -1,
	}
}
