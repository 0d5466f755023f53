// This file defines the world of logical processes and its scheduler: the
// process with the smallest clock runs next (ties by rank), each until it
// blocks in communication or reaches a communication call while another
// process is behind it in time.

package interp

import (
	"fmt"
	"sort"
	"strings"

	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/trace"
)

// proc is a logical process: one rank.
type proc struct {
	w    *World
	rank int

	main      exec
	cur       *exec
	curThread int
	threads   *threadSet // the threads running now, nil on the main thread
	// gos are the goroutines the main thread started and has not waited
	// for; syncs the states of the sync objects of the rank's memory
	// (goroutines.go).
	gos     *threadSet
	gosSite string // the go statement that started the first of gos
	// mainAsks: the main thread runs gos behind its clock before its
	// own operation (mainCatchUp); theirs past its clock wait for it.
	mainAsks bool
	// yieldAfter: the running thread booked a core (onCore); its step
	// ends after the op, so that threads behind it book theirs first.
	yieldAfter bool
	syncs      map[*structV]any

	compute, overhead, wait int64
	// coreWait is the time its threads waited for a core (cores.go).
	coreWait int64
	// runWait is the time it waited for a core of its node, ready to run
	// (nodecores.go); cores is its node's when the node has more ranks than
	// cores (else nil), core the one it holds (-1: none).
	runWait int64
	cores   *nodeCores
	core    int
	// parked: blocked in communication; queued: in its node's queue for
	// a core; reserved: its core was given to it (Go's runnext) while it
	// was in the ready heap; nextOf: the core whose holder readied it
	// last, -1 none (nodecores.go).
	parked, queued, reserved bool
	nextOf                   int
	// stealing: readied to run next on a busy core, it waits in the ready
	// heap until another core may run it (nodecores.go), since stealFrom.
	stealing  bool
	stealFrom int64
	// gen numbers its entries in the ready heap: an entry of an older
	// generation was superseded (procHeap.pop skips it).
	gen uint32
	// sliceEnd is when its time slice on its core ends; debt the compute
	// left when it was preempted, done when it has a core again.
	sliceEnd, debt int64
	debtFrag       *fragment
	inherited      bool
	counted        bool // in its node's count of ranks ready without a core
	selfResumed    bool // resumed during its own step: it never waited
	// For Result.Nodes (nodes.go): the main thread's compute while it
	// waited for its threads (within compute), its threads' compute, and
	// its main thread's compute above the fragments' alone times.
	joined, threadBusy, sharing int64
	// share is how much of the sharing the profile measured its node's
	// cores see (cores.go): 1 as much, 0 none (it computes alone); load
	// how much of the loaded runs' memory load, beyond the profile's own
	// ranks (cores.go).
	share, load float64

	err    error // *Error, or *AbortError when the program ends the run
	result V
	done   bool

	cursors     []cursor
	loopCursors map[*loopPlan]*cursor
	argCursors  []argCursor // replayed communication arguments (replayargs.go)

	seq     int64
	nicFree int64
	noise   noiseState // its compute's noise (noise.go)

	// While blocked: what it waits for.
	waitReqs  []*request
	waitAny   bool
	waitEnter int64
	waitOvh   int64
	onDone    func(p *proc) // called when the wait ends, before the process resumes
	waitOp    string
	waitSite  string
	world     *commRef
	buffer    int64 // attached Bsend buffer, bytes
	lastPeer  int
	waitBuf   [2]*request
	waitList  []*request // Waitall's and Waitany's requests
	spins     int64      // back edges taken since the clock last moved
	spinClock int64
}

// reqs1 is a one-request list without an allocation.
func (p *proc) reqs1(r *request) []*request {
	p.waitBuf[0] = r
	return p.waitBuf[:1]
}

// Error is an error of the interpreted program: where and in which rank
// it happened.
type Error struct {
	Rank   int
	Thread int
	Pos    string
	Msg    string
}

func (e *Error) Error() string {
	who := actor(e.Rank, e.Thread, "driver")
	if e.Pos != "" {
		return fmt.Sprintf("%s: %s: %s", e.Pos, who, e.Msg)
	}
	return fmt.Sprintf("%s: %s", who, e.Msg)
}

