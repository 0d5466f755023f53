// This file defines the options of the GOAL writer (time unit, choice of
// collective algorithms, LogGOPS parameters) and the comment header that
// states them in the schedule.

package trace

import (
	"bufio"
	"fmt"
	"slices"
	"strings"
)

// Picosecond is the unit of Time: the finest GOAL unit WriteGOALOptions
// writes.
const Picosecond Time = 1

// GOALOptions are the choices of WriteGOALOptions. The zero value writes
// calc in nanoseconds and expands collectives that do not record their
// algorithm with defaultAlgorithms.
type GOALOptions struct {
	// Unit is the time unit of calc and of the LogGOPSim command line the
	// header suggests: Nanosecond (zero means Nanosecond, LogGOPSim's
	// usual unit) or Picosecond, which keeps every picosecond of a modeled
	// trace and lets per-byte costs under a nanosecond (G = 0.8 ns/B is
	// 800 ps/B) be integers, as LogGOPSim wants them.
	Unit Time
	// Algorithm chooses the algorithm of a collective whose events do not
	// record one (traces of real runs): op is commlib's name, bytes the
	// largest contribution (Event.Bytes) of its participants, n their
	// number. It returns one of package machine's algorithm names.
	// nil: defaultAlgorithms.
	Algorithm func(op string, bytes int64, n int) (string, error)
	// Chooser says in the header what Algorithm is ("the machine file
	// m.json"); ignored when Algorithm is nil.
	Chooser string
	// Params, when not nil, are the LogGOPS parameters to replay with: the
	// header gives the LogGOPSim command line with them in Unit.
	Params *GOALParams
}

// GOALParams are LogGOPS parameters in picoseconds (per byte for G and
// O), as LogGOPSim's -L, -o, -g, -G, -O and -S take them.
type GOALParams struct {
	L, O, Gap      Time
	G, OPerByte    float64 // picoseconds per byte
	EagerLimit     int64   // bytes
	Description    string  // where they come from, for the header
	MultipleLevels bool    // the machine has other parameters within a node, which LogGOPSim cannot represent
}

// ParseGOALUnit returns the Unit of a name: "ns" or "ps".
func ParseGOALUnit(name string) (Time, error) {
	switch name {
	case "ns":
		return Nanosecond, nil
	case "ps":
		return Picosecond, nil
	}
	return 0, fmt.Errorf("unknown GOAL time unit %q, want ns or ps", name)
}

func (o *GOALOptions) check() error {
	switch o.Unit {
	case 0:
		o.Unit = Nanosecond
	case Nanosecond, Picosecond:
	default:
		return fmt.Errorf("GOAL time unit of %d ps: want %d (ns) or 1 (ps)", o.Unit, Nanosecond)
	}
	return nil
}

// units converts t to the unit, rounding to the nearest.
func (o *GOALOptions) units(t Time) int64 { return int64((t + o.Unit/2) / o.Unit) }

func (o *GOALOptions) unitName() string {
	if o.Unit == Picosecond {
		return "picoseconds"
	}
	return "nanoseconds"
}

// goalAlgUse counts the collective instances of one operation expanded
// with one algorithm, chosen by one source.
type goalAlgUse struct{ op, alg, source string }

// choose sets the algorithm of the complete collective c: the one its
// events record, else the options' choice, else the default.
func (g *goalWriter) choose(c *goalColl) error {
	events := g.x.events
	first := &events[c.events[0]]
	for _, i := range c.events[1:] {
		if e := &events[i]; e.Algorithm != first.Algorithm {
			return fmt.Errorf("collective %d (%s): rank %d records algorithm %q, rank %d %q",
				first.Collective, first.Op, first.Rank, first.Algorithm, e.Rank, e.Algorithm)
		}
	}
	use := goalAlgUse{op: first.Op, alg: first.Algorithm, source: "recorded in the trace"}
	switch {
	case use.alg != "":
	case first.Op == "Split" || first.Op == "Dup" || first.Op == "CartCreate":
		// not a collective of commlib's users: the exchange of
		// (color, key) the interpreter models
		use.alg, use.source = "recursive-doubling", "the communicator constructor's exchange"
	case g.opts.Algorithm != nil:
		a, err := g.opts.Algorithm(first.Op, slices.Max(c.bytes), len(c.ranks))
		if err != nil {
			return fmt.Errorf("collective %d (%s): %v", first.Collective, first.Op, err)
		}
		use.alg, use.source = a, "chosen by "+g.opts.Chooser
	default:
		use.alg, use.source = defaultAlgorithms[first.Op], "default (no machine given)"
	}
	if _, err := CollectiveRounds(first.Op, use.alg, 0, len(c.ranks), max(c.root, 0), c.bytes); err != nil {
		return fmt.Errorf("collective %d: %v", first.Collective, err)
	}
	c.alg = use.alg
	g.algs[use]++
	return nil
}

