// This file defines Analyze, which runs every detector over a trace.

package patterns

import (
	"fmt"

	"github.com/predict-tools/predict/trace"
)

// Analyze searches events for the patterns of the catalog and decomposes
// each rank's time. The events may come in any order; invalid ones are
// skipped and named in Report.Warnings.
func Analyze(events []trace.Event, opts Options) *Report {
	opts = opts.withDefaults()
	x := newIndex(events, opts.NP)
	epsRule := "given"
	if opts.Eps <= 0 {
		opts.Eps, epsRule = autoEps(x.span, opts.Modeled)
	}
	main, alt := newCollector(opts.Eps), newCollector(opts.Eps)

	x.lateSender(main)
	x.lateReceiver(main, opts.EagerLimit)
	x.sendRecvPairs(main, opts.SendRecvGap)
	cos := x.collectiveInstances()
	x.collectivePatterns(main, cos)
	x.lockContention(main)
	x.threadBarriers(main)

	x.parJavaMessages(alt, opts)
	x.wrongMessageOrder(alt, opts.EagerLimit)
	x.waitInsideCollective(alt, cos)

	rep := &Report{
		Eps:         opts.Eps,
		EpsRule:     epsRule,
		SendRecvGap: opts.SendRecvGap,
		NP:          x.np,
		Span:        x.span,
		Events:      len(events),
		Findings:    main.result(),
		Alternative: alt.result(),
		Ranks:       x.decompose(cos, opts),
	}
	var ideal []RankTime
	var idealSpan trace.Time
	if opts.Ideal != nil {
		ix := newIndex(opts.Ideal, opts.NP)
		ideal, idealSpan = ix.decompose(ix.collectiveInstances(), opts), ix.span
		for _, w := range ix.warnings {
			x.warnings = append(x.warnings, "ideal-network trace: "+w)
		}
		x.dropped += ix.dropped
	}
	rep.POP = pop(rep.Ranks, rep.Span, ideal, idealSpan, opts.Ideal != nil)
	rep.Warnings = x.warnings
	if x.dropped > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%d more warnings", x.dropped))
	}
	return rep
}
