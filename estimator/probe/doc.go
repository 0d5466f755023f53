// Package probe is the runtime of the probes the timing pass inserts into
// an instrumented copy of a program (DESIGN.md §6, package estimator). The
// instrumented binary runs once; the probes record per-fragment
// statistics and write them, when the run ends, to the file named by
// $PREDICT_PROBE_OUT, which predict profile turns into the profile.
//
// # The calls
//
// The instrumenter emits `probe.Declare(n)` in an init function (IDs are
// 0..n-1) and, around the fragments:
//
//	t := probe.Now(); …segment…; probe.Seg(id, t)
//	if probe.Branch(id, cond) { … }
//
// A loop timed whole is emitted twice (see package estimator): a sampled
// copy, which times its first IterSamples iterations, and the original
// code. [SampleEntry] chooses, per entry, which one runs (the first
// SampledEntries entries and then those numbered by a power of two). For
// a loop whose trip count is computed before it runs ([TripsTo],
// [TripsThrough], len):
//
//	n := TRIPS; ls := probe.SampleEntry(id); it := 0; t := probe.Now()
//	if ls != 0 {
//		for … { if ls > 0 { ls--; it = probe.Iter(id, probe.IterSamples+1-ls, it) }; …body… }
//		if it != 0 && ls > 0 { probe.IterEnd(id, probe.IterSamples+1-ls, it) }
//		probe.Sampled(id, n)
//	} else {
//		for … { …body… } // the loop as it was
//	}
//	probe.Loop(id, t, n)
//
// and for the others, which count their iterations:
//
//	ls := probe.SampleEntry(id); n := 0; it := 0; t := probe.Now()
//	if ls != 0 {
//		for … { n++; if n <= probe.IterSamples+1 { it = probe.Iter(id, n, it) }; …body… }
//		if it != 0 && n <= probe.IterSamples { probe.IterEnd(id, n, it) }
//		probe.Sampled(id, n)
//	} else {
//		for … { n++; …body… }
//	}
//	probe.Loop(id, t, n) // LoopRanked for a loop with an opaque bound
//
// Iter(id, k, last) starts iteration k and closes iteration k-1, whose
// time it records among the samples of index k-1. Sampled records the
// iterations a sampled entry ran in the sampled copy, on which the
// sampling code's cost depends (it runs after the copy, never in it). Start times live in the
// caller's locals, so ranks running the same fragment at once do not
// disturb each other. [Now], [TripsTo] and [TripsThrough] inline.
//
// # Clocks
//
// Fragments are timed by the monotonic wall clock, except in a program
// that runs pool or Parallel threads: the instrumenter declares it with
// [DeclareThreads] and starts fragments with [NowThread] instead of Now,
// and every fragment (of the ranks' main goroutines too, so that a
// fragment's executions are on one clock) is timed by the CPU clock of the
// OS thread that runs it, the goroutine locked to that thread from
// NowThread to the Seg or Loop that closes the fragment. It is the time
// the fragment takes with a core to itself, which is what the interpreter
// charges a logical thread, whatever the number of threads per core of
// the run measured (clock.go says why and what it costs).
//
// # Tables and locking
//
// Declare builds one slot per fragment, in a table indexed by ID (plus a
// slot for the calibration, [Overhead]); the hot paths index it, with no
// map and no allocation. The table is replaced, never modified, if an ID
// beyond Declare's count shows up (recorded all the same, after a slower
// first call).
//
// A fragment's durations (count, Σd, Σd² in 128 bits, min, max) and loop
// trip counts are striped: a slot has one cache-line cell per scheduler P
// (a power of two ≥ GOMAXPROCS, at most 32), each behind its own
// sync.Mutex; a probe records into the cell of the P it runs on (read
// with runtime.procPin, which the runtime keeps for linkname users), so
// ranks recording the same fragment in parallel lock different cells and
// write different cache lines: the mutex is uncontended unless the
// scheduler moves a goroutine between reading its P and locking. Cells
// are merged when the data is written. A cell keeps the latest trip count
// and its pending entries apart, so a loop entered with the same trip
// count as before touches no map. Iteration samples (by iteration index,
// a reservoir of 64 per index, algorithm R with a fixed seed per
// fragment) and branch outcomes sit behind one mutex per fragment; the
// entries a loop's SampleEntry saw and sampled are atomic counters.
//
// # Ranks
//
// Branch records outcomes per rank. commlib's RankStart hook gives each
// rank's goroutine a profiler label set of its own (runtime/pprof,
// {"predict_rank": "r"}); goroutines inherit their creator's label set, so
// pool and Parallel threads carry their rank's. Branch reads the
// goroutine's label-set pointer (runtime_getProfLabel, kept for linkname
// users) and looks it up among the ranks': about 10 ns. A goroutine whose
// labels the program changed (pprof.Do) falls back to its goroutine id,
// parsed from runtime.Stack (3 to 10 µs by stack depth, cached per
// goroutine), and to the rank of its creator ("created by … in goroutine
// N"). Other goroutines are rank -1. With one rank there is no lookup:
// everything is rank 0.
//
// # Costs
//
// On the development machine (AMD EPYC VM, 2 cores; one clock reading,
// time.Since on the vDSO clock, is 25 ns): a Now/Seg pair costs 56 ns,
// of which an empty fragment reads 25 ns (the bias subtracted from every
// measurement); a Loop with a changing trip count 70 ns with its Now;
// an Iter call 31-37 ns; SampleEntry 5 ns; the counter of the original
// copy of a loop 0 to 0.1 ns per iteration, the counter and test of the
// sampled copy 0.1 ns past its sampled iterations (what they cost in a
// given loop depends on the loop: in the original copy of a loop whose
// trip count is computed before it runs there is nothing); Branch 6 ns
// at np = 1, 15 ns at np > 1. Two goroutines recording the same fragment
// scale linearly (28 ns per pair each, aggregated). With the thread clock
// a reading is a system call, 0.55 µs, and a NowThread/Seg pair costs
// about 1.2 µs. The overhead is
// measured once, by Declare, in about 4 ms (with the thread clock about
// 0.1 s): 9 rounds (after one to warm
// up) of each measurement, medians. The clock dominates: the probes' own
// bookkeeping is 5 to 10 ns.
//
// # Output
//
// The data is written when a run ends (commlib's RunEnd hook, the run's
// error included) and by [Flush], as one JSON document ([Raw], version
// [RawVersion]), through a temporary file renamed into place. It holds
// the ranks of the latest run, the program's arguments, the wall time
// from the first rank's start to the end of the latest run, the clock of
// the durations ("wall" or "thread"), the overheads (on that clock), and
// the fragments that ran, by ID:
//
//	{"version":5,"np":2,"args":["-class","S"],"wall_ns":81234567,"clock":"wall",
//	 "overhead":{"seg_ns":25.2,"iter_ns":33.1,"counter_ns":0,"test_ns":0.1,"pair_ns":55.8},
//	 "fragments":[
//	  {"id":0,"kind":"seg","count":2,"sum_ns":812,"sum_sq_ns":330344,"min_ns":402,"max_ns":410},
//	  {"id":1,"kind":"loop","count":40,"sum_ns":…,"trips":[[100,30],[128,10]],
//	   "iter_samples":[[31,30,…],[30,…],…],"iter_seen":768,"sampled_entries":12,
//	   "sampled_trips":[[100,10],[128,2]]},
//	  {"id":2,"kind":"branch","count":6,"sum_ns":0,"sum_sq_ns":0,"min_ns":0,"max_ns":0,
//	   "branches":[{"rank":0,"true":2,"false":1,"runs":[{"value":true,"len":2},{"value":false,"len":1}]},
//	               {"rank":1,"true":0,"false":3,"runs":[{"value":false,"len":3}]}]}]}
//
// Durations include the probes' bias: subtract seg_ns per Seg or Loop
// execution; for the sampled entries of a loop (sampled_trips has their
// trip counts) also iter_ns per Iter or IterEnd call and test_ns per
// iteration run in the sampled copy, for the others counter_ns per
// iteration when the loop counts its iterations; iteration samples each
// include one iter_ns. Trip counts are
// exact for up to 1024 distinct values (the most frequent, when the cells
// saw more), the rest summarized in trips_other (count, min, max, sum).
// Outcome runs are capped at 100000 per rank: beyond, "truncated" is set,
// the runs are the beginning of the sequence and true/false still count
// every outcome.
//
// Under an MPI launcher each rank is a process of its own: with
// runclock.PerRankEnv set, each writes its rank's file (FILE.rankN, the
// rank commlib started in it), with "start_unix_ns", the wall clock at its
// start, and [Merge] makes of the ranks' files what one process running
// every rank writes.
package probe
