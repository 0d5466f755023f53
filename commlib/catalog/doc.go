// Package catalog describes commlib's operations once, for every stage that
// must know them: per operation its name, the role of each argument, its
// class, whether it blocks, the protocol a send asks for, how a collective's
// data flows, and its fixed Paraver value.
//
// The reduction reads the argument roles to decide which arguments shape
// communication ([Role.Held]) and which buffers carry message data; the
// interpreter finds its handlers, protocols and collective arguments here;
// the trace writers and the pattern search classify trace events by their
// operation ([ByTraceName]).
//
// # Where it lives
//
// catalog imports nothing of the module, and only the standard library:
// trace must use it and commlib imports trace, so a catalog inside commlib
// (or one importing it) would make a cycle, and one inside modelgen or
// reduce would make trace depend on go/ssa. Under commlib/ it sits next to
// the library it describes. A test (modelgen's catalog_test.go, as modelgen
// names commlib's functions; a test here that loads packages would make
// golang.org/x/tools a dependency of every user program's go.sum) loads the
// real commlib package with go/packages and fails when an exported function
// or method of commlib is missing here, an entry here names nothing in
// commlib, or an argument's type does not fit its role, so that renaming a
// commlib function fails a test instead of leaving a stage with a silent
// zero description.
//
// # Names
//
// An operation is named as modelgen.CommlibOp spells it ([NameOf]): the
// receiver's type name, a dot and the method ("Comm.Send", "Pool.SetTask",
// "AtomicInt.Add"), or the function's name ("Main", "Wtime"). Trace events
// carry the same name less "Comm." ([Op.TraceName]): "Send", "Barrier",
// "NewPool", "Pool.SetTask".
//
// The catalog is immutable: [Lookup], [ByTraceName] and [All] return
// pointers into it that callers must not modify.
package catalog
