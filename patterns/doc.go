// Package patterns searches a trace for inefficiency patterns (wait states)
// and decomposes each rank's time, the last stage of DESIGN.md §8. It reads
// only the event schema of package trace, so the same engine serves real
// traces (written by commlib) and predicted ones (written by the
// interpreter).
//
// [Analyze] returns a [Report]: the [Finding] values of the main catalog,
// the same waits under the names of two other catalogs, the per-rank
// decomposition ([RankTime]) and the POP efficiency factors ([POP]).
//
// # The main catalog
//
// Names and formulas are Scalasca 2.6's (reference/peers.md §6) unless
// stated; Enter and Exit are the times of one call:
//
//   - LateSender: a receive call R (Recv, the receive half of a Sendrecv)
//     that blocks for a message whose send S is entered later: lost =
//     min(Enter(S), Exit(R)) − Enter(R). LateSenderAtWait is the same at a
//     Wait, Waitall or Waitany completing an Irecv; a call completing several
//     messages counts the maximum over them, not the sum. Test calls are
//     ignored.
//   - WrongOrder (Scalasca's "Late Sender, Wrong Order"): each receiving
//     thread keeps its last 100 Late Sender instances; a later receive call
//     that takes a message sent before the late one moves the instance from
//     LateSender to WrongOrder (Detail: same source or different sources).
//     The LateSender findings are therefore exclusive of WrongOrder.
//   - LateReceiver: a send that cannot complete before its receive is posted
//     (protocol "sync" or "rendezvous": Ssend, a standard send above the
//     eager limit; never an eager or buffered one), completed by the send
//     call C itself or (LateReceiverAtWait) by the Wait of an Isend or
//     Issend, whose receive Q (the Recv, or the Irecv that posted it) is
//     entered late: lost = 0 if Exit(C) ≤ Enter(Q), else Enter(Q) − Enter(C).
//   - SendRecvPair (ParJava §5.3.4, a diagnostic with lost 0): a blocking
//     send to a peer directly followed, on the same thread, by a Recv from
//     that peer, the Recv entered less than Options.SendRecvGap (Δ_SR) after
//     the send's exit; reported at the Recv.
//   - Collectives, grouped by Event.Collective, with latest = the last
//     Enter of the instance: WaitAtBarrier and WaitAtNxN (Allreduce,
//     Allgather(v), Alltoall(v)): min(latest, Exit) − Enter on every rank;
//     BarrierCompletion and NxNCompletion: Exit − max(earliest Exit,
//     min(latest, Exit)); LateBroadcast (Bcast, Scatter(v)): non-roots,
//     min(Enter(root), Exit) − Enter; EarlyReduce (Reduce, Gather(v)): the
//     root only, min(latest, Exit) − Enter; EarlyScan (Scan, Exscan): rank n,
//     min(latest of ranks 0..n, Exit) − Enter (ranks in world order).
//   - Threads (seed-000 §3.2): LockContention at Mutex.Lock and
//     Semaphore.Acquire: from the call's enter to the last release of the
//     same object by another thread during the call (clipped to the call);
//     WaitAtThreadBarrier at Barrier.Wait: the k-th calls of the threads on
//     one barrier form round k, each waits until the last one enters.
//
// Each wait instance is compared with the noise threshold Options.Eps
// (ParJava's ε): an instance shorter than Eps is not a wait at all, so a
// finding's Lost is the sum of its instances of at least Eps and Count their
// number. Without an Eps the threshold is a millionth of the run's span,
// and at least [RealEpsFloor] in a real trace (Options.Modeled false):
// small enough for the many small waits of a modeled iterative run, above
// the noise of a real one. Report.EpsRule says which applied.
//
// [SameRun] checks that an ideal-network trace (Options.Ideal) is of the
// same program, np and program arguments as the trace analyzed. Findings are aggregated per pattern, rank, thread, call site
// (file:line; the column predicted traces add is dropped), operation and
// detail.
//
// # Other vocabularies
//
// Report.Alternative restates waits in the terms of the seed catalogs where
// they differ; its lost times overlap the main catalog's and are not part of
// any total:
//
//   - ParJava (seed-003 §5): per message, early and late standard, buffered,
//     synchronous and ready sends (Δ between the two calls' enters, charged
//     to the side that idles; an early standard or ready send only when it
//     is not eager, an early buffered send never), WaitAtSender and
//     WaitAtReceiver for a Wait completing a nonblocking call (the whole
//     Wait, with the optimal distance O_D of the Wait from its nonblocking
//     call, and the distance it has now), and WrongMessageOrder (a message
//     sent after another one on the same pair and communicator whose receive
//     is posted first, with a local send: a diagnostic, lost 0).
//   - UPC (seed-000 §3.12): WaitInsideCollective, the time a rooted
//     collective's root is alone inside the call.
//
// # Time decomposition
//
// Per rank, on its main thread: useful time is the time outside
// communication calls (point-to-point, waits and collectives; thread
// primitives called by the main thread count as useful, the rank's work
// then runs in its threads). The time inside communication calls is split
// as in seed-002 §5.3 into starvation (waiting for another rank to produce:
// up to the last partner's send, post or collective enter), latency (data
// in flight, estimated from Options.Latency and Options.Bandwidth, zero
// when they are zero, as a real trace has no arrival times) and overhead
// (the rest), with the partner's overhead during the starvation window moved
// from starvation to overhead. The time after a rank's last event until the
// end of the run counts as starvation. For every rank useful + starvation +
// latency + overhead is the run's span.
//
// POP factors: load balance = average useful / maximum useful, communication
// efficiency = maximum useful / span, parallel efficiency = their product.
// Communication efficiency splits into serialization (maximum useful /
// span of an ideal-network run) and transfer (span of the ideal run / span)
// only when Options.Ideal holds the trace of such a run.
//
// # Order and robustness
//
// Events of one rank and thread are ordered by enter time, then sequence
// number, so equal times in a predicted trace keep their order; the input
// order does not matter. Malformed events (negative times, exit before
// enter, unknown kinds, duplicate message ids, ...) are skipped with a
// warning naming the event; Analyze never panics and its output is
// deterministic.
package patterns
