// Package reduce turns a program model into a reduced model: what decides
// control flow and communication is kept, the rest is dropped and later
// replaced by measured time (DESIGN.md §5; ParJava's model cleaning,
// seed-003 §4.2 and §4.6, and loop-nest reduction, §4.3.2).
//
// The analysis works on the SSA form of the functions of the model:
//
//   - a flow-insensitive points-to analysis gives, for every pointer,
//     slice or map, the abstract memory locations it may designate: an
//     allocation site (or global) and a path into it — a field, "all
//     elements", a field of a field (a struct held by value in a struct),
//     a field of the elements; locations whose paths overlap (a whole
//     struct and its fields) are read and written together;
//   - a forward taint pass finds the values that depend on data the
//     interpreter will not have: the contents of bulk allocations (large
//     or problem-size-dependent), random numbers, time, I/O, map iteration
//     order, channel and select outcomes;
//   - a backward closure from the roots — branch and loop conditions, the
//     communication-shaping arguments of commlib calls, dynamic call
//     targets — marks control values, through def-use, φ, parameters and
//     results (interprocedurally), closures' free variables and memory (a
//     store is control if a load that may read its location is). A root
//     that is tainted is not followed: the decision is opaque, its
//     outcomes come from the profile, and the reason is recorded. Taint
//     flows forward along every dependence the closure follows backward
//     (an allocation's size included), so that no value the closure
//     reaches is silently left out. A tainted communication argument (a
//     peer, a count, a buffer made or sliced to a random length) is
//     listed by [Plan.OpaqueArgs]: the timing pass records its values per
//     rank and the interpreter replays them at the profile's np (a buffer
//     only received into is marked Received: not recorded);
//   - the test of a loop that does not communicate is opaque too when it
//     reads a value that only the opaque decisions inside the loop choose
//     (an implicit flow, implicit.go): its trips are replayed rather than
//     millions of outcomes. Such values used after the loop (the index a
//     search leaves with, where a merge stopped) are opaque in turn, and
//     the taint pass carries them on (a count sent, a peer);
//   - a collective's members receive what that collective's calls send
//     (an Alltoall of counts carries the counts' taint only); a
//     point-to-point receive may take any point-to-point send's data.
//
// The result is written into the model (Leaf.Keep, Leaf.Control,
// Leaf.ZeroArgs, Node.Opaque, Loop.Trip, Function.ControlParams,
// ControlResults, ShapeOnly) and summarized in a [Report]. An allocation
// whose value (its length) is control but whose elements are not is
// shape-only: the interpreter keeps its length and capacity, no backing
// store; so is an append whose result's length is needed but none of its
// elements (a message built by append: its count, not its data). Loops
// that do not communicate get a trip-count formula of kept values and are
// collapse candidates.
//
// The loop plan ([Plan], plan.go) is where it is decided, once, how each
// loop runs; the timing pass and the interpreter both follow it. Per loop
// ([Loop]) it holds its header and blocks, its induction (the model's,
// and the program's own when the bound is opaque), its trip and work
// formulas, the inner count of a perfect nest known on entry, where an
// iteration starts, and the verdict for a loop the timing pass times
// whole, with its reason: collapse (its trip count computed on entry,
// replayed per rank, or until a moment of modeled time), iterate (left
// from several places, a bound or start computed inside it, effects or
// values the model keeps), or units (a sealed nest run as a skeleton,
// plan_units.go). The plan also answers what the verdicts rest on: the
// kept instructions, the shape-only allocations, the functions without
// kept effects (quiet.go) and the opaque communication arguments.
// [Prepare] loads, models and reduces a program once for both.
//
// A recursion that does not communicate and whose course depends on data
// the model does not have, or on a linked structure it would have to
// build (a tree inserted into and walked), is sealed like a loop
// (sealcall.go, [Plan.Sealed]): nothing inside it is a root, the
// interpreter never enters it, and each call of it from outside is timed
// whole in its caller's straight-line fragment, counted in the bytes of
// the slices it is handed. One whose values turn out to be needed (a
// count it returns decides a message) is unsealed in the same fixed point
// as the loops.
//
// With [Options.Exact] nothing is cut and nothing sealed: every value the
// roots depend on is kept, bulk data included (direct execution).
package reduce
