// This file defines a run: the world of ranks, how it starts, fails and ends.

package commlib

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/predict-tools/predict/trace"
)

// DefaultEagerLimit is the message size in bytes above which a standard send
// waits for the matching receive (rendezvous protocol).
const DefaultEagerLimit = 64 << 10

// Config describes a run of the in-process runtime.
type Config struct {
	NP         int    // number of ranks, at least 1
	EagerLimit int    // bytes; 0 means DefaultEagerLimit, negative means every standard send is rendezvous
	TraceFile  string // if set, the event trace is written there (JSON lines, see package trace)
	// Hook, if set, receives every trace event as it is recorded, from the
	// goroutine of the rank or thread concerned (concurrently).
	Hook func(trace.Event)
	// Program and Args go into the trace header.
	Program string
	Args    []string
	// DeadlockGrace is how long every rank must stay blocked, with no
	// progress, before the run is declared deadlocked; 0 means 200 ms.
	DeadlockGrace time.Duration
	// SpinWait is how long a blocked call polls for what it waits for
	// before it parks its goroutine, while fewer of the run's goroutines
	// run than there are Ps (GOMAXPROCS); 0 means DefaultSpinWait,
	// negative never (park at once). See waiter.spin.
	SpinWait time.Duration
	// Serial makes the run's goroutines (ranks and their threads) take
	// turns: one runs at a time, until it blocks in commlib or ends. Each
	// then computes alone on the machine, as on a node of its own: the
	// timing pass measures fragments so (COMMLIB_SERIAL=1).
	Serial bool
	// Stream is how many goroutines stream through memory (a STREAM
	// triad beyond the caches) while the ranks run: the timing pass
	// measures fragments under that known load (COMMLIB_STREAM=N,
	// stream.go). 0: none.
	Stream int
}

// DefaultSpinWait is how long a blocked call polls before it parks, by
// default. A parked goroutine is woken on its releaser's P, where it waits
// until that P blocks or an idle P's thread, woken by the operating system,
// steals it: on a 2-core machine two ranks exchanging halos between 150 us
// of compute lost 50 us per Sendrecv that way, where an MPI library, which
// polls, loses 1 us. 100 us of polling covers the waits of balanced
// exchanges and costs at most that much of an idle core per call.
const DefaultSpinWait = 100 * time.Microsecond

// world is the shared state of one run.
type world struct {
	np         int
	eagerLimit int
	start      time.Time
	procs      []*process
	tracer     *tracer   // nil when tracing is off
	tr         transport // nil in-process; the MPI runtime's otherwise

	nextComm                            atomic.Int32
	nextMsg, nextReq, nextColl, nextObj atomic.Int64

	// running counts tracked goroutines (rank bodies, pool workers,
	// Parallel threads) that are not parked in commlib; progress counts
	// wake-ups. See waiter.
	running  atomic.Int64
	progress atomic.Uint64
	parked   sync.Map // *waiter → struct{}
	threads  sync.Map // goroutine id → thread number, for pool and Parallel threads
	suspect  chan struct{}
	grace    time.Duration
	spin     time.Duration // Config.SpinWait; ≤ 0: park at once
	serial   chan struct{} // Config.Serial: the turn, held by the goroutine that runs; nil: all run at once
	maxProcs int64         // GOMAXPROCS at the start

	failOnce sync.Once
	failure  error
	aborted  chan struct{} // closed when the run fails
}

// process is the state of one rank that other ranks touch: its message
// queues, its attached send buffer, its thread pool.
type process struct {
	w    *world
	rank int

	mu         sync.Mutex
	posted     []*Request // receives posted here and not matched, in posting order
	unexpected []*message // messages arrived here and not matched, in arrival order

	bsendMu    sync.Mutex
	bsendSize  int // attached buffer bytes; 0 when none is attached
	bsendUsed  int
	bsendQueue waitQueue // BufferDetach waiting for buffered messages to leave

	pool     *Pool
	finished atomic.Bool // the rank's body returned

	traceMu sync.Mutex
	events  []trace.Event
	seq     int64
}

// Run runs body once per rank, as np goroutines, and returns the first
// failure: a misuse of commlib, a panic in a rank, or a deadlock.
func Run(np int, body func(c *Comm)) error {
	return RunWith(Config{NP: np}, body)
}

// RunWith is Run with a configuration.
func RunWith(cfg Config, body func(c *Comm)) error {
	if cfg.NP < 1 {
		return fmt.Errorf("commlib: number of ranks %d: want at least 1", cfg.NP)
	}
	if cfg.Stream < 0 || cfg.Stream > maxStreams {
		return fmt.Errorf("commlib: %d streaming co-runners: want 0..%d", cfg.Stream, maxStreams)
	}
	w, worldShared, hs := newWorld(cfg)
	stopStreams := startStreams(cfg.Stream)
	defer stopStreams()

	var wg sync.WaitGroup
	w.running.Store(int64(cfg.NP))
	stopWatch := make(chan struct{})
	go w.watch(stopWatch)
	for r := range cfg.NP {
		wg.Add(1)
		c := &Comm{w: w, p: w.procs[r], sh: worldShared, rank: r}
		go func() {
			defer wg.Done()
			defer w.goroutineDone()
			defer c.p.finished.Store(true)
			defer w.recoverRank(r, 0)
			w.takeTurn()
			defer w.giveTurn()
			for _, h := range hs {
				if h.RankStart != nil {
					h.RankStart(r, cfg.NP)
				}
			}
			body(c)
			if c.p.pool != nil {
				c.p.pool.Close()
			}
			for _, h := range hs {
				if h.RankEnd != nil {
					h.RankEnd(r)
				}
			}
		}()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-w.aborted:
		// Ranks stop at their next commlib call; one stuck in its own
		// computation cannot be stopped, so do not wait for it forever.
		select {
		case <-finished:
		case <-time.After(2 * time.Second):
		}
	}
	close(stopWatch)
	err := w.failure
	if w.tracer != nil {
		if terr := w.tracer.finish(w); terr != nil && err == nil {
			err = terr
		}
	}
	for _, h := range hs {
		if h.RunEnd != nil {
			h.RunEnd(err)
		}
	}
	return err
}

