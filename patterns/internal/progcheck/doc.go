// Package progcheck checks the pattern programs of testprogs/patterns
// against the want lines written next to their code (grammar in
// testprogs/patterns/README.md), for the tests of package patterns and the
// predictcheck command.
//
// [Parse] reads the want lines of one program, [Runs] groups them into the
// runs they ask for (an np and a -mode; each run also has its -near
// variant), [Check] compares the [patterns.Report] of a run with them, and
// [Profile] (a timing pass) or [SyntheticProfile] (exact, nothing
// measured) and [Predict] give the report of a predicted run: the
// interpretation with a trace, the analysis of that trace.
package progcheck