// mustYield reports whether another runnable process is behind p in time:
// p must let it run before its operation at site sid (siteID), which
// communicates or synchronises: every such operation asks first, so p's
// burst of compute ends here (noise.go).
func (p *proc) mustYield(sid int32) bool {
	h := p.w.ready
	if p.cur != &p.main {
		return false
	}
	p.endBurst(sid)
	if len(h) == 0 {
		return false
	}
	q := &h[0]
	return q.clock < p.cur.clock || q.clock == p.cur.clock && q.rank < p.rank
}

// schedule runs the processes until all have ended, one fails, or none can
// run (a deadlock).
func (w *World) schedule() error {
	for len(w.ready) > 0 {
		p := w.ready.pop()
		if p == nil {
			break
		}
		if p.main.clock == overflowClock {
			// Resumed at a completion past the clock's limit.
			p.clockOverflow(p.waitSite, p.waitOp)
			return p.err
		}
		if p.cores != nil && !w.takeCore(p) {
			continue // waits for a core: releaseCore makes it ready
		}
		w.running = p
		switch p.step() {
		case cYield:
			w.ready.push(p) // keeps its core
		case cBlock:
			w.blocked++
			if p.selfResumed {
				// It completed what it blocked in (the last to enter
				// a collective): it never waited, and keeps its core.
				p.selfResumed = false
			} else {
				w.active[w.nodeOf[p.rank]]--
				if p.cores != nil {
					p.parked = true
					w.parks++
					w.releaseCore(p, p.waitEnter)
				}
			}
		case cPark:
			w.releaseCore(p, p.waitEnter)
			w.ready.push(p)
		case cPreempt:
			w.releaseCore(p, p.main.clock)
			w.ready.push(p) // takes a core again with the rest of its compute
		case cStop:
			if p.err == nil && p.gos != nil {
				p.endGoroutines()
			}
			if p.err != nil {
				return p.err
			}
			w.active[w.nodeOf[p.rank]]--
			if p.cores != nil {
				w.releaseCore(p, p.main.clock)
			}
			p.done = true
			w.finished++
			if testHook != nil {
				testHook(w)
			}
		}
		if w.cfg.sample != nil {
			w.cfg.sample(w)
		}
		if w.cfg.MaxEvents > 0 && w.events > w.cfg.MaxEvents {
			return fmt.Errorf("more than %d communication events: stopped (raise --max-events)", w.cfg.MaxEvents)
		}
	}
	if w.finished < len(w.procs) {
		return w.deadlock()
	}
	return nil
}

// newID numbers a collective instance or a thread object (lock,
// semaphore, barrier, WaitGroup, channel) of the run, for traces and errors.
func (w *World) newID() int64 {
	w.collID++
	return w.collID
}

// testHook, set by tests, sees the world after each process ends.
var testHook func(w *World)

// resume makes a blocked process runnable at time t; ovh of the time since
// it blocked was communication overhead, the rest waiting.
func (w *World) resume(p *proc, t, ovh int64) {
	enter := p.waitEnter
	p.parked = false
	if w.running == p {
		p.selfResumed = true
	} else {
		w.active[w.nodeOf[p.rank]]++
	}
	if p.cores != nil && w.handoff(p) {
		// Readied by a rank on its core: it runs there next, no thread
		// to wake (nodecores.go).
		t = max(t, addTime(enter, ovh))
	} else {
		t = w.woken(max(t, addTime(enter, ovh)), enter, ovh)
	}
	p.overhead += ovh
	p.wait += t - enter - ovh
	p.main.clock = t
	reqs := p.waitReqs
	p.waitReqs = nil
	if f := p.onDone; f != nil {
		p.onDone = nil
		f(p)
	}
	w.endWait(reqs)
	w.blocked--
	w.ready.push(p)
}

// woken is when a blocking call that entered at enter, spent ovh in
// overheads and was released at t (≥ enter + ovh) returns: t, plus the
// machine's wake-up delay (machine.Wakeup) when it waited. A runtime that
// parks a blocked rank resumes it only after a wake-up; the delay counts
// as waiting.
func (w *World) woken(t, enter, ovh int64) int64 {
	if waited := t - enter - ovh; len(w.wake) > 0 && waited > 0 {
		return addTime(t, int64(w.wake.At(trace.Time(waited))))
	}
	return t
}

// block records that p blocks in op at site since its current clock.
func (p *proc) block(op, site string) ctl {
	p.waitEnter = p.main.clock
	p.waitOp, p.waitSite = op, site
	return cBlock
}

