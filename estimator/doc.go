// Package estimator is the timing pass of predict (DESIGN.md §6; ParJava's
// thesis §4.3-§4.4): it measures, once, on one node, what the reduced model
// leaves to measurement.
//
// [Instrument] plans probes on a copy of the program's sources, keyed to
// the nodes of the model: maximal straight-line segments of statements
// between control points (calls of commlib or of the program's functions,
// control statements), whole loop nests that are collapse candidates (with
// their trip counts and sampled per-iteration times), and the opaque
// decisions (whose outcomes are recorded per rank). Probes are inserted at
// byte offsets, so positions stay those of the user's files, and the copy
// is built with go build -overlay: the user's tree is never touched. The
// probes' runtime is package probe.
//
// A region timed whole (whole.go) is timed in one way, without changing
// how its hot code compiles: the statement that enters it is written
// twice, behind a test of probe.SampleEntry. The entries it samples (a
// few, then sparser) run an instrumented copy, which times their first
// iterations; the others run the statement as written, between a clock
// read and a record of its time and trip count (computed before it runs
// when the loop plan counts it: counted forms, in the loop variable's
// own type; with a counter otherwise). The statement is the outermost
// that enters the region: the call statement when the region is the
// whole work of a function (or method) called only by statements
// (callsite.go), the loop statement otherwise. The instrumented copy is
// written apart whenever that is the same program: the callee's clone,
// or the loop outlined into a function of its own (outline.go); else it
// stays in place, and the plan says why (Plan.Whole; predict profile
// prints the count and the reasons). A probe call inside a hot loop,
// even one not taken, changes the machine code of the whole loop (values
// live across the call are kept on the stack, the loop runs 5-15 %
// slower), two copies of a loop in one function change how the original
// is compiled, and a probe in a small function stops its inlining. Both
// copies carry line directives (/*line :L:C*/) giving them the
// statement's own position, and after them the file's lines run on as in
// the user's file.
//
// What lies between fragments (a loop's control, conditions, calls of
// small functions, the calls themselves) no fragment measures. So every
// function measured inside, and every loop the interpreter iterates and
// the timing pass measures inside, is a region (region.go): timed whole
// as well, less what was timed apart inside it while it ran (package
// probe keeps a per-rank account of it) and less its own fragments; the
// rest is charged per call or per iteration, and every nanosecond of the
// run is measured or accounted for. A pilot run finds the regions that
// take less than 40 probe pairs per execution with their probes: their
// fragments would be as small as a probe, so the program is instrumented
// again with those timed whole and nothing timed inside them but the
// opaque decisions and the trip counts the model replays, and the
// segments inside regions that take less than their probe pair: they
// are not probed again, their time their region's (when it finds
// neither, its measurements count as one more probed run); a region with
// a counted loop of 4 probe pairs or more an entry stays measured inside.
// Regions are wall-clock measurements of one
// goroutine per rank, or, in a program with threads or goroutines, CPU
// time of the OS thread their goroutine holds while they run
// (probe/region.go). The wall-clock profile's fragment times are then
// scaled to the plain run's compute (profile.File.Scale): the plain run
// is the measurement, the probes share it out. At np > 1 each round runs
// the program once more with probes and the ranks taking turns (commlib's
// COMMLIB_SERIAL, alone.go): each fragment's median alone time over its
// shared one is its AloneRel, which the interpreter charges a rank alone
// on its node. When the ranks leave CPUs idle, each round runs it once
// more beside co-runners streaming through memory on them (COMMLIB_STREAM,
// alone.go): each fragment's median loaded time over its measured one is
// its LoadedRel, which the interpreter charges a rank on a node busier
// than the profiling machine.
//
// [Run] builds the program twice, without probes (adding only package
// runclock, which times the run from inside) and with them, runs both at
// a given np with the program's arguments (alternately, Config.Repeat
// times, 3 by default: the fastest run of each gives the spans, the
// plain runs' median their compute, in all and per rank (what the
// interpreter checks its ranks' balance against), each fragment's mean is the median
// over the probed runs, combine.go; every plain span is kept, for predict
// validate's drift) and
// turns the raw measurements into
// a profile.File (package profile owns the format): per fragment the
// executions, mean, standard deviation, minimum and maximum
// with the probe overhead compensated, and the error bound of the mean
// |Δ| ≤ 3σ/√N (relative δ ≤ 3σ/(√N(t̄ − σ)), seed-003 §4.4); per loop the
// trip-count distribution, the per-iteration time and the balance degree
// D = max|T_i − T̄| against α·T̄; per opaque decision its outcomes per rank
// (recorded as the model reads the condition: BranchNot where the model
// negates the source's test); per opaque argument of a commlib call its
// values per rank in the order of the calls (commargs.go, probe.Arg
// around the argument's own expression). These replayed values belong to
// the run's decomposition, so a run of their own records them again at a
// second np (replays.go, profile.Replay). A function timed by the loops
// that call it gets no probes, but when the model runs such a loop
// iteration by iteration it records its decisions alone (decisionsOnly).
// Profiles are versioned JSON keyed by node IDs and the content hash of the
// program's sources: a stale profile is an error, never used silently.
//
// With Config.Launcher (predict profile --launcher 'mpirun -np 2',
// launcher.go) the programs are built with the mpi tag and every run
// runs under the launcher, one process a rank, the launcher's number of
// ranks changed for the record at a second np; each rank writes its own
// files, merged into what one process writes (ranks.go, probe.Merge,
// runclock.Merge); the alone and loaded runs, which need the in-process
// runtime, are skipped with a warning. A launched run past its deadline,
// or when predict is stopped, ends with all its processes
// (session_unix.go). [BuildPlain] with a launcher builds the program for
// predict validate's real runs the same way, and [PlainProgram.Run] runs
// it under the launcher at each np, its span merged from the ranks' files.
//
// [Calibrate] measures this machine (predict calibrate; quick, and cached
// by [CachedLocal], it is the default machine of run, scale and validate),
// by MPIPerf's method
// (seed-001): clock offsets by the fastest round trip
// (calibrate_slots.go), self-tests WaitPatternNull and WaitPatternUp in a
// schedule of time slots with the time of a launch the maximum over ranks
// (no barrier before timed launches), a ping-pong table whose means are
// trimmed means repeated until their confidence interval is narrow enough
// or the machine is declared too noisy (calibrate_stats.go, [NoisyError]),
// the LogGOPS fit with the eager limit where the table jumps
// (calibrate_fit.go), thread primitives timed in loops (localmachine.go), the node's
// memory bandwidth and the cost of allocation (calibrate_node.go). The
// measurement loops take interfaces (sampler, stageRunner,
// clockExchanger): the in-process ranks (calibrate_inproc.go) in a
// calibration, fakes with skewed clocks and noise in tests. A calibration
// whose self-tests fail returns a [SelfTestError] and no machine.
package estimator
