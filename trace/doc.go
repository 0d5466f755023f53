// Package trace defines the one event schema shared by real traces (written
// by commlib while a program runs) and modeled traces (written by the
// interpreter), and reads and writes its native JSON-lines form.
//
// A trace is a [Header] followed by [Event] values. An Event is one call of an
// operation on one rank and thread, with its enter and exit times, or the
// completion of a nonblocking request observed by Wait/Test
// ([KindComplete]). Times are integer picoseconds from the start of the run
// ([Time]); real traces are measured with the monotonic clock, modeled ones are
// virtual.
//
// Messages and collective calls are tied together by instance ids: every
// message a send creates gets a [Event.Message] id that the matching receive
// (or the completion of the matching Irecv) carries too, and every rank's call
// of one collective carries the same [Event.Collective] id. Ranks in Peer and
// Root are ranks of MPI_COMM_WORLD (the world), so events of different
// communicators can be related.
//
// The native file is JSON lines: the first line is the header, each further
// line one event, sorted by enter time, then rank, thread and sequence
// ([ReadJSONL], [WriteJSONL]).
//
// Writers put a trace in the formats of other tools: [WriteChrome] (Chrome
// Trace Event JSON for Perfetto and chrome://tracing), [WriteParaver]
// (Paraver's .prv, .pcf and .row), [WriteGOAL] (a schedule that LogGOPSim
// replays; [ReadGOAL] reads one back) and [WriteCSV]. [Convert] does what
// predict trace convert does: read a native file, write the format's files.
// Every writer's output depends only on the header and the set of events,
// not on their order.
package trace