// deadlock describes the blocked processes the way the runtime does.
func (w *World) deadlock() error {
	var b strings.Builder
	n := 0
	for _, p := range w.procs {
		if p.done {
			continue
		}
		n++
		if n <= 16 {
			fmt.Fprintf(&b, "\n  rank %d: %s at %s", p.rank, p.waitOp, p.waitSite)
			if p.lastPeer != noPeer {
				fmt.Fprintf(&b, " (waits for rank %d)", p.lastPeer)
			}
		}
	}
	if n > 16 {
		fmt.Fprintf(&b, "\n  ... and %d more ranks", n-16)
	}
	// Communication arguments the model took as zero may be why: say so,
	// for the deadlock may be the model's and not the program's.
	var zeros []string
	for site, what := range w.assumptions {
		if i := strings.Index(what, opaqueArgNote); i >= 0 {
			zeros = append(zeros, site+": "+what[:i]+what[i+len(opaqueArgNote):])
		}
	}
	if len(zeros) > 0 {
		sort.Strings(zeros)
		if len(zeros) > 4 {
			zeros = append(zeros[:4], fmt.Sprintf("and %d more", len(zeros)-4))
		}
		fmt.Fprintf(&b, "\nthe model took as zero arguments of communication calls it does not compute, which may be why (the real program may not deadlock): %s", strings.Join(zeros, "; "))
	}
	return fmt.Errorf("deadlock in the model: %d of %d ranks blocked forever, none can proceed:%s", n, len(w.procs), b.String())
}

const noPeer = -1 << 30

// emit records a trace event of p.
func (p *proc) emit(e trace.Event) {
	e.Rank = p.rank
	e.Thread = p.thread()
	e.Seq = p.seq
	p.seq++
	p.w.cfg.Trace(e)
}

// hotCounter accumulates a fragment's time over ranks.
type hotCounter struct{ time, freq int64 }

// Result is a prediction.
type Result struct {
	NP   int
	Time trace.Time // predicted run time: the latest rank's end
	// Bound is the ± of Time (bound.go): the measured fragments' error
	// bounds, weighted by the time the run charged them, and half the
	// spread of the profile's runs, on the busiest rank's compute.
	Bound   trace.Time
	Ranks   []RankTimes
	Compute Stat
	Comm    Stat // communication overhead
	Wait    Stat
	// CoreWait is the time a rank was ready but waited for a core of its
	// node, held by other ranks (nodecores.go): zero unless a node has more
	// ranks than cores. Compute + Comm + Wait + CoreWait is a rank's time.
	CoreWait Stat
	// Parks is how many times ranks of nodes with more ranks than cores
	// blocked and gave their core up, and ParkEvery their compute over
	// that count: how often a rank did (coresLimit).
	Parks     int64
	ParkEvery trace.Time
	// Nodes is how each node's cores were used, with Config.Nodes only
	// (nodes.go).
	Nodes []NodeUse
	// ThreadCoreWait is the time each rank's pool and Parallel threads
	// waited for a core (cores.go), summed over its threads; it lies
	// within the rank's waiting (for its threads) and compute.
	ThreadCoreWait Stat
	Hot            []HotSpot
	// Decisions are the opaque decisions the run used, with where their
	// outcomes came from.
	Decisions   []DecisionUse
	Assumptions []string
	// Limits are what the prediction leaves out, stated loudly: the
	// time of recursive calls (recursion.go).
	Limits []string
	// Noise says the machine's noise was drawn, with its seed and spread
	// (NoiseText); empty: none (a machine without it, or NoNoise).
	Noise    string
	Messages int64 // point-to-point messages (collectives' internal ones included)
	Events   int64 // communication events processed
	Machine  *machine.Machine
	// About says what the run was of, for the reports (render.go): the
	// caller sets it.
	About
}

// RankTimes is one rank's time, split.
type RankTimes struct {
	Rank                       int
	Total, Compute, Comm, Wait trace.Time
	CoreWait                   trace.Time // ready, waiting for a core
}

// Stat is a min/mean/max over ranks.
type Stat struct{ Min, Mean, Max trace.Time }

// HotSpot is the time of one model node summed over ranks.
type HotSpot struct {
	Node string
	Kind string // "compute" or the commlib operation
	Pos  string
	Time trace.Time
	Freq int64
}

// DecisionUse is an opaque decision or loop count replayed from the profile.
type DecisionUse struct {
	Node   string
	Pos    string
	Source string
}

