// This file defines compiling once and running many times: a Compiled
// program is the reduced model planned against a profile and a machine,
// its functions compiled on first use, and run at any np.

package interp

import (
	"fmt"
	"go/types"
	"slices"
	"sync"

	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/modelgen"
	"github.com/predict-tools/predict/profile"
	"golang.org/x/tools/go/ssa"
)

// Compiled is a program compiled for one profile and one machine: the
// plan (fragments, loops run whole, decisions replayed), the compiled
// functions and the time of a unit of each loop counted in units. Runs of
// one Compiled take turns (its functions, frames and globals are reused
// from run to run); compile one per goroutine to run in parallel.
type Compiled struct {
	mu sync.Mutex

	prog   *Program
	mach   *machine.Machine
	prof   *profile.File
	alone  map[string]float64 // node → the profile's AloneRel (track)
	loaded map[string]float64 // node → the profile's LoadedRel (track)
	profNP int
	comp   *compiler
	// recs are the profile's records of replayed values, its own first
	// (profile.File.Records); rec the one the present run replays
	// (records.go).
	recs []*profile.Record
	rec  recordChoice

	// Loops counted in units (units.go): the time of a unit per loop
	// node, and whether this program counts them instead (1 ps each).
	unitTime  map[string]unitTime
	counting  bool
	unitFrags []unitFrag

	frags     []*fragment // indexed by fragment index
	allFrags  []*fragment // every fragment charged, derived ones too
	decisions []*decision
	// commArgs are the profile's opaque communication arguments, by
	// call site and argument (argKey), each per record (recs; nil where
	// a record has none); nArgCursors counts the replays compiled
	// (replayargs.go).
	commArgs    map[string][]*profile.ArgStats
	nArgCursors int
	// siteIDs index the operations' sites as they are compiled, for
	// World.burstLen (noise.go).
	siteIDs    map[string]int32
	argReplays []*argReplay
	runNP      int // the np of the run that chose the records (chooseRecord)
	loops      []*loopPlan
	iterated   []*loopPlan // loops timed whole that run iteration by iteration
	recursions []*recursion
	planErr    error // the first profile the plan cannot follow (plan.go)
	// balance is what the check of the ranks' balance at the profile's
	// np says (balance.go): a modeling limit of every run, "" for none.
	balance string
}

// Compile plans and compiles the program for prof (nil: compute costs
// nothing) and mach (nil: the ideal preset), counting once the units of
// the loops counted in units at the profile's np.
func (prog *Program) Compile(prof *profile.File, mach *machine.Machine) (_ *Compiled, err error) {
	defer modelgen.CatchLimit(&err, func() string { return "" })
	var units map[string]unitTime
	if prof != nil {
		if units, err = prog.unitsOf(prof, mach); err != nil {
			return nil, fmt.Errorf("counting the work of the loops timed whole at the profile's np=%d: %v", prof.NP, err)
		}
	}
	cp, err := prog.compile(prof, mach, units, false)
	if err != nil {
		return nil, err
	}
	cp.balance = prog.balanceOf(prof, cp.mach, units)
	return cp, nil
}

// compile plans the program: units gives the time of a unit of the loops
// counted in units; counting counts them instead (1 ps each).
func (prog *Program) compile(prof *profile.File, mach *machine.Machine, units map[string]unitTime, counting bool) (_ *Compiled, err error) {
	if mach == nil {
		if mach, err = machine.Preset("ideal"); err != nil {
			return nil, err
		}
	}
	cp := &Compiled{prog: prog, mach: mach, prof: prof, unitTime: units, counting: counting}
	if prof != nil {
		cp.profNP = max(prof.NP, 1)
		cp.recs = prof.Records()
		cp.commArgs = map[string][]*profile.ArgStats{}
		for k, rec := range cp.recs {
			for i := range rec.CommArgs {
				a := &rec.CommArgs[i]
				key := argKey(a.Site, a.Arg)
				if cp.commArgs[key] == nil {
					cp.commArgs[key] = make([]*profile.ArgStats, len(cp.recs))
				}
				cp.commArgs[key][k] = a
			}
		}
	}
	defer modelgen.CatchLimit(&err, func() string {
		if c := cp.comp; c != nil && c.at.IsValid() {
			return prog.Loaded.PosString(c.at)
		}
		return ""
	})
	if err := cp.plan(); err != nil {
		return nil, err
	}
	if cp.planErr != nil {
		return nil, cp.planErr
	}
	return cp, nil
}

