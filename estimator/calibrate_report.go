// This file defines the report of a calibration: the summary for people
// and the JSON of the tables and the fit.

package estimator

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/predict-tools/predict/machine"
)

// WriteJSON writes cal as indented JSON: the host, the timer, the clock
// sync, the self-tests, the ping-pong table with its fit and residuals,
// the other measurements, and the machine.
func (cal *Calibration) WriteJSON(w io.Writer) error {
	b, err := json.MarshalIndent(cal, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteSummary writes what cal measured and fitted, for people.
func (cal *Calibration) WriteSummary(w io.Writer) error {
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	h := cal.Host
	line("calibrated %s%s on %s (%s, %d CPUs, %s, %s) in %s",
		cal.runtimeText(), quickNote(cal.Quick), h.Name, h.CPUModel, h.CPUs, h.OS, h.GoVersion, cal.Took.Round(1e6))
	line("load average before %s, after %s; clock source %s", orUnknown(h.LoadBefore), orUnknown(h.LoadAfter), orUnknown(h.ClockSource))
	line("timer: a read costs %s (median; min %s), granularity %s; probes: a Now/Seg pair %s, of which %s inside the interval",
		nsText(cal.Timer.MedianRead), nsText(cal.Timer.MinRead), nsText(cal.Timer.Granularity), nsText(cal.Probe.PairNS), nsText(cal.Probe.SegNS))
	for r, o := range cal.ClockSync {
		if r > 0 {
			line("clock of rank %d: offset %+d ns against rank 0 (bound ±%d ns: half the fastest of %d round trips)", r, o.Offset, o.RTT/2, o.Exchanges)
		}
	}
	for _, t := range cal.SelfTests {
		line("self-test %s", t)
	}
	if len(cal.PingPong) > 0 {
		line("")
		line("ping-pong, one-way time (trimmed mean ± 95 %% interval), the first round trip apart, the fitted LogGOPS model (without the table) and the segments' (piecewise LogGP):")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "bytes\tone-way\t±\truns\tfirst RTT\tmodel\tresidual\tsegments\tresidual\t")
		segs := cal.Segments.residuals()
		for i, p := range cal.PingPong {
			model, res := residualText(cal.Residuals, i)
			seg, segRes := residualText(segs, i)
			fmt.Fprintf(tw, "%d\t%s\t%.1f %%\t%d\t%s\t%s\t%s\t%s\t%s\t\n", p.Bytes, nsText(p.OneWay.Mean), 100*p.OneWay.RelHalfWidth(), p.OneWay.Runs,
				nsText(p.FirstRTT), model, res, seg, segRes)
		}
		tw.Flush()
	}
	if m := cal.Machine; m != nil {
		f := cal.Fit
		jump := "no jump"
		if f.EagerLimit >= 0 {
			jump = fmt.Sprintf("%+.0f ns above %d B", f.Jump, f.EagerLimit)
		}
		line("fit: one-way = %s + %.4g ns/B × (s−1), %s; relative rms %.1f %%, worst residual %s", nsText(f.Intercept), f.Slope, jump,
			100*f.RelRMS, worstResidual(cal.Residuals))
		line("     %s", cal.FitHow)
		lg := &m.Intra
		line("LogGOPS: L=%s o=%s g=%s G=%s O=%s S=%d B", machine.FormatDuration(lg.Latency), machine.FormatDuration(lg.Overhead),
			machine.FormatDuration(lg.GapPerMessage), lg.GapPerByte, lg.OverheadPerByte, lg.EagerLimit)
		line("         (the machine file also holds the table, which the interpreter uses for the transfer time)")
		cal.Segments.summary(&b)
		t := &m.Threads
		line("threads: create=%s set_task=%s start=%s copy=%s cas=%s try_lock=%s release=%s",
			machine.FormatDuration(t.Create), machine.FormatDuration(t.SetTask), machine.FormatDuration(t.Start), t.Copy,
			machine.FormatDuration(t.CAS), machine.FormatDuration(t.TryLock), machine.FormatDuration(t.Release))
		if cal.inProcess() {
			steal := "not measured (0)"
			if m.StealDelay > 0 {
				steal = machine.FormatDuration(m.StealDelay)
			}
			line("steal delay: %s (a rank readied to run next on a busy core, until a free core runs it)", steal)
		}
	}
	if len(cal.Collectives) > 0 {
		line("")
		line("collectives at np=%d, launched in time slots, max over ranks (trimmed mean ± 95 %% interval; each rank's own mean):", cal.Collectives[0].NP)
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "collective\tbytes\ttime\t±\tvalid\tper rank\t\t")
		for _, ct := range cal.Collectives {
			ranks := make([]string, len(ct.RankMeans))
			for r, x := range ct.RankMeans {
				ranks[r] = nsText(x)
			}
			t, pm, note := "—", "—", ""
			if ct.Time.Kept >= 2 {
				t, pm = nsText(ct.Time.Mean), fmt.Sprintf("%.1f %%", 100*ct.Time.RelHalfWidth())
			}
			if !ct.Converged {
				note = "(not converged: indicative)"
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%d/%d\t%s\t%s\t\n", ct.Op, ct.Bytes, t, pm, ct.Slots.Valid, ct.Slots.Runs, strings.Join(ranks, " "), note)
		}
		tw.Flush()
		line("")
	}
	mem := cal.Memory
	switch {
	case mem.Streams > 0:
		line("memory: %.3g GB/s with %d streams, %.3g GB/s alone (STREAM triad; %s)%s",
			mem.Node.Mean/1e9, mem.Streams, mem.Alone.Mean/1e9, mem.Plan, notConverged(mem.Converged))
	case mem.Plan != "":
		line("memory: %s", mem.Plan)
	}
	if a := cal.AllocPerByte; a.Runs > 0 {
		line("allocation: %.4g ns/B (a fresh %d MiB make([]byte) and its first write, less a write to resident memory)%s",
			a.Mean, allocBlock>>20, notConverged(cal.AllocConverged))
	}
	for _, l := range cal.Noise.summary() {
		line("%s", l)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// notConverged marks an indicative figure.
func notConverged(converged bool) string {
	if converged {
		return ""
	}
	return " (not converged: indicative)"
}

func quickNote(quick bool) string {
	if quick {
		return ", quickly,"
	}
	return ""
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// residualText is the model and the residual of row i ("—" for none).
func residualText(rs []Residual, i int) (model, rel string) {
	if i >= len(rs) {
		return "—", "—"
	}
	return nsText(rs[i].Model), percent(rs[i].Rel)
}

// worstResidual names the largest residual and its size.
func worstResidual(rs []Residual) string {
	worst := -1
	for i, r := range rs {
		if worst < 0 || math.Abs(r.Rel) > math.Abs(rs[worst].Rel) {
			worst = i
		}
	}
	if worst < 0 {
		return "none"
	}
	return fmt.Sprintf("%+.1f %% at %d B", 100*rs[worst].Rel, rs[worst].Bytes)
}
