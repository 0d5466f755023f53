// Package commlib is the SPMD library the programs that predict models are
// written against: MPI-style ranks with point-to-point messages, collective
// operations and communicators, threads inside a rank (pool, fork/join,
// semaphores, mutexes, barriers, atomics), a clock, and tracing hooks.
//
// A program is a main package whose body runs once per rank:
//
//	func main() {
//		commlib.Main(func(c *commlib.Comm) {
//			left, right := c.Rank()-1, c.Rank()+1
//			...
//			c.Sendrecv(halo, right, 0, ghost, left, 0)
//			c.Allreduce(partial, total, commlib.Sum)
//		})
//	}
//
// [Main] runs the ranks as goroutines of one process (the in-process
// runtime), np of them from -np or COMMLIB_NP; [Run] and [RunWith] do the
// same for tests and tools. [Comm] is a concrete type so that every call is
// statically resolvable in the program's SSA form, which is what the model
// builder reads.
//
// # Semantics
//
// Messaging follows MPI. Receives are matched against messages in the order
// the messages arrived (per destination: an unexpected-message queue and a
// posted-receive queue), with AnySource and AnyTag wildcards; messages from
// one rank to another on one tag and communicator are never overtaken. A
// standard Send of at most the eager limit (DefaultEagerLimit, -eager) is
// copied and returns at once; a larger one returns only when the matching
// receive is posted (rendezvous). Ssend always waits for the receive; Bsend
// copies into the buffer given to BufferAttach and never waits; Rsend
// requires the receive to be posted already. Collectives match by call
// order on a communicator; their arguments (operation, root, operator,
// element type and count) must agree on every rank. Reductions combine
// contributions in rank order, so results are deterministic for a given
// number of ranks.
//
// # Errors
//
// Misuse stops the run with an [*Error] naming the rank, the operation, the
// program's call site and the problem: invalid ranks, tags, roots or counts,
// element type mismatches, truncation, collectives whose arguments disagree,
// a ready send without a posted receive, exhausted Bsend space. A panic in a
// rank stops the run with the rank and the stack. When every rank is blocked
// (or finished) and no blocked call can complete, the run stops within
// moments with a [*DeadlockError] listing each blocked call, its call site
// and whom it waits for. Nothing hangs: blocked ranks unwind when the run
// fails. [Comm.Abort] stops the run deliberately.
//
// # Threads
//
// Each rank may create one [Pool] of worker threads (NewPool, SetTask,
// WaitForAll with a reduction) and run fork/join regions with
// [Comm.Parallel]. Threads share [Semaphore], [Mutex], [Barrier],
// [AtomicInt] and [AtomicFloat]. Only the rank's main goroutine communicates
// with other ranks; goroutines that commlib did not start must not block in
// commlib, or deadlock detection may misjudge the run.
//
// A blocked call polls for what it waits for, up to [DefaultSpinWait]
// (Config.SpinWait, COMMLIB_SPIN_WAIT) while a core is idle, before it
// parks its goroutine, as MPI libraries poll: a parked goroutine is woken
// late. With Config.Serial (COMMLIB_SERIAL=1) the run's ranks and threads
// take turns, one computing at a time until it blocks in commlib or ends.
// With Config.Stream (COMMLIB_STREAM=N) N goroutines stream through memory
// beside the ranks (stream.go), a known load for the timing pass.
//
// # MPI
//
// Built with the mpi tag, Main runs the rank of an MPI job instead (cgo over
// the MPI C library, files mpi*.go): the process count comes from mpirun,
// every call is checked as in-process and then handed to the MPI transport
// (transport.go), reductions of floating-point numbers are still combined
// in rank order, and COMMLIB_TIMEOUT reports a rank blocked too long and
// ends the job. Run and RunWith stay in-process in that build, so the
// package's tests run there too.
//
// # Tracing
//
// With -trace FILE (or COMMLIB_TRACE, or [Config.TraceFile]) every call is
// recorded as a trace.Event with the rank, thread, operation, peer, tag,
// bytes, communicator, request, message or collective instance id, call
// site and enter/exit times, and written as a native trace (package trace)
// when the run ends. [Config.Hook] receives the events as they happen. When
// tracing is off, each hook is one nil check.
package commlib
