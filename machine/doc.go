// Package machine describes the target machine of a prediction and
// computes what things cost on it: messages within and between nodes
// (LogGOPS, optionally a ping-pong table and NIC contention), thread
// primitives, the collective algorithm to use, and computation (a CPU
// factor). The interpreter (DESIGN.md §7) calls it for every primitive it
// models; the calibration (DESIGN.md §6) writes its files. It knows
// nothing about programs.
//
// A [Machine] comes from a preset ([Preset]: ideal, local, ethernet-10g,
// infiniband-hdr), a machine file ([Load], [Parse], [Resolve]), or a
// calibration of this machine (estimator.Calibrate).
// Its [Origin] says which; [Machine.Describe] prints every parameter and says
// loudly when a preset stands in for a calibration, as every report must.
//
// # Units
//
// Durations are [trace.Time], integer picoseconds, the interpreter's clock.
// Per-byte costs (G, O, thread copies) are [PerByte], integer femtoseconds
// per byte: whole picoseconds per byte would round a 24 GB/s link (41.667
// ps/B) by about 1 %, too coarse for predictions meant to be within 5 %;
// [PerByte.Times] turns n bytes into picoseconds exactly (128-bit
// intermediate, rounded to the nearest picosecond). Sizes are int64 bytes.
// All arithmetic is integer, so costs are bit-identical across runs and
// platforms; the CPU factor (a float64) is applied exactly to its binary
// value (a 128-bit product, rounded once to the nearest picosecond).
//
// In a machine file, durations are strings with a unit, "2.5us", "1500ns",
// "41ps" (ps, ns, us or µs, ms, s), or JSON numbers of nanoseconds (the
// unit of LogGOPSim); per-byte costs are strings "6ns/B", "41.667ps/B"
// (fs/B … s/B), bandwidths "24GB/s", "200Gb/s", or JSON numbers of
// nanoseconds per byte; sizes are integers or "64KiB". Values are rounded to
// the nearest picosecond (per byte: femtosecond). [Machine.Write] writes
// strings in the unit that shows the value exactly.
//
// # LogGOPS
//
// Each level, [Machine.Intra] between ranks on one node and [Machine.Inter]
// between nodes, is a [LogGOPS] parameter set as in LogGOPSim: latency L,
// overhead o, gap g, gap per byte G, overhead per byte O, eager limit S.
// For a message of s bytes, with s−1 read as max(s−1, 0):
//
//	SendOverhead(s) = o + (s−1)·O     the sender's CPU is busy
//	Gap(s)          = g + (s−1)·G     the sender's NIC is busy: its next message starts no earlier
//	Transfer(s)     = o + L + (s−1)·G from the send's start to the arrival of the last byte
//	RecvOverhead(s) = o + (s−1)·O     the receiver's CPU, once the message is there and matched
//	Eager(s)        = s ≤ S           a standard send completes without waiting for the receive
//
// A send starting at t (and not before the rank's previous injection + its
// Gap) keeps its CPU until t + SendOverhead(s) and arrives at t +
// Transfer(s); a receive completes at max(arrival, receive posted) +
// RecvOverhead(s). With LogGOPSim's defaults (L=2500 o=1500 g=1000 ns,
// G=6 ns/B, O=0, S=65535) a 1 KiB message costs the sender 1500 ns, arrives
// 1500+2500+1023·6 = 10138 ns after the send starts, and is received at
// 11638 ns. Above S the rendezvous protocol applies: the interpreter
// builds it from control messages (a request to send, a clear to send) of
// Transfer(0) each, then the data. [Machine.Link] picks the level of a pair
// of ranks; [Link] is what the interpreter holds per message.
//
// A ping-pong [Table] (size → one-way time, half a round trip, as a
// calibration measures it) overrides the fit's transfer time on its level:
// Transfer(s) = Table.At(s) − RecvOverhead(s), at least SendOverhead(s), so
// that a modeled ping-pong reproduces the table. [Table.At] interpolates
// linearly between points, extrapolates beyond the last with the last
// segment's slope, and below the first returns the first point's time.
// [Segments], a piecewise-linear fit of the table (SimGrid/SMPI's
// per-range factors, as predict calibrate writes them), change only that
// extrapolation: beyond the table's last point [Link.TableAt] adds the
// last fitted range's cost per byte to the last point's time.
//
// # Placement
//
// A job of np ranks occupies [Machine.NodesUsed](np) nodes: ⌈np /
// RanksPerNode⌉ (or all Nodes when RanksPerNode is 0, no limit). Block
// mapping fills nodes with consecutive ranks (rank / RanksPerNode), cyclic
// deals ranks round-robin over the job's nodes (rank mod NodesUsed), and
// explicit mapping reads Placement[rank]. Nodes = 0 means as many nodes as
// the job needs; [Machine.CheckNP] reports a job that does not fit.
//
// # NIC contention
//
// Off by default, as in LogGOPSim (messages never delay one another beyond
// each rank's gap g). With [NIC].Contention on, each node has one injection
// port and one ejection port that serialize the inter-node messages
// passing through them; see [NICQueues.Deliver] for the rule. It models a
// node whose ranks share one NIC: 64 ranks sending at once from a node
// take 64 times as long to leave it.
//
// # Threads
//
// [ThreadCosts] follows ParJava (seed-003 §4.5): creating a pool of n
// threads costs n·Create; a task set when the master's clock reads t keeps
// the master busy until t + SetTask and starts on a free worker at t +
// Start; the master resumes at the latest task's end after WaitForAll
// (no cost of its own); a copy of n bytes costs
// n·Copy; atomics cost CAS, creating one CreateAtomic; semaphores and locks
// cost CreateSemaphore to create, TryLock per attempt and Release to
// release, and a lock is held at max(t, released) + TryLock
// ([ThreadCosts.LockAcquired]).
//
// # Collectives
//
// Collectives are schedules of point-to-point messages. [Machine.Collectives]
// fixes the algorithm of a collective or leaves it to [Auto], which
// [Machine.CollectiveAlgorithm] resolves by size and np with MPICH's
// default rules. The names stand for these schedules (root 0 shown; p = np):
//
//	linear             the root exchanges with each rank in turn (barrier, allreduce, allgather: fan-in
//	                   to rank 0 then fan-out); alltoall: every send and receive posted at once;
//	                   scan: a chain from rank 0 up
//	binomial           a binomial tree, ⌈log2 p⌉ rounds (allreduce, barrier: reduce then broadcast)
//	recursive-doubling log2 rounds exchanging with rank XOR 2^k; ranks beyond the largest power of two
//	                   fold into it first and receive the result last
//	ring               p−1 steps to the right neighbour; allreduce: ring reduce-scatter then ring
//	                   allgather, 2(p−1) steps of 1/p of the data; bcast: a pipeline along the ring
//	rabenseifner       reduce-scatter by recursive halving, then allgather by recursive doubling
//	                   (allreduce) or binomial gather (reduce)
//	bruck              ⌈log2 p⌉ rounds, rank r sends to r+2^k: dissemination (barrier), Bruck's
//	                   concatenation (allgather) and index (alltoall) algorithms
//	pairwise           p−1 steps, rank r sends to r+k and receives from r−k (XOR partners when p is a
//	                   power of two)
//	scatter-allgather  bcast as a binomial scatter of p pieces then a ring allgather (van de Geijn)
//
// [Algorithms] lists those valid for a collective; files are checked
// against it.
//
// # Invariants
//
// A Machine that passes [Machine.Validate] has no negative duration, cost
// or size, a known origin, mapping and algorithm for every collective, and
// tables of at least two points with strictly increasing sizes and a
// non-decreasing last segment, and every value within the bounds of
// bounds.go ([MaxDuration], [MaxPerByte], [MaxTableTime], [MaxTableBytes],
// [MinCPUFactor]..[MaxCPUFactor]). Every cost function is exact or returns
// [Overflow] when the exact cost does not fit the int64 picosecond clock
// (≈ 106 days); none wraps round or converts an out-of-range float. The
// caller reports an Overflow (see [Overflowed], [AddTime]). The cost
// functions are pure and deterministic, never change the Machine, and
// never panic on a valid one; they are safe for concurrent use. [Parse] and [Load] return only valid
// machines; [Machine.Write] and [Parse] round-trip exactly.
package machine
