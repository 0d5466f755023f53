// This file defines the text, JSON and CSV forms of an analysis.

package scale

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
)

// WriteText writes the analysis for a person: a table aligned in columns,
// one row per process count, then the fitted figures and the verdict.
// Equal analyses give identical text.
func (a Analysis) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	if a.Name != "" {
		fmt.Fprintf(bw, "Predicted scaling of %s\n", a.Name)
	}
	fmt.Fprintf(bw, "Baseline: np=%d, %v\n\n", a.BaselineNP, a.Baseline)
	if len(a.Rows) == 0 {
		fmt.Fprintln(bw, "No predictions.")
		return bw.Flush()
	}

	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "np\ttime\tspeedup\tefficiency\tcompute\tcomm\twait\t")
	for _, r := range a.Rows {
		fmt.Fprintf(tw, "%d\t%v\t%.2f\t%.2f\t%.1f%%\t%.1f%%\t%.1f%%\t\n",
			r.NP, r.Time, r.Speedup, r.Efficiency, 100*r.ComputeShare, 100*r.CommShare, 100*r.WaitShare)
	}
	tw.Flush()
	fmt.Fprintln(bw)

	tw = tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
	switch {
	case !a.fitted():
		fmt.Fprintf(tw, "Amdahl serial fraction\tnot fitted: no process count besides the baseline\n")
	default:
		fmt.Fprintf(tw, "Amdahl serial fraction\tf = %.4g (least squares on relative times; rms error %.1f%%%s)\n",
			a.SerialFraction, 100*a.FitError, poorFit(a.FitError))
		if a.SMax > 0 {
			fmt.Fprintf(tw, "Amdahl bound\tS_max = 1/f = %.4g\n", a.SMax)
		} else {
			fmt.Fprintf(tw, "Amdahl bound\tS_max = unbounded (f = 0)\n")
		}
	}
	fmt.Fprintf(tw, "peak speedup\t%.3g at np=%d\n", a.PeakSpeedup, a.PeakNP)
	if a.HalfEfficiencyNP > 0 {
		fmt.Fprintf(tw, "efficiency < 0.5\tfrom np=%d\n", a.HalfEfficiencyNP)
	} else {
		fmt.Fprintf(tw, "efficiency < 0.5\tnowhere up to np=%d\n", a.Rows[len(a.Rows)-1].NP)
	}
	if g := a.Growing; g != nil {
		fmt.Fprintf(tw, "fastest-growing share\t%s %s: %.1f%% at np=%d → %.1f%% at np=%d (%+.1f points per doubling)\n",
			g.Node.Pos, g.Node.ID, 100*g.FirstShare, a.Rows[0].NP, 100*g.LastShare, a.Rows[len(a.Rows)-1].NP, 100*g.PerDoubling)
	}
	tw.Flush()
	fmt.Fprintf(bw, "\nVerdict: %s\n", a.Verdict)
	return bw.Flush()
}

// WriteJSON writes the analysis as indented JSON; json.Unmarshal reads it
// back into an equal Analysis.
func (a Analysis) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(a)
}

// csvHeader names the columns of WriteCSV. Times are picoseconds, shares
// fractions of the mean total time of a rank.
var csvHeader = []string{
	"np", "time_ps", "speedup", "efficiency",
	"compute_ps", "comm_ps", "wait_ps",
	"compute_share", "comm_share", "wait_share",
}

// WriteCSV writes the rows of the analysis as CSV with a header line
// (csvHeader). Numbers are written in full, so that reading them back
// gives the same values.
func (a Analysis) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write(csvHeader)
	float := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, r := range a.Rows {
		cw.Write([]string{
			strconv.Itoa(r.NP), strconv.FormatInt(int64(r.Time), 10), float(r.Speedup), float(r.Efficiency),
			strconv.FormatInt(int64(r.Compute), 10), strconv.FormatInt(int64(r.Comm), 10), strconv.FormatInt(int64(r.Wait), 10),
			float(r.ComputeShare), float(r.CommShare), float(r.WaitShare),
		})
	}
	cw.Flush()
	return cw.Error()
}

// fitted reports whether the Amdahl fit had a process count other than the
// baseline's to go by.
func (a Analysis) fitted() bool {
	for _, r := range a.Rows {
		if r.NP != a.BaselineNP {
			return true
		}
	}
	return false
}

// poorFitError is the rms relative error above which the report says that
// the time does not follow Amdahl's law.
const poorFitError = 0.1

func poorFit(rmsError float64) string {
	if rmsError > poorFitError {
		return ": a poor fit, the time does not follow Amdahl's law"
	}
	return ""
}