func stat(vals []int64) Stat {
	if len(vals) == 0 {
		return Stat{}
	}
	s := Stat{Min: trace.Time(vals[0]), Max: trace.Time(vals[0])}
	var sum float64
	for _, v := range vals {
		s.Min = min(s.Min, trace.Time(v))
		s.Max = max(s.Max, trace.Time(v))
		sum += float64(v)
	}
	s.Mean = trace.Time(sum/float64(len(vals)) + 0.5)
	return s
}

// result collects the prediction after the run.
func (w *World) result() *Result {
	r := &Result{NP: len(w.procs), Machine: w.mach, Messages: w.messages, Events: w.events}
	var comp, comm, wait, run, cores []int64
	keepRanks := len(w.procs) <= w.cfg.RankDetail
	for _, p := range w.procs {
		total := p.main.clock
		r.Time = max(r.Time, trace.Time(total))
		comp, comm, wait = append(comp, p.compute), append(comm, p.overhead), append(wait, p.wait)
		run, cores = append(run, p.runWait), append(cores, p.coreWait)
		if keepRanks {
			r.Ranks = append(r.Ranks, RankTimes{Rank: p.rank, Total: trace.Time(total), Compute: trace.Time(p.compute), Comm: trace.Time(p.overhead), Wait: trace.Time(p.wait), CoreWait: trace.Time(p.runWait)})
		}
	}
	r.Compute, r.Comm, r.Wait, r.CoreWait, r.ThreadCoreWait = stat(comp), stat(comm), stat(wait), stat(run), stat(cores)
	for i, f := range w.frags {
		if h := w.hot[i]; h.freq > 0 {
			r.Hot = append(r.Hot, HotSpot{Node: f.node, Kind: f.kind, Pos: f.pos, Time: trace.Time(h.time), Freq: h.freq})
		}
	}
	sort.Slice(r.Hot, func(i, j int) bool {
		if r.Hot[i].Time != r.Hot[j].Time {
			return r.Hot[i].Time > r.Hot[j].Time
		}
		return r.Hot[i].Node < r.Hot[j].Node
	})
	for _, d := range w.decisions {
		if d.used {
			r.Decisions = append(r.Decisions, DecisionUse{Node: d.node, Pos: d.pos, Source: d.source(w)})
		}
	}
	for _, lp := range w.loops {
		if lp.ranked != nil && lp.used {
			r.Decisions = append(r.Decisions, DecisionUse{Node: lp.node, Pos: lp.pos, Source: "trip counts " + w.recSource(lp.from) + lp.trendNote()})
		}
	}
	sort.Slice(r.Decisions, func(i, j int) bool { return r.Decisions[i].Pos < r.Decisions[j].Pos })
	for _, k := range sortedKeys(w.assumptions) {
		r.Assumptions = append(r.Assumptions, k+": "+w.assumptions[k])
	}
	r.Limits = append(w.recursionLimits(), w.divergedLimits()...)
	if w.balance != "" {
		r.Limits = append(r.Limits, w.balance)
	}
	if l := w.runtimeLimit(); l != "" {
		r.Limits = append(r.Limits, l)
	}
	r.Parks, r.ParkEvery = w.parks, w.parkEvery()
	if l := w.coresLimit(); l != "" {
		r.Limits = append(r.Limits, l)
	}
	if w.noise != nil {
		r.Noise = NoiseText(w.cfg.NoiseSeed, w.cfg.Machine.Noise)
	}
	if w.cfg.Nodes {
		r.Nodes = w.nodeUse(int64(r.Time))
	}
	r.Bound = w.bound(r.Compute.Max)
	return r
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func (w *World) noteAssumption(site, what string) {
	if _, ok := w.assumptions[site]; !ok {
		w.assumptions[site] = what
	}
}

// profRank maps a rank to the recorded rank whose outcomes it replays
// (of a record at np = pn, records.go): itself when the record has it;
// otherwise the first rank for rank 0, the last for the last rank, and
// the inner ranks cycled over the inner ones.
func (w *World) profRank(r, pn int) int {
	if pn < 1 {
		return r
	}
	np := len(w.procs)
	switch {
	case r < pn:
		return r
	case r == np-1:
		return pn - 1
	case pn <= 2:
		return r % pn
	}
	return 1 + (r-1)%(pn-2)
}