func (g *goalWriter) writeHeader(w *bufio.Writer, h Header, np int) {
	fmt.Fprintf(w, "// GOAL schedule written by predict trace convert from a %s trace (source %s", FormatName, oneLine(h.Source))
	if h.Program != "" {
		fmt.Fprintf(w, ", program %s", oneLine(h.Program))
	}
	fmt.Fprintf(w, ", np %d)\n", np)
	unit := g.opts.unitName()
	fmt.Fprintf(w, "// Time unit: %s. calc values are in %s; give LogGOPSim L, o, g in %s and G, O in %s per byte.\n", unit, unit, unit, unit)
	w.WriteString("// Replay: txt2bin -i FILE.goal -o FILE.bin && LogGOPSim -f FILE.bin")
	if p := g.opts.Params; p != nil {
		u := float64(g.opts.Unit)
		round := func(ps float64) int64 { return int64(ps/u + 0.5) }
		fmt.Fprintf(w, " -L %d -o %d -g %d -G %d -O %d -S %d\n", round(float64(p.L)), round(float64(p.O)), round(float64(p.Gap)),
			round(p.G), round(p.OPerByte), p.EagerLimit)
		fmt.Fprintf(w, "// LogGOPS parameters of %s, rounded to integer %s", oneLine(p.Description), unit)
		if p.MultipleLevels {
			w.WriteString(" (its parameters between nodes: LogGOPSim has one level, the machine another within a node)")
		}
		w.WriteString(".\n")
		short := map[Time]string{Nanosecond: "ns", Picosecond: "ps"}[g.opts.Unit]
		for _, v := range []struct {
			name, per string
			ps        float64
		}{{"L", "", float64(p.L)}, {"o", "", float64(p.O)}, {"g", "", float64(p.Gap)}, {"G", "/B", p.G}, {"O", "/B", p.OPerByte}} {
			if float64(round(v.ps))*u == v.ps {
				continue
			}
			fmt.Fprintf(w, "// Warning: %s = %g ps%s is written as %d %s%s", v.name, v.ps, v.per, round(v.ps), short, v.per)
			if g.opts.Unit == Nanosecond {
				w.WriteString(": convert with --goal-unit ps to replay it exactly")
			}
			w.WriteString(".\n")
		}
	} else {
		w.WriteString("\n")
	}
	w.WriteString(`// Each rank's main thread is one chain: every operation requires the one before it.
// calc is the time between calls, compute fragments and calls that do not communicate.
// send and recv carry the actual peer, tag and size of each message whose two ends are in the trace; 0-byte messages are 1b.
// Isend and Irecv are followed with irequires; the Wait or Test that completed them is "calc 0" that requires them.
`)
	w.WriteString("// Send modes are not represented: LogGOPSim makes a message eager or rendezvous by its size (-S).\n")
	if h.EagerLimit > 0 {
		fmt.Fprintf(w, "// The run's eager limit was %d bytes: LogGOPSim -S %d does the same.\n", h.EagerLimit, h.EagerLimit)
	}
	fmt.Fprintf(w, "// Collectives are expanded into the point-to-point messages of their algorithm (tags %d and up, one per call):\n", goalCollTagBase)
	uses := make([]goalAlgUse, 0, len(g.algs))
	for u := range g.algs {
		uses = append(uses, u)
	}
	slices.SortFunc(uses, func(a, b goalAlgUse) int {
		return strings.Compare(a.op+"\x00"+a.alg+"\x00"+a.source, b.op+"\x00"+b.alg+"\x00"+b.source)
	})
	for _, u := range uses {
		fmt.Fprintf(w, "//   %s: %s, %d instances (%s)\n", u.op, u.alg, g.algs[u], u.source)
	}
	fmt.Fprintf(w, "// Approximations: %d of %d collective instances expanded; %d collective calls not expanded (unknown operation or incomplete in the trace) are calc of their measured duration;\n",
		g.collsExpanded, len(g.colls), g.collsAsCalc)
	fmt.Fprintf(w, "// %d events of pool threads are not written (their rank's main thread waits for them in calc); %d point-to-point calls whose message lacks an end in the trace are calc.\n",
		g.threadEvents, g.unmatched)
	if len(g.commTags) > 0 {
		pairs := make([]commTag, 0, len(g.commTags))
		for p := range g.commTags {
			pairs = append(pairs, p)
		}
		slices.SortFunc(pairs, func(a, b commTag) int { return int(g.commTags[a] - g.commTags[b]) })
		w.WriteString("// Tags of communicators other than the world:\n")
		for _, p := range pairs {
			fmt.Fprintf(w, "//   tag %d is communicator %d tag %d\n", g.commTags[p], p.comm, p.tag)
		}
	}
	fmt.Fprintf(w, "num_ranks %d\n", np)
}
