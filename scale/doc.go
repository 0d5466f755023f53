// Package scale predicts how a program scales: it runs one prediction per
// process count of a sweep, in parallel across process counts, and
// analyses, prints and plots the results (DESIGN.md §7, "Scale").
//
// The package knows nothing of the interpreter: [Sweep] calls a
// [PredictFunc] for each process count of the range and for the baseline
// ([SweepOptions]), collects the [Point] each returns and analyses them,
// so any predictor (the interpreter, a measured run, a model in a test)
// can drive it. Process counts come from [ParseRange], which reads
// the -np flag ("8..256", "8..256:8", "1,2,4,12", "64"). [TerminalProgress]
// shows a progress bar on a terminal and nothing elsewhere.
//
// [Sweep] finishes every process count it can: one whose prediction fails
// (the program aborts at that np, a limit of the model) is a [Failure]
// that the reports show in its place. [Args] are program arguments in
// which "{expr}" depends on np ("-n {np*65536}"): a sweep with such
// arguments is a weak-scaling one ([Options].Weak).
//
// [Analyze] turns the points into an [Analysis]: per process count the
// speedup and efficiency relative to a baseline run (in weak scaling, the
// scaled speedup and T(1)/T(np)) and the share of computation,
// communication, waiting, and idle time after a rank finishes in the
// machine's time np × time ([Row]; the shares sum to 1); the serial
// fraction f fitted by least squares (Amdahl's law, or its weak-scaling
// form) and the bound S_max = 1/f it implies; the np where the speedup peaks and the first np
// where the efficiency falls below one half; the model node whose share
// of the time grows fastest ([Growth]), with its file:line; and a one-line
// verdict built from these figures. [Analysis.WriteText],
// [Analysis.WriteJSON] and [Analysis.WriteCSV] print it, [Plot] draws
// speedup, efficiency and breakdown in PNG and SVG with gonum/plot.
//
// Times are [trace.Time], integer picoseconds, as everywhere in the
// project; floating point appears only in ratios (speedup, efficiency,
// shares, f). Everything the package writes is a function of its input
// alone: the same points give byte-identical text, JSON, CSV and plots,
// whatever the order in which the predictions finished.
package scale
