// Package model is the vocabulary every stage of predict shares: a program
// model is the set of models of the functions an SPMD body can reach; a
// function model is a control tree whose inner nodes are the program's
// control statements and whose leaves are pieces of basic blocks
// (DESIGN.md §4, after ParJava's thesis §3.1).
//
// The main types are [Program], [Function], [Node] and [Leaf]. A [Node] is
// a sequence, a conditional ([KindIf], [KindIfElse]), a [KindSwitch] of
// [KindCase] nodes, a [KindLoop] (for, while, do-while, range, infinite), an
// unstructured [KindRegion] interpreted as a small CFG, a jump out of a
// construct ([KindBreak], [KindContinue]), a condition ([KindTest],
// [KindAnd], [KindOr], [KindNot]) or a [KindLeaf]. Leaves carry a
// [LeafKind] after ParJava: computational blocks (cb), calls of the
// program's own functions (ufc), of external functions (efc), of commlib
// (cfc), returns (ret), plus the Go specifics spawn (a go statement),
// defer, rundefers and panic.
//
// Interpretation follows the node-status rules of seed-003 §4: a node
// completes with ok, break(loop), continue(loop) or return. A loop runs
// Header, then tests Cond (at the top, or after Body when TestAtBottom),
// then Body and Post; continue goes to Post.
//
// Node IDs are stable: the function's ID, the node kind and the node's
// position relative to the start of the function, plus an index when
// several nodes of one kind share a position. Editing another function
// does not change them. Everything a model prints is sorted and
// deterministic.
//
// A program prints as indented text ([Program.WriteText]), as JSON
// ([Program.WriteJSON], read back and checked by [ReadJSON]; SCHEMA.md
// describes every field) and as a Graphviz digraph ([Program.WriteDOT]).
//
// This package only describes models; modelgen builds them and reduce,
// estimator and interp use them.
package model
