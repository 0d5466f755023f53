// Predict tells the author of a Go SPMD program how the program will scale
// on a cluster before it runs there: it builds a model of the program from
// its Go source, measures the cost of the program's fragments once on one
// node, and interprets the model for any number of processes (DESIGN.md).
//
// Usage:
//
//	predict COMMAND [flags] [arguments]
//
// The command line is thin: flags, files, output and exit statuses. The
// work is done by the packages ([github.com/predict-tools/predict/modelgen]
// builds models, [github.com/predict-tools/predict/model] prints and reads
// them), so that every stage is usable as a library.
//
// # predict model
//
//	predict model PKG [--func NAME] [--format text|json|dot] [--tags a,b] [-o FILE]
//
// Model loads PKG, a package pattern naming one main package (such as
// ./testprogs/stencil), builds the model of the SPMD body it passes to
// commlib.Main or commlib.Run together with the driver that calls it and
// every function of the module they reach, and prints it:
//
//   - text: each function's control tree, indented, with file:line
//     ([model.Program.WriteText]);
//   - json: the form later commands read, described in model/SCHEMA.md
//     ([model.Program.WriteJSON], [model.ReadJSON]);
//   - dot: a Graphviz digraph, one cluster per function
//     ([model.Program.WriteDOT]); render it with dot -Tsvg.
//
// --func NAME models the function of PKG with that ID (main, main$1,
// (*grid).exchange, as the model prints them) and what it reaches; PKG then
// need not be an SPMD program. --tags sets build tags as for go build.
// -o FILE writes the output to FILE ("-" is standard output); nothing is
// written when the command fails.
//
// # Exit status
//
// 0 on success; 2 when the command line is wrong (an unknown command or
// flag, a missing or extra argument, an unknown --format), found before any
// work; 1 when the command failed (a package that does not load or has
// errors, a package that is not an SPMD program, an unknown --func, an
// output file that cannot be written). The message is one line on standard
// error, or a few for the errors of a package, and names the argument or
// flag at fault.
package main
