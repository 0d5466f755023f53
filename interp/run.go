// This file defines the interpreter's entry point: the world is built from
// the reduced model, the profile and the machine; package initializers and
// the driver run first (flags get the program's arguments); then the SPMD
// body runs in every logical process.

package interp

import (
	"fmt"
	"go/token"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/model"
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

	unitsMu sync.Mutex
	units   map[*profile.File]*unitTimes // units.go

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
	// Threads is what commlib.Threads returns: the threads per rank of
	// the program's pools (0: the program's own choice, its argument).
	Threads int
	// MemoryLimit is the memory in bytes a run may use (0: GOMEMLIMIT,
	// else the system's available memory; memory.go). A run at a large
	// np that will not fit is refused with a *MemoryError.
	MemoryLimit int64
	// Memory, when set, is the program's measured memory per process
	// (Program.EstimateMemory), used instead of measuring it again.
	Memory *MemoryEstimate
	// sample, when set, sees the world once its processes have started
	// and after each step (memory.go measures the heap with it).
	sample func(w *World)
}

// World is one interpretation in progress.
type World struct {
	// Loops counted in units (units.go): the time of a unit per loop
	// node, and whether this run counts them instead (1 ps each).
	unitTime  map[string]unitTime
	counting  bool
	unitFrags []unitFrag

	cfg   Config
	prog  *Program
	mach  *machine.Machine
	intra linkCost
	inter linkCost
	comp  *compiler

	procs    []*proc
	ready    procHeap
	blocked  int
	finished int

	frags     []*fragment
	hot       []hotCounter
	decisions []*decision
	loops     []*loopPlan
	iterated  []*loopPlan // loops timed whole that run iteration by iteration
	prof      *profile.File
	profNP    int

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
	recursions  []*recursion
}

// fragment is a measured part of the program and its time per execution.
type fragment struct {
	index int
	node  string
	kind  string
	pos   string
	// limit bounds the executions the model may charge, far beyond those
	// the timing pass counted with the run's arguments (0: none; see
	// runawayLimit).
	limit    int64
	recorded int64 // the executions the timing pass counted, when limit is set
	mean     int64
	units    bool // the innermost iterations of a loop counted in units: not an execution of it
	// alloc, for a segment that allocates problem-sized slices: its time
	// follows the bytes it allocates (units.go).
	alloc *allocUnits
}