// newWorld makes the world of a run of cfg.NP ranks, its world
// communicator, and returns the hooks registered for it.
func newWorld(cfg Config) (*world, *commShared, []Hooks) {
	w := &world{
		np:         cfg.NP,
		eagerLimit: cfg.EagerLimit,
		start:      time.Now(),
		suspect:    make(chan struct{}, 1),
		grace:      cfg.DeadlockGrace,
		aborted:    make(chan struct{}),
		spin:       cfg.SpinWait,
		maxProcs:   int64(runtime.GOMAXPROCS(0)),
	}
	if w.spin == 0 {
		w.spin = DefaultSpinWait
	}
	if cfg.Serial {
		w.serial = make(chan struct{}, 1)
		w.serial <- struct{}{}
		w.spin = -1 // a goroutine waiting for its turn would poll in vain
	}
	if w.eagerLimit == 0 {
		w.eagerLimit = DefaultEagerLimit
	}
	if w.grace <= 0 {
		w.grace = 200 * time.Millisecond
	}
	hs := currentHooks()
	var timing []func(int, time.Duration)
	var starting []func(int)
	for _, h := range hs {
		if h.CallTime != nil {
			timing = append(timing, h.CallTime)
		}
		if h.CallStart != nil {
			starting = append(starting, h.CallStart)
		}
	}
	if cfg.TraceFile != "" || cfg.Hook != nil || len(timing) > 0 || len(starting) > 0 {
		w.tracer = newTracer(cfg)
		w.tracer.timing, w.tracer.starting = timing, starting
	}
	worldShared := &commShared{id: 0, name: "world", group: make([]int, cfg.NP)}
	w.procs = make([]*process, cfg.NP)
	for r := range w.procs {
		w.procs[r] = &process{w: w, rank: r}
		worldShared.group[r] = r
	}
	w.nextComm.Store(1)
	return w, worldShared, hs
}

// takeTurn waits, with Config.Serial, until no other goroutine of the run
// computes; giveTurn lets the next one go (when it blocks in commlib or
// ends). Without Serial both do nothing.
func (w *world) takeTurn() {
	if w.serial == nil {
		return
	}
	select {
	case <-w.serial:
	case <-w.aborted:
		panic(abortUnwind{})
	}
}

func (w *world) giveTurn() {
	if w.serial == nil {
		return
	}
	select {
	case w.serial <- struct{}{}:
	default: // an unwinding goroutine that did not hold it
	}
}

// goroutineDone accounts for a tracked goroutine that ends.
func (w *world) goroutineDone() {
	if w.running.Add(-1) == 0 {
		select {
		case w.suspect <- struct{}{}:
		default:
		}
	}
}

// recoverRank turns a panic in a rank or thread into the run's failure.
func (w *world) recoverRank(rank, thread int) {
	v := recover()
	if v == nil {
		return
	}
	switch v := v.(type) {
	case abortUnwind:
		return
	case *Error:
		if v.Thread == 0 {
			v.Thread = thread
		}
		w.fail(v)
	case *abortRequest:
		w.fail(v.err)
	default:
		e := &Error{Rank: rank, Thread: thread, Msg: fmt.Sprintf("panic: %v", v), Stack: string(debug.Stack())}
		if err, ok := v.(error); ok {
			e.Msg = "panic: " + err.Error()
		}
		w.fail(e)
	}
}

// fail records the run's first failure and wakes every blocked goroutine so
// that it unwinds.
func (w *world) fail(err error) {
	w.failOnce.Do(func() {
		w.failure = err
		close(w.aborted)
	})
}

// abortRequest carries the error of Comm.Abort.
type abortRequest struct{ err error }

// AbortError is the failure of a run stopped by Comm.Abort.
type AbortError struct {
	Rank int
	Site string
	Err  error
}

func (e *AbortError) Error() string {
	return fmt.Sprintf("rank %d aborted the run at %s: %v", e.Rank, shortSite(e.Site), e.Err)
}

func (e *AbortError) Unwrap() error { return e.Err }

// Abort stops the whole run with err, like MPI_Abort: Run returns an
// *AbortError, Main prints it and exits with status 1.
func (c *Comm) Abort(err error) {
	if err == nil {
		err = errors.New("aborted")
	}
	panic(&abortRequest{&AbortError{Rank: c.p.rank, Site: userSite(), Err: err}})
}

// watch declares a deadlock when the running count stays zero, with no
// progress and someone parked, for the grace period.
func (w *world) watch(stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case <-w.aborted:
			return
		case <-w.suspect:
		}
		for w.running.Load() == 0 {
			p0 := w.progress.Load()
			select {
			case <-stop:
				return
			case <-w.aborted:
				return
			case <-time.After(w.grace):
			}
			if w.running.Load() == 0 && w.progress.Load() == p0 {
				if d := w.deadlock(); d != nil {
					w.fail(d)
					return
				}
				break
			}
		}
	}
}