// track registers a fragment, whose per-run limit reset sets, with its
// alone/shared and loaded/measured ratios from the profile (cores.go).
func (cp *Compiled) track(f *fragment) *fragment {
	cp.allFrags = append(cp.allFrags, f)
	if cp.prof != nil && (cp.prof.AloneRel > 0 || cp.prof.LoadedRel > 0) && !cp.counting {
		if cp.alone == nil {
			cp.alone, cp.loaded = map[string]float64{}, map[string]float64{}
			for _, fs := range cp.prof.Fragments {
				if fs.AloneRel > 0 {
					cp.alone[fs.Node] = fs.AloneRel
				}
				if fs.LoadedRel > 0 {
					cp.loaded[fs.Node] = fs.LoadedRel
				}
			}
		}
		f.alone, f.loaded = cp.alone[f.node], cp.loaded[f.node]
	}
	return f
}

// Run interprets the compiled program for cfg.NP processes. cfg.Profile
// and cfg.Machine are those it was compiled for (or nil).
func (cp *Compiled) Run(cfg Config) (_ *Result, err error) {
	defer modelgen.CatchLimit(&err, func() string { return "" }) // the run's own failures name their position
	if cfg.Profile != nil && cfg.Profile != cp.prof || cfg.Machine != nil && cfg.Machine != cp.mach {
		return nil, fmt.Errorf("interp: a run with another profile or machine than the program was compiled for")
	}
	cfg.Profile, cfg.Machine = cp.prof, cp.mach
	if err := cp.prog.checkMemory(cfg, cp.unitTime); err != nil {
		return nil, err
	}
	w, err := cp.run(cfg)
	if err != nil {
		return nil, err
	}
	return w.result(), nil
}

// Run interprets the program for cfg.NP processes (compiling it for this
// run: a sweep compiles once, Program.Compile, and runs many).
func (prog *Program) Run(cfg Config) (*Result, error) {
	cp, err := prog.Compile(cfg.Profile, cfg.Machine)
	if err != nil {
		return nil, err
	}
	return cp.Run(cfg)
}

// run interprets the program for cfg.NP processes, compiled for this run.
func (prog *Program) run(cfg Config, units map[string]unitTime, counting bool) (*World, error) {
	cp, err := prog.compile(cfg.Profile, cfg.Machine, units, counting)
	if err != nil {
		return nil, err
	}
	return cp.run(cfg)
}