// loopPlan is a loop run as a whole.
type loopPlan struct {
	node      string
	pos       string
	frag      *fragment
	perIter   int64
	blocks    map[int]bool
	exit      *block
	exitFrom  *block      // the block the loop is left from
	why       string      // why it is iterated rather than collapsed
	runHeader bool        // the header computes the bound: its ops run first
	clockOp   token.Token // a loop "for Wtime() < bound": the loop goes on while Wtime() clockOp bound
	ind       *reduce.Induction
	init      operand
	bound     operand
	phiSlot   int
	ranked    *profile.LoopStats
	byRank    map[int]*profile.RankTrips
	meanTrips int64
	used      bool
	// inner, for a nest timed per innermost iteration: the inner loop's
	// induction, its count known on entry.
	inner                 *reduce.Induction
	innerInit, innerBound operand
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

// Run interprets the program for cfg.NP processes.
func (prog *Program) Run(cfg Config) (_ *Result, err error) {
	defer modelgen.CatchLimit(&err, func() string { return "" }) // the run's own failures name their position
	var units map[string]unitTime
	if cfg.Profile != nil {
		var err error
		if units, err = prog.unitsOf(cfg.Profile, cfg.Machine); err != nil {
			return nil, fmt.Errorf("counting the work of the loops timed whole at the profile's np=%d: %v", cfg.Profile.NP, err)
		}
	}
	if err := prog.checkMemory(cfg, units); err != nil {
		return nil, err
	}
	w, err := prog.run(cfg, units, false)
	if err != nil {
		return nil, err
	}
	return w.result(), nil
}

// run interprets the program for cfg.NP processes. units gives the time
// of a unit of the loops counted in units; counting counts them instead
// (1 ps each).
func (prog *Program) run(cfg Config, units map[string]unitTime, counting bool) (_ *World, err error) {
	if cfg.sample == nil {
		interpreting.RLock() // not while memory is measured (memory.go)
		defer interpreting.RUnlock()
	}
	if cfg.NP < 1 {
		return nil, fmt.Errorf("np %d: want at least 1", cfg.NP)
	}
	if cfg.Machine == nil {
		m, err := machine.Preset("ideal")
		if err != nil {
			return nil, err
		}
		cfg.Machine = m
	}
	if err := cfg.Machine.CheckNP(cfg.NP); err != nil {
		return nil, err
	}
	if cfg.RankDetail == 0 {
		cfg.RankDetail = 4096
	}
	w := &World{cfg: cfg, prog: prog, mach: cfg.Machine, prof: cfg.Profile, assumptions: map[string]string{}, inited: map[*function]bool{},
		unitTime: units, counting: counting}
	defer modelgen.CatchLimit(&err, w.position)
	w.intra, w.inter = linkOf(cfg.Machine.Level(false)), linkOf(cfg.Machine.Level(true))
	if w.prof != nil {
		w.profNP = max(w.prof.NP, 1)
	}
	if err := w.plan(); err != nil {
		return nil, err
	}
	// Package initializers, then the driver up to commlib.Main.
	w.flags = newFlagSet(cfg.Args, prog.unfollowedFlagCalls())
	driver := &proc{w: w, rank: -1}
	driver.cur = &driver.main
	if init := prog.Loaded.Main.Func("init"); init != nil {
		if err := w.runAlone(driver, w.comp.fn(init)); err != nil {
			return nil, err
		}
	}
	mainFn := prog.Loaded.Main.Func("main")
	if mainFn == nil {
		return nil, fmt.Errorf("%s has no main function", prog.Model.Package)
	}
	if err := w.runAlone(driver, w.comp.fn(mainFn)); err != nil {
		return nil, err
	}
	body, _ := w.body.R.(*closure)
	if body == nil || body.fn == nil {
		return nil, fmt.Errorf("%s: main does not call commlib.Main, Run or RunWith with a function of the program", prog.Model.Package)
	}
	world := w.newGroup(nil, cfg.NP)
	w.procs = make([]*proc, cfg.NP)
	for r := range cfg.NP {
		p := &proc{w: w, rank: r, lastPeer: noPeer}
		p.cur = &p.main
		p.world = &commRef{g: world, rank: r}
		w.procs[r] = p
		p.call(body.fn, body.env, []V{{R: p.world}}, -1, w.bodySite)
		if p.err != nil {
			return nil, p.err
		}
	}
	w.ready.init(w.procs)
	if cfg.sample != nil {
		cfg.sample(w)
	}
	if err := w.schedule(); err != nil {
		return nil, err
	}
	return w, nil
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
		latency:   int64(l.Latency),
		ctrl:      int64(l.SendOverhead(1) + l.Latency),
		eager:     l.EagerLimit,
		transferF: l.Transfer,
		sendOvhF:  l.SendOverhead,
		recvOvhF:  l.RecvOverhead,
		gapF:      l.Gap,
		size:      -1,
	}
}

