// Package interp is the heart of predict (DESIGN.md §7; ParJava's thesis
// §3.2, §4, §4.1): it executes the reduced model of a program for np
// logical processes with virtual clocks and modeled communication.
//
// A program is compiled once for a profile and a machine
// ([Program.Compile], compiled.go) and run at any np ([Compiled.Run]); a
// [World] is one run's state (processes, scheduler, messages, counters)
// over the shared [Compiled]. Planning (plan.go) follows reduce's loop
// plan: which loops run whole and how, where each fragment is charged,
// which decisions are replayed.
//
// The reduced model is compiled to a compact form: per function, frames
// of slots (one per SSA value the model keeps) and per basic block the
// kept instructions as closures; the measured time of each fragment of the
// profile is charged where the fragment starts; loops timed whole are
// collapsed when nothing after them needs the values they compute (their
// trip count is computed from the induction variable, or replayed per
// rank when its bound is opaque); opaque decisions replay the outcomes
// the timing pass recorded for the rank (ranks beyond the recorded np
// reuse a recorded rank's; past the runs a truncated record kept, the
// outcomes it only counted follow in their own proportion, decide.go).
// The timing pass records these values at two np; a run replays the
// record of its own np, or the nearest scaled by their trend
// (records.go). Opaque communication arguments (a peer, a count, a send
// buffer's length the model does not compute) replay, at a recorded np,
// the values the timing pass recorded per rank and call (replayargs.go);
// at another np,
// and for a buffer only received into, the model's own value stands (zero
// where it computes none), and the run says so. Checks of the program (branches to
// Comm.Abort, panic, os.Exit or log.Fatal) are evaluated where they test
// control values (np, the rank, the program's arguments, constants): a run
// that would end there ends with an [AbortError] carrying the program's
// message, rank and file:line (abort.go). Checks of data the model does
// not compute are assumed to pass, and Result.Decisions says so.
//
// Logical processes are not goroutines: a process runs until it blocks in
// communication, and the scheduler always runs the process with the
// smallest clock (ties by rank), so wildcard receives and contention see
// events in time order. Clocks are int64 picoseconds.
//
// Communication follows MPI matching (posted and unexpected queues,
// wildcards, non-overtaking) with LogGOPS costs from package machine:
// eager below the eager limit, rendezvous above (and for Ssend), Bsend and
// Rsend eager, nonblocking operations completing at their modeled times
// (p2p.go documents the formulas). Collectives meet in an instance; when
// the last member enters, the data moves and every member's exit time is
// computed by running the chosen algorithm's schedule of point-to-point
// steps over the members' enter times (coll.go; the schedules are
// trace.RunSchedule's, which the GOAL export writes out too, costed in
// schedule.go). Threads (pools, Parallel, locks, semaphores, barriers,
// atomics) follow seed-003 §3.4 and §4.1.2 with the machine file's costs
// (threads.go, and sched_threads.go for their scheduler): a rank's threads run
// interleaved by smallest clock, and a thread lets any thread with a
// smaller clock go first before it takes a lock or touches an atomic, so
// acquisitions and work-sharing counters follow modeled time, not the
// order in which tasks were set. Pool tasks run when the master waits for
// them (WaitForAll); the master's own lock operations between SetTask and
// WaitForAll are taken before its tasks'. Goroutines are threads of their
// rank too (goroutines.go): a go statement starts one at its creator's
// clock, the main thread's run when it waits on a sync.WaitGroup (and up
// to its clock before each of its operations on what they share), and
// sync.Mutex, RWMutex and Once follow modeled time as commlib's locks do,
// sync/atomic's integer operations the model keeps run in modeled-time
// order (goatomic.go), errgroup is its WaitGroup, semaphore and first
// error (errgroup.go), and channels are queues of values stamped with
// their send times, the main thread running the rank's goroutines until
// what it waits for on a channel is there (channels.go). Goroutines share
// their rank's cores with its main thread while it computes beside them,
// and book them in the order of their clocks, a compute at a time. On a node with more ranks than
// cores, a rank takes a core when it is ready and keeps it until it
// blocks in communication, ends, or uses up a 10 ms time slice while
// others wait; a rank readied by a running one runs next on its core
// (Go's runnext); other ready ranks wait for a core, first come first
// served, and the wait is its own share of the rank's time
// (Result.CoreWait, "core_wait" trace events; nodecores.go). A rank's
// threads run on its share of its node's cores (over the ranks there not
// blocked or ended when they start: a rank lets the ranks behind it in
// time run first) and take turns, first come first served, when they
// outnumber it; a rank's fragments are charged
// between their alone and shared times by how busy its node's cores are
// (cores.go), and above their measured times by their slowdown beside the
// timing pass's memory co-runners, by how much busier the node is than
// the profiling machine (cores.go). Config.Nodes adds how each node's cores were used
// (Result.Nodes, nodes.go). A blocking
// call that waited resumes after the machine's wake-up delay (world.go,
// machine.Wakeup). On a machine with noise (machine.Noise), each burst of
// a rank's main-thread compute between two of its operations that
// communicate or synchronise is scaled by 1 + a deviation drawn from the
// machine's distribution (centred) at the burst's length (the larger of
// the burst so far and the last burst that started at the same
// operation), with a generator seeded per rank (Config.NoiseSeed): the
// mean is the profile's, and ranks that synchronise wait for the slowest
// of them, as on the machine (noise.go; Config.NoNoise leaves it out). A
// rank's pool and goroutine threads take their means.
//
// Loops timed whole are collapsed: trips × the measured time of an
// iteration. A sealed loop (package reduce) whose nest the model can run
// is counted in units instead (units.go): its outer levels are iterated,
// its innermost loops collapsed, and each innermost iteration (plus each
// element its copies move) costs the loop's measured time over the units
// the model counts at the profiled np — so a loop over the ranks whose
// inner loops shrink as np grows (FT's transposes) costs what its work
// costs, not trips × an iteration measured at another np.
//
// A call of a sealed recursion, or through a function or interface value
// the reduction sealed (package reduce, Plan.Sealed and SealedCall), is
// never entered: it returns zero values, and its time is its caller's
// fragment's, counted in the bytes of the slices it is handed (segunits.go).
//
// A run checks the model's ranks against the timing pass's plain runs at
// the profile's np (balance.go): a rank whose share of the ranks' mean
// compute differs by more than a fifth is said among the modeling limits
// of every run.
//
// Go's map iteration order is random, so a program whose control depends
// on it is data-dependent (package reduce makes such decisions opaque); the
// model iterates a map in the order its keys were first inserted (maps.go).
//
// A run allocates nothing per event on its hot paths once warm: blocking
// calls' messages and requests, frames of returned calls and finished
// collective instances are recycled, by an ownership that makes reuse
// unobservable (recycle.go; tests compare runs that recycle, that do not,
// and that poison what they release).
//
// A run at a large np (memoryCheckNP and more) first estimates its
// memory: the live heap of the same run at np = 32 and 64, whose
// difference per process is linear in np to within a percent for the test
// programs (memory.go). A run whose estimate exceeds the limit (GOMEMLIMIT,
// else the system's MemAvailable, with a margin; or Config.MemoryLimit) is
// refused with a [MemoryError] before it allocates its processes.
//
// Per rank, compute + communication overhead + waiting + waiting for a
// core = total, always.
// Identical input gives identical output.
package interp