// run interprets the compiled program for cfg.NP processes.
func (cp *Compiled) run(cfg Config) (_ *World, err error) {
	if cfg.sample == nil {
		interpreting.RLock() // not while memory is measured (memory.go)
		defer interpreting.RUnlock()
	}
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if cfg.NP < 1 {
		return nil, fmt.Errorf("np %d: want at least 1", cfg.NP)
	}
	cfg.Machine, cfg.Profile = cp.mach, cp.prof
	if err := cfg.Machine.CheckNP(cfg.NP); err != nil {
		return nil, err
	}
	if cfg.RankDetail == 0 {
		cfg.RankDetail = 4096
	}
	w := &World{Compiled: cp, cfg: cfg, assumptions: map[string]string{}, inited: map[*function]bool{}}
	defer modelgen.CatchLimit(&err, w.position)
	w.intra, w.inter = linkOf(cfg.Machine.Level(false)), linkOf(cfg.Machine.Level(true))
	w.wake = cfg.Machine.Wakeup
	w.steal = int64(cfg.Machine.StealDelay)
	if !cfg.NoNoise && cfg.Machine.Noise.Outcomes() > 0 {
		w.noise = centredNoise(cfg.Machine.Noise)
	}
	cp.reset(cfg)
	w.hot = make([]hotCounter, len(cp.frags))
	prog := cp.prog
	// Package initializers, then the driver up to commlib.Main.
	w.flags = newFlagSet(cfg.Args, prog.unfollowedFlagCalls())
	driver := &proc{w: w, rank: -1}
	driver.cur = &driver.main
	if init := prog.Loaded.Main.Func("init"); init != nil {
		if err := w.runAlone(driver, cp.comp.fn(init)); err != nil {
			return nil, err
		}
	}
	mainFn := prog.Loaded.Main.Func("main")
	if mainFn == nil {
		return nil, fmt.Errorf("%s has no main function", prog.Model.Package)
	}
	if err := w.runAlone(driver, cp.comp.fn(mainFn)); err != nil {
		return nil, err
	}
	body, _ := w.body.R.(*closure)
	if body == nil || body.fn == nil {
		return nil, fmt.Errorf("%s: main does not call commlib.Main, Run or RunWith with a function of the program", prog.Model.Package)
	}
	world := w.newGroup(nil, cfg.NP)
	w.procs = make([]*proc, cfg.NP)
	w.initNodes()
	for r := range cfg.NP {
		p := &proc{w: w, rank: r, lastPeer: noPeer}
		p.cur = &p.main
		p.initNoise(cfg.NoiseSeed)
		p.share, p.load = w.shareOf(p), w.loadOf(p)
		p.world = &commRef{g: world, rank: r}
		w.procs[r] = p
		p.call(body.fn, body.env, []V{{R: p.world}}, -1, w.bodySite)
		if p.err != nil {
			return nil, p.err
		}
	}
	w.initNodeCores()
	w.ready.init(w.procs)
	if cfg.sample != nil {
		cfg.sample(w)
	}
	if err := w.schedule(); err != nil {
		return nil, err
	}
	return w, nil
}

// reset makes the compiled program's state what a fresh compile's is, for
// a run of cfg: the fragments' limits (the executions the timing pass
// counted hold for a run with its arguments), what the previous run
// marked used, the recursions' counts and the globals' values.
func (cp *Compiled) reset(cfg Config) {
	sameArgs := cp.prof != nil && slices.Equal(cp.prof.Args, cfg.Args)
	for _, f := range cp.allFrags {
		f.limit, f.recorded = 0, 0
		if sameArgs && f.seen > 0 {
			f.recorded = f.seen
			f.limit = runawayLimit(f.seen, cp.prof.NP, cfg.NP)
		}
	}
	for _, d := range cp.decisions {
		d.used, d.wrapped, d.tailed, d.taken = false, false, false, 0
	}
	for _, lp := range cp.loops {
		lp.used = false
	}
	for _, lp := range cp.iterated {
		lp.used = false
	}
	for _, r := range cp.recursions {
		r.calls = 0
	}
	cp.chooseRecord(cfg.NP)
	cp.comp.resetGlobals()
}

// resetGlobals gives every global of the program its zero value again.
func (c *compiler) resetGlobals() {
	for g, b := range c.globals {
		b.v = zeroOf(globalType(g))
	}
}

// globalType is the type of the variable global g holds.
func globalType(g *ssa.Global) types.Type { return g.Type().(*types.Pointer).Elem() }

// Runner runs a program for one profile and machine at many np, in
// parallel: each run takes a compiled program no other run is using,
// compiling another only when all are busy (so a sweep on k workers
// compiles k times, not once per np). Safe for concurrent use.
type Runner struct {
	prog *Program
	prof *profile.File
	mach *machine.Machine

	mu   sync.Mutex
	free []*Compiled
}

// Runner returns a Runner of the program for prof and mach.
func (prog *Program) Runner(prof *profile.File, mach *machine.Machine) *Runner {
	return &Runner{prog: prog, prof: prof, mach: mach}
}

// Run interprets the program for cfg.NP processes; cfg.Profile and
// cfg.Machine are the Runner's.
func (r *Runner) Run(cfg Config) (*Result, error) {
	r.mu.Lock()
	var cp *Compiled
	if n := len(r.free); n > 0 {
		cp, r.free = r.free[n-1], r.free[:n-1]
	}
	r.mu.Unlock()
	if cp == nil {
		var err error
		if cp, err = r.prog.Compile(r.prof, r.mach); err != nil {
			return nil, err
		}
	}
	res, err := cp.Run(cfg)
	r.mu.Lock()
	r.free = append(r.free, cp)
	r.mu.Unlock()
	return res, err
}