// plan prepares the compiler: kept instructions, fragments and their
// charges, collapsed loops, opaque decisions.
func (w *World) plan() error {
	prog := w.prog
	c := &compiler{w: w, l: prog.Loaded, rep: prog.Report, funcs: map[*ssa.Function]*function{},
		models: map[*ssa.Function]*model.Function{}, keep: prog.Report.Plan.Kept(),
		charges: map[ssa.Instruction][]*fragment{}, loopHeads: map[*ssa.BasicBlock]*loopPlan{},
		globals: map[*ssa.Global]*box{}}
	w.comp = c
	leaves := map[string]*model.Node{}
	loopNodes := map[string]*model.Node{}
	fnOfNode := map[string]*ssa.Function{}
	tests := map[*ssa.BasicBlock]*model.Node{}
	condRoot := map[*model.Node]*model.Node{}
	negated := map[*model.Node]bool{} // a test under an odd number of nots of its root
	for _, mf := range prog.Model.Functions {
		fn := prog.SSA[mf]
		if fn == nil {
			continue
		}
		c.models[fn] = mf
		for _, tree := range []*model.Node{mf.Tree, mf.Recover} {
			model.Walk(tree, func(n *model.Node) bool {
				if n.Cond != nil {
					markCondRoot(n.Cond, n.Cond, false, condRoot, negated)
				}
				switch {
				case n.Leaf != nil:
					leaves[n.ID] = n
					fnOfNode[n.ID] = fn
				case n.Kind == model.KindLoop:
					loopNodes[n.ID] = n
					fnOfNode[n.ID] = fn
				case n.Kind == model.KindTest && n.Block != nil && n.Opaque != "":
					tests[fn.Blocks[*n.Block]] = n
					fnOfNode[n.ID] = fn
				}
				return true
			})
		}
	}
	pf := w.prof
	planned := map[string]bool{}
	var loopStats map[string]*profile.LoopStats
	var decStats map[string]*profile.DecisionStats
	sameArgs := false // the profile counted the executions of a run like this one
	if pf != nil {
		loopStats = map[string]*profile.LoopStats{}
		for i := range pf.Loops {
			loopStats[pf.Loops[i].Node] = &pf.Loops[i]
		}
		sameArgs = slices.Equal(pf.Args, w.cfg.Args)
		decStats = map[string]*profile.DecisionStats{}
		for i := range pf.Decisions {
			decStats[pf.Decisions[i].Node] = &pf.Decisions[i]
		}
		for _, fs := range pf.Fragments {
			f := &fragment{index: len(w.frags), node: fs.Node, kind: "compute", pos: fs.Pos, mean: fs.MeanPS}
			if sameArgs && fs.Executions > 0 {
				f.recorded = fs.Executions
				f.limit = runawayLimit(f.recorded, pf.NP, w.cfg.NP)
			}
			switch fs.Kind {
			case profile.FragSegment:
				n := leaves[fs.Node]
				if n == nil {
					continue
				}
				fn := fnOfNode[fs.Node]
				instr := firstNonPhi(fn.Blocks[n.Leaf.Block], n.Leaf.First)
				if instr == nil {
					continue
				}
				w.frags = append(w.frags, f)
				c.charges[instr] = append(c.charges[instr], f)
				w.planAllocUnits(c, fn, n, f)
			case profile.FragLoop:
				n := loopNodes[fs.Node]
				ls := loopStats[fs.Node]
				if n == nil || ls == nil {
					continue
				}
				w.frags = append(w.frags, f)
				if sameArgs && fs.Executions > 0 {
					// Iterated, the loop is charged per iteration.
					f.recorded = max(fs.Executions, iterations(ls))
					f.limit = runawayLimit(f.recorded, pf.NP, w.cfg.NP)
				}
				if pl := prog.Report.Plan.Loop(n); pl.Units != nil && !ls.Innermost && (w.counting || w.unitTime[n.ID].units > 0) {
					ut := unitTime{total: 1, units: 1}
					if !w.counting {
						ut = w.unitTime[n.ID]
					}
					w.planUnits(c, pl, f, ut)
				} else {
					w.planLoop(c, pl, f, ls)
				}
				planned[fs.Node] = true
			}
		}
	}
	// Loops that run until a moment of modeled time ("for Wtime() < end")
	// take that time whatever an iteration costs: they are collapsed
	// even when the profile did not time them.
	ids := make([]string, 0, len(loopNodes))
	for id := range loopNodes {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	// Sealed loops first: the reduction kept nothing inside them, so they
	// are always collapsed, and the loops inside them are never reached.
	plan := prog.Report.Plan
	for _, id := range ids {
		n := loopNodes[id]
		pl := plan.Loop(n)
		if !pl.Sealed {
			continue
		}
		model.Walk(n.Loop.Body, func(x *model.Node) bool {
			if x.Kind == model.KindLoop {
				planned[x.ID] = true
			}
			return true
		})
		if planned[id] {
			continue
		}
		planned[id] = true
		if !c.timeless(pl.Fn, pl.Blocks) {
			// The timing pass times a sealed loop whole (or a loop
			// around it): time charged inside it means the profile was
			// planned on another reduction.
			return fmt.Errorf("%s: the profile times fragments inside this loop, which the reduction seals (never runs its body): the profile does not match this version of predict; measure it again", n.Pos)
		}
		f := &fragment{index: len(w.frags), node: id, kind: "compute", pos: n.Pos.String()}
		w.frags = append(w.frags, f)
		w.planLoop(c, pl, f, &profile.LoopStats{Node: id})
	}
	for _, id := range ids {
		if planned[id] {
			continue
		}
		pl := plan.Loop(loopNodes[id])
		if pl.Clock != nil || (pl.Ind != nil && c.timeless(pl.Fn, pl.Blocks)) {
			// A loop until a moment of modeled time; or a counted loop in
			// which nothing is timed (no fragment, no call): its
			// iterations cost nothing, so it is collapsed rather than
			// iterated, whatever its trip count.
			f := &fragment{index: len(w.frags), node: id, kind: "compute", pos: pl.Node.Pos.String()}
			w.frags = append(w.frags, f)
			w.planLoop(c, pl, f, &profile.LoopStats{Node: id})
		}
	}
	for _, lp := range w.iterated {
		if plan.Loop(loopNodes[lp.node]).Sealed {
			return fmt.Errorf("internal error: %s: the reduction sealed this loop (its body is not kept) but the interpreter cannot collapse it: %s", lp.pos, lp.why)
		}
	}
	// Opaque branches.
	for b, n := range tests {
		root := condRoot[n]
		if root == nil {
			root = n
		}
		d := &decision{index: len(w.decisions), node: root.ID, pos: n.Pos.Start.String(), def: (n.Check == "true") != negated[n], check: n.Check != ""}
		if ds := decStats[root.ID]; ds == nil && !d.check {
			// Not in the profile (a function the timing pass runs
			// without probes, inside a loop it times whole): a loop's
			// exit test leaves the loop.
			d.exitDefault(prog.Report.Plan, b, negated[n], w.prog.loopAt)
		} else if ds != nil {
			d.stats = ds
			d.byRank = map[int]*profile.RankOutcomes{}
			for i := range ds.Ranks {
				d.byRank[ds.Ranks[i].Rank] = &ds.Ranks[i]
			}
		}
		w.decisions = append(w.decisions, d)
		if c.opaqueIf == nil {
			c.opaqueIf = map[*ssa.If]opaqueBranch{}
		}
		// The profile records the outcome of the root's condition; the
		// branch tests its own: "if !(r < tol)" branches on r < tol.
		c.opaqueIf[b.Instrs[len(b.Instrs)-1].(*ssa.If)] = opaqueBranch{d, negated[n]}
	}
	sort.Slice(w.decisions, func(i, j int) bool {
		a, b := w.decisions[i], w.decisions[j]
		if a.pos != b.pos {
			return a.pos < b.pos
		}
		return a.node < b.node // tests without a position: their order must not follow the map's
	})
	for i, d := range w.decisions {
		d.index = i
	}
	w.hot = make([]hotCounter, len(w.frags))
	c.done()
	return nil
}

// markCondRoot records root as the condition root of every test under
// x, and which tests sit under an odd number of nots of the root (only
// through nots: the outcome of an and or an or does not give its tests').
func markCondRoot(x, root *model.Node, neg bool, condRoot map[*model.Node]*model.Node, negated map[*model.Node]bool) {
	switch x.Kind {
	case model.KindTest:
		condRoot[x] = root
		negated[x] = neg
		return
	case model.KindNot:
		neg = !neg
	default:
		neg = false
	}
	for _, ch := range x.Children {
		markCondRoot(ch, root, neg, condRoot, negated)
	}
}

func firstNonPhi(b *ssa.BasicBlock, from int) ssa.Instruction {
	for i := from; i < len(b.Instrs); i++ {
		if _, ok := b.Instrs[i].(*ssa.Phi); !ok {
			return b.Instrs[i]
		}
	}
	return nil
}

// planLoop plans loop pl, timed as a whole, as its plan says: collapsed
// (its trip count computed, replayed or until a moment of modeled time, its
// time charged at once) or iterated with its time charged per iteration.
// What the profile adds: a loop whose trips are replayed needs their
// record, and a nest timed per innermost iteration its inner count on
// entry.
func (w *World) planLoop(c *compiler, pl *reduce.Loop, f *fragment, ls *profile.LoopStats) {
	fn, n := pl.Fn, pl.Node
	c.working(nodePos(fn, n))
	lp := &loopPlan{node: n.ID, pos: n.Pos.String(), frag: f, perIter: ls.PerIterPS, blocks: pl.Blocks, why: pl.Why, runHeader: pl.RunHeader}
	ind := pl.Ind
	collapsible := pl.Verdict != reduce.Iterate
	switch {
	case collapsible && pl.Source == reduce.TripsReplayed && len(ls.Ranks) == 0:
		collapsible, lp.why = false, "no trip count: neither a counted loop nor one replayed from the profile"
	case collapsible && ls.Innermost && ind != nil && pl.Inner == nil:
		collapsible, lp.why = false, "the inner loop's count is not known on entry"
	}
	if !collapsible {
		w.iterated = append(w.iterated, lp)
		// Iterated: the time of an iteration at each entry of the body
		// (of the inner loop's body when it is per innermost iteration).
		perIter := &fragment{index: f.index, node: f.node, kind: f.kind, pos: f.pos, mean: ls.PerIterPS, limit: f.limit, recorded: f.recorded}
		at := pl.IterStart
		if ls.Innermost {
			at = nil
			if in := model.InnerLoop(n); in != nil {
				at = w.prog.Report.Plan.Loop(in).IterStart
			}
		}
		if at != nil {
			c.charges[at] = append(c.charges[at], perIter)
		}
		return
	}
	cf := c.fn(fn)
	switch {
	case ind != nil:
		lp.ind = ind
		lp.init, lp.bound, lp.phiSlot = c.operand(cf, ind.Init), c.operand(cf, ind.Bound), c.slot(cf, ind.Phi)
		if pl.BoundOnEntry {
			lp.boundPrep = c.entryOps(cf, lp.blocks, ind.Bound)
		}
		if ls.Innermost {
			lp.inner = pl.Inner
			lp.innerInit, lp.innerBound = c.operand(cf, lp.inner.Init), c.operand(cf, lp.inner.Bound)
			lp.innerPrep = c.entryOps(cf, lp.blocks, lp.inner.Init, lp.inner.Bound)
		}
	case pl.Clock != nil:
		lp.clockOp, lp.bound = pl.Clock.Op, c.operand(cf, pl.Clock.Bound)
	default:
		lp.ranked = ls
		lp.byRank = map[int]*profile.RankTrips{}
		for i := range ls.Ranks {
			lp.byRank[ls.Ranks[i].Rank] = &ls.Ranks[i]
		}
		var sum, cnt int64
		for _, t := range ls.Trips {
			sum += t.Trips * t.Count
			cnt += t.Count
		}
		if cnt > 0 {
			lp.meanTrips = sum / cnt
		}
	}
	lp.exit = cf.blockOf(pl.Exit)
	lp.exitFrom = cf.blockOf(pl.ExitFrom)
	c.loopHeads[pl.Header] = lp
	w.loops = append(w.loops, lp)
}

// entryOps returns the operations computing the instructions inside the
// loop (blocks) that vs depend on, operands first. The reduction found
// them invariant in the loop, so computing them on entry gives the values
// every iteration sees.
func (c *compiler) entryOps(cf *function, blocks map[int]bool, vs ...ssa.Value) []op {
	var ops []op
	seen := map[ssa.Value]bool{}
	var visit func(v ssa.Value)
	visit = func(v ssa.Value) {
		instr, ok := v.(ssa.Instruction)
		if !ok || seen[v] || instr.Block() == nil || !blocks[instr.Block().Index] {
			return
		}
		seen[v] = true
		var rands []*ssa.Value
		for _, r := range instr.Operands(rands) {
			if *r != nil {
				visit(*r)
			}
		}
		ops = append(ops, c.instr(cf, nil, instr))
	}
	for _, v := range vs {
		visit(v)
	}
	return ops
}
